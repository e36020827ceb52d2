#ifndef SOUNDCOMPASS_CBLAS_SHIM_H
#define SOUNDCOMPASS_CBLAS_SHIM_H
// The CBLAS declarations (Debian's libopenblas-dev installs them as the cblas.h alternative).
// Nothing links against OpenBLAS: the classifier loads libopenblas.so.0 with dlopen when it is
// first made (BLAS+Calls.swift), so that a run without --classify neither maps the library nor
// starts its worker threads (which would not block the signals the command-line tool handles).
#include <cblas.h>
#endif
