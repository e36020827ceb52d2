#ifndef SOUNDCOMPASS_CFUZZERDRIVER_H
#define SOUNDCOMPASS_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that have their own `main` (LLVM ≥ 13; in
/// libclang_rt.fuzzer, linked by `-sanitize=fuzzer`). Runs the fuzzer with the command line
/// `argc`/`argv` and calls `callback` with each input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
