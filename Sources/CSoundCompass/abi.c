// The one function of the C interface written in C: the others are Swift's (@_cdecl, in
// Sources/SoundCompassC), declared in include/soundcompass.h.
#include "soundcompass.h"

int sc_abi_version(void) { return SC_ABI_VERSION; }
