#ifndef SOUNDCOMPASS_CBLAS_SHIM_H
#define SOUNDCOMPASS_CBLAS_SHIM_H
#include <cblas.h>
#endif
