// The umbrella module: `import SoundCompass` gives the engine and the I/O layer together.
//
// - `SoundCompassEngine`: pure DSP (FFT, GCC-PHAT, levels, array models, fusion, bands,
//   activity, tracking, front/back, calibration fit, segment summaries). Depends on FFTW only.
// - `SoundCompassIO`: sound files, raw PCM, ALSA capture, IMU logs, profiles, truth CSVs,
//   record writers, SVG traces, the terminal compass, and the analysis session that wires a
//   source, an analyzer and a writer together.
@_exported import SoundCompassEngine
@_exported import SoundCompassIO
