#ifndef SOUNDCOMPASS_CSOXR_SHIM_H
#define SOUNDCOMPASS_CSOXR_SHIM_H
#include <soxr.h>
#endif
