#ifndef SOUNDCOMPASS_CALSA_SHIM_H
#define SOUNDCOMPASS_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/// ALSA's error handler is C-variadic, which Swift cannot implement: this no-op keeps
/// "ALSA lib ..." lines off the user's terminal. Errors still reach callers as return codes.
static void soundcompass_alsa_silent_handler(const char *file, int line, const char *function,
                                             int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void soundcompass_alsa_silence_errors(void) {
    snd_lib_error_set_handler(soundcompass_alsa_silent_handler);
}
#endif
