#ifndef SOUNDCOMPASS_CFFTW_SHIM_H
#define SOUNDCOMPASS_CFFTW_SHIM_H
#include <fftw3.h>
#endif
