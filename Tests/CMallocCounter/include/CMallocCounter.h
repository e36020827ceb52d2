#ifndef CMALLOCCOUNTER_H
#define CMALLOCCOUNTER_H

#include <stdint.h>

/// Counts heap allocations made by the calling thread (malloc, calloc, realloc, memalign,
/// posix_memalign, aligned_alloc, valloc, pvalloc: the test executable replaces glibc's and
/// forwards to it). Counting is per thread, so tests running in parallel on other threads do not
/// add to a count.

/// The allocations of one counted region.
typedef struct {
    /// Allocations by everything but the Swift runtime's own internals: Swift objects, arrays,
    /// boxes and existentials (`swift_slowAlloc`), C libraries, this program's code.
    int64_t allocations;
    /// Blocks the Swift runtime library (libswiftCore) allocates directly rather than through
    /// `swift_slowAlloc`: in an unoptimised build, the frames of read/modify coroutines
    /// (`for x in array`, `array[i]` through unspecialised generic code). Optimised code inlines
    /// those accessors and makes none.
    int64_t swiftRuntimeInternal;
} malloc_counts;

/// Resets the calling thread's counts to zero and starts counting.
void malloc_counter_start(void);

/// Stops counting on the calling thread and returns what it counted since
/// `malloc_counter_start`.
malloc_counts malloc_counter_stop(void);

/// 1 when this build replaces the allocator (glibc), 0 where it cannot (the counts stay 0).
int malloc_counter_available(void);

#endif
