#ifndef SOUNDCOMPASS_CSNDFILE_SHIM_H
#define SOUNDCOMPASS_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
