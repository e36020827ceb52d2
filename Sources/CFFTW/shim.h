#ifndef SOUNDCOMPASS_CFFTW_SHIM_H
#define SOUNDCOMPASS_CFFTW_SHIM_H
#include <fftw3.h>

/// `fftwf_version` is an incomplete array Swift cannot import; expose it through a function.
static inline const char *soundcompass_fftwf_version(void) { return fftwf_version; }
#endif
