import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension PCMEncoding {
    /// How raw bytes decode under one encoding: enough to tell a wrong `--raw-format`.
    package struct Decoding: Sendable {
        /// Samples decoded (all channels).
        package var samples = 0
        /// Of those, NaN or ±Inf.
        package var nonFinite = 0
        /// Largest finite magnitude (full scale is 1).
        package var peak: Float = 0
        /// Lag-1 autocorrelation of the first two channels, the lower of the two (1: smooth as
        /// sound is at audio sample rates; 0 or below: noise, as misread bytes are).
        package var smoothness = 0.0

        /// Share of the samples that are NaN/Inf, percent.
        package var nonFinitePercent: Double { samples > 0 ? 100 * Double(nonFinite) / Double(samples) : 0 }
        /// The peak in dBFS.
        package var peakDBFS: Double { 20 * log10(max(Double(peak), 1e-30)) }
        /// At most 1 % NaN/Inf and a peak no higher than +40 dBFS (|x| ≤ 100).
        package var isPlausible: Bool { nonFinitePercent <= 1 && peak <= 100 }
        /// No NaN/Inf and no sample above full scale.
        package var isClean: Bool { nonFinite == 0 && peak <= 1.0001 }
    }

    /// Decodes interleaved frames of `channels` channels from `bytes` (whole frames only).
    package func decoding(of bytes: UnsafeRawBufferPointer, channels: Int) -> Decoding {
        var result = Decoding()
        let frameBytes = channels * bytesPerSample
        let frames = bytes.count / frameBytes
        guard frames > 1 else { return result }
        var decoded: [[Double]] = []
        for channel in 0..<min(channels, 2) {
            var values = [Double](repeating: 0, count: frames)
            for i in 0..<frames {
                let x = sample(bytes, at: i * frameBytes + channel * bytesPerSample)
                result.samples += 1
                guard x.isFinite else { result.nonFinite += 1; continue }
                result.peak = max(result.peak, abs(x))
                values[i] = Double(x)
            }
            decoded.append(values)
        }
        result.samples += frames * max(0, channels - 2)
        result.smoothness = Self.structure(decoded)
        return result
    }

    /// How much structure decoded channels have, 0…1: the larger of the lag-1 autocorrelation
    /// (the lower of the two channels: sound is smooth at audio rates) and the peak correlation
    /// between the channels within ±16 samples (a pair of microphones hears the same sound).
    /// Misread bytes score near 0 on both.
    static func structure(_ channels: [[Double]]) -> Double {
        func dot(_ a: [Double], _ b: [Double], lag: Int) -> Double {
            var sum = 0.0
            let n = a.count
            for i in max(0, -lag)..<min(n, n - lag) { sum += a[i] * b[i + lag] }
            return sum
        }
        let energies = channels.map { dot($0, $0, lag: 0) }
        guard !energies.contains(where: { $0 <= 0 }) else { return 0 }
        var smooth = Double.infinity
        for (c, values) in channels.enumerated() { smooth = min(smooth, dot(values, values, lag: 1) / energies[c]) }
        var coupled = 0.0
        if channels.count == 2 {
            let norm = (energies[0] * energies[1]).squareRoot()
            for lag in -16...16 { coupled = max(coupled, abs(dot(channels[0], channels[1], lag: lag)) / norm) }
        }
        return max(smooth, coupled)
    }

    /// The encoding under which `bytes` decode most plausibly: no NaN/Inf, nothing above full
    /// scale, and the smoothest (sound is smooth at audio rates; misread bytes are noise).
    /// Near-ties go to the earlier encoding of ``preference``.
    /// - Returns: `nil` when no encoding decodes cleanly and smoothly (smoothness above 0.2).
    package static func likeliest(for bytes: UnsafeRawBufferPointer, channels: Int) -> PCMEncoding? {
        var best: (encoding: PCMEncoding, smoothness: Double)?
        for encoding in preference {
            let decoded = encoding.decoding(of: bytes, channels: channels)
            guard decoded.isClean, decoded.smoothness > 0.2 else { continue }
            if best == nil || decoded.smoothness > best!.smoothness + 1e-3 { best = (encoding, decoded.smoothness) }
        }
        return best?.encoding
    }
}
