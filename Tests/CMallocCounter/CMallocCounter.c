// Allocation counter for tests: replaces glibc's allocation functions in the test executable and
// forwards every call to glibc's own implementation (`__libc_malloc` and friends, which glibc
// exports for this purpose), counting the calls a thread makes while its flag is set.
//
// The flag and the counts are thread-local (initial-exec TLS in the executable: reading them does
// not allocate), so a counted region sees only its own thread's allocations. `free` is not
// replaced: glibc's frees what `__libc_*` returned.

#define _GNU_SOURCE
#include "CMallocCounter.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MALLOC_COUNTER_SANITIZED 1
#endif
#endif

// Under a sanitizer (scripts/sanitize) the sanitizer owns malloc: nothing is replaced, nothing is
// counted, and the allocation tests are left out of those runs.
#if defined(__GLIBC__) && !defined(__APPLE__) && !defined(MALLOC_COUNTER_SANITIZED)

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static __thread int counting = 0;
static __thread malloc_counts counts = {0, 0};

// libswiftCore's load address and its allocation entry points, looked up by
// `malloc_counter_start` (outside a counted region: `dlsym` may allocate).
static void *swift_core_base = NULL;
static void *swift_slow_alloc = NULL;
static void *swift_slow_alloc_typed = NULL;
static pthread_once_t swift_lookup_once = PTHREAD_ONCE_INIT;

static void look_up_swift_runtime(void) {
    swift_slow_alloc = dlsym(RTLD_DEFAULT, "swift_slowAlloc");
    swift_slow_alloc_typed = dlsym(RTLD_DEFAULT, "swift_slowAllocTyped");
    Dl_info info;
    if (swift_slow_alloc != NULL && dladdr(swift_slow_alloc, &info) != 0) swift_core_base = info.dli_fbase;
}

/// Counts one allocation made from `caller` (the allocation function's return address).
static void note(void *caller) {
    if (!counting) return;
    Dl_info info;
    if (swift_core_base != NULL && dladdr(caller, &info) != 0 && info.dli_fbase == swift_core_base) {
        // In libswiftCore: `swift_slowAlloc` (or its typed form) is an allocation of Swift code;
        // anything else (a local symbol, `dli_saddr` NULL) is the runtime's own.
        void *function = info.dli_saddr;
        int slow_alloc = function != NULL
            && (function == swift_slow_alloc || (swift_slow_alloc_typed != NULL && function == swift_slow_alloc_typed));
        if (!slow_alloc) {
            counts.swiftRuntimeInternal += 1;
            return;
        }
    }
    counts.allocations += 1;
}

#define CALLER __builtin_return_address(0)

void *malloc(size_t size) {
    note(CALLER);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size) {
    note(CALLER);
    return __libc_calloc(n, size);
}

void *realloc(void *pointer, size_t size) {
    note(CALLER);
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    note(CALLER);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    note(CALLER);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    note(CALLER);
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    note(CALLER);
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    note(CALLER);
    return __libc_pvalloc(size);
}

void malloc_counter_start(void) {
    pthread_once(&swift_lookup_once, look_up_swift_runtime);
    counts.allocations = 0;
    counts.swiftRuntimeInternal = 0;
    counting = 1;
}

malloc_counts malloc_counter_stop(void) {
    counting = 0;
    return counts;
}

int malloc_counter_available(void) { return 1; }

#else

void malloc_counter_start(void) {}
malloc_counts malloc_counter_stop(void) {
    malloc_counts none = {0, 0};
    return none;
}
int malloc_counter_available(void) { return 0; }

#endif
