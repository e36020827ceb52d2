/*
 * soundcompass.h: the C interface of the SoundCompass engine (libSoundCompassC.so).
 *
 * Where a sound comes from, from a stereo pair of microphones: one record per analysis frame
 * (about 21 ms apart at the default settings), with the per-band estimates and the tracked
 * sources. Docs/Python.md describes it with the Python package built on it; Docs/OutputFormat.md
 * explains every field (the struct members below carry the JSON keys' names).
 *
 * Use:
 *   sc_analyzer *a;
 *   char message[512];
 *   const char *options[] = {"--spacing", "0.2"};
 *   if (sc_analyzer_create(48000, 2, options, &a, message, sizeof message) != SC_OK) { ... }
 *   sc_analyzer_write(a, left, right, frames);          // any number of samples, any time
 *   sc_record records[64]; sc_band bands[64 * 8]; sc_source sources[64 * 8];
 *   size_t n;
 *   while (sc_analyzer_read(a, records, bands, sources, 64, &n) == SC_OK && n > 0) { ... }
 *   sc_analyzer_destroy(a);
 *
 * Options are the command-line tool's analysis options, as its arguments ("--array",
 * "binaural", "--max-sources", "2", "--no-steady-sources", ...): the same names, defaults,
 * checks and messages (`soundcompass analyze --help`, group "Analysis").
 *
 * Units: angles in degrees (0 ahead, negative left, positive right), times in seconds, levels
 * in dBFS, time differences in microseconds, frequencies in Hz. Every number is finite except
 * where NAN is documented as "none".
 *
 * Threads: an analyzer is used by one thread at a time; different analyzers are independent.
 * Memory: sc_analyzer_read allocates nothing; the analyzer owns every string it returns.
 */
#ifndef SOUNDCOMPASS_H
#define SOUNDCOMPASS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface: changes when a struct or a function changes. */
#define SC_ABI_VERSION 1

/* What a call did: the same numbers as the command-line tool's exit codes (Docs/CLI.md). */
typedef enum sc_status {
    SC_OK = 0,
    SC_INTERNAL_ERROR = 1, /* a bug: please report it with the message */
    SC_USAGE = 64,         /* an option, an argument or a call is wrong */
    SC_DATA_ERROR = 65,    /* the input's content cannot be analysed */
    SC_NO_INPUT = 66,      /* a file cannot be found or opened */
    SC_IO_ERROR = 74       /* reading failed */
} sc_status;

/* Front/back (`hemisphere`). */
typedef enum sc_hemisphere {
    SC_HEMISPHERE_UNKNOWN = 0,
    SC_HEMISPHERE_FRONT = 1,
    SC_HEMISPHERE_BACK = 2
} sc_hemisphere;

/* One analysis frame: the record's broadband fields. */
typedef struct sc_record {
    int64_t frame;           /* index of the frame, from 0 */
    double time;             /* centre of the frame, s from the first sample */
    double azimuth;          /* tracked bearing, degrees */
    double raw_azimuth;      /* the frame's own bearing before tracking, degrees in [-90, 90] */
    double lateral;          /* sin(azimuth): -1 hard left ... 1 hard right */
    double confidence;       /* fused confidence, 0...1 */
    double ild_db;           /* level difference, right minus left, dB */
    double itd_us;           /* time difference, right minus left arrival, microseconds */
    double level_dbfs;       /* frame level, dBFS (-160 for digital silence) */
    double yaw;              /* device yaw, degrees; NAN: none (no IMU) */
    double world_azimuth;    /* azimuth + yaw, degrees; NAN: none (front/back unresolved) */
    double itd_confidence;   /* confidence of the time cue alone, 0...1 */
    double ild_confidence;   /* confidence of the level cue alone, 0...1 */
    double dominant_hz;      /* strongest frequency, Hz (0 when not active) */
    double noise_floor_dbfs; /* the learned noise floor, dBFS */
    int32_t active;          /* 1 when the frame holds sound worth a bearing */
    int32_t hemisphere;      /* an sc_hemisphere */
    int32_t band_count;      /* entries of this record in the bands array */
    int32_t source_count;    /* entries of this record in the sources array */
} sc_record;

/* One frequency band of one record (its name and edges: sc_analyzer_band_info). */
typedef struct sc_band {
    double azimuth;    /* band bearing, degrees */
    double confidence; /* 0...1 */
    double level_dbfs; /* band level, dBFS */
    int32_t index;     /* the band's index, 0 ... band_count - 1 of sc_info */
    int32_t loudest;   /* 1 for the loudest band of an active frame */
} sc_band;

/* One tracked source of one record. */
typedef struct sc_source {
    int64_t id;           /* the source's number: 1, 2, ... (kept through pauses) */
    double azimuth;       /* smoothed bearing, degrees */
    double confidence;    /* the measured probability that the source is real, 0...1 */
    double level_dbfs;    /* estimated level of the source, dBFS */
    double world_azimuth; /* bearing in the world, degrees; NAN: none */
    int32_t active;       /* 1 while the source is heard */
    int32_t hemisphere;   /* an sc_hemisphere */
} sc_source;

/* What an analyzer was made with. */
typedef struct sc_info {
    double sample_rate;   /* Hz */
    int32_t frame_length; /* samples per analysis frame */
    int32_t hop_length;   /* samples between frames */
    int32_t band_count;   /* bands in every record */
    int32_t max_sources;  /* most sources in a record (0: the tracker is off) */
} sc_info;

/* One band's name and edges. */
typedef struct sc_band_info {
    const char *name; /* e.g. "speech"; owned by the analyzer */
    double low_hz;
    double high_hz;
} sc_band_info;

typedef struct sc_analyzer sc_analyzer;

/* SC_ABI_VERSION of the library actually loaded. */
int sc_abi_version(void);

/*
 * Makes an analyzer for float samples at `sample_rate` Hz fed with sc_analyzer_write.
 * `argv` holds `argc` analysis options (see above; NULL with 0 for the defaults). On failure
 * returns the status, writes a one-line message to `error` (at most `error_size` bytes with
 * its NUL; NULL for none) and sets *out to NULL.
 */
sc_status sc_analyzer_create(double sample_rate, int argc, const char *const *argv, sc_analyzer **out,
                             char *error, size_t error_size);

/*
 * Makes an analyzer that reads a sound file (any format libsndfile reads) block by block, as
 * `soundcompass analyze FILE` does: the same records. `argv` as for sc_analyzer_create (with
 * "--channels L,R" and "--swap" for the file's channels).
 */
sc_status sc_analyzer_open_file(const char *path, int argc, const char *const *argv, sc_analyzer **out,
                                char *error, size_t error_size);

/* Frees the analyzer and everything it returned. NULL is allowed. */
void sc_analyzer_destroy(sc_analyzer *analyzer);

/* The analyzer's settings. */
sc_status sc_analyzer_info(const sc_analyzer *analyzer, sc_info *info);

/* The name and edges of band `index` (0 ... band_count - 1). */
sc_status sc_analyzer_band_info(const sc_analyzer *analyzer, int32_t index, sc_band_info *info);

/*
 * Queues `frames` samples of each channel (linear full scale, +-1 = 0 dBFS; NaN and Inf are
 * replaced by 0 and counted) for sc_analyzer_read. Not for a file analyzer (SC_USAGE).
 * Copies the samples: the caller's buffers may be reused at once.
 */
sc_status sc_analyzer_write(sc_analyzer *analyzer, const float *left, const float *right, size_t frames);

/*
 * Analyses what is queued (a file analyzer: reads on) and writes up to `capacity` records.
 * Record i's bands are bands[i * band_count ...], its sources sources[i * max_sources ...]
 * (sc_info): size the arrays for `capacity` records. *count is the number written; 0 means
 * that every queued sample is analysed (a file analyzer: the end of the file). Allocates
 * nothing. A failure (a file that cannot be read on) returns its status; the message is in
 * sc_analyzer_error.
 */
sc_status sc_analyzer_read(sc_analyzer *analyzer, sc_record *records, sc_band *bands, sc_source *sources,
                           size_t capacity, size_t *count);

/* The message of the analyzer's last failure ("" when none); owned by the analyzer. */
const char *sc_analyzer_error(const sc_analyzer *analyzer);

/*
 * What the command-line tool would warn about at the end, one per line ("" when nothing):
 * a truncated file, NaN/Inf samples replaced, an input shorter than one frame. Owned by the
 * analyzer, valid until the next call on it.
 */
const char *sc_analyzer_warnings(sc_analyzer *analyzer);

#ifdef __cplusplus
}
#endif

#endif /* SOUNDCOMPASS_H */
