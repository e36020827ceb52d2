#ifndef SOUNDCOMPASS_CMYSOFA_SHIM_H
#define SOUNDCOMPASS_CMYSOFA_SHIM_H
#include <stdbool.h>
#include <stddef.h>
#include <mysofa.h>
#endif
