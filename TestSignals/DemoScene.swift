#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Scene {
    /// The embedded demo that `soundcompass analyze` runs with no file: 8 s at `sampleRate`, a
    /// 15 cm spaced pair, speech-like sound at −50° (0.3–2.8 s), white noise at +35° (3.2–4.8 s),
    /// pink noise moving from −70° to +70° (5.2–7.8 s), sensor noise at 25 dB SNR.
    public static func demo(sampleRate: Double = 48000) -> Scene {
        Scene(
            sampleRate: sampleRate, duration: 8, microphones: .spaced(spacing: 0.15),
            sources: [
                Source(.speech, azimuth: -50, start: 0.3, end: 2.8, levelDBFS: -24, seed: 11),
                Source(.whiteNoise, azimuth: 35, start: 3.2, end: 4.8, levelDBFS: -26, seed: 12),
                Source(.pinkNoise, path: .sweep(from: -70, to: 70, between: 5.2, and: 7.8), start: 5.2, end: 7.8,
                       levelDBFS: -24, seed: 13),
            ],
            noise: SensorNoise(snrDecibels: 25, seed: 14))
    }
}
