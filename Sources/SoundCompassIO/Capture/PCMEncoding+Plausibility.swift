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
        /// Lag-1 autocorrelation, the lower of the first two channels' (near 1: smooth, as sound
        /// is at audio sample rates; near 0: noise, as misread bytes are).
        package var smoothness = 0.0
        /// Peak correlation of the first two channels within ±16 samples (a pair of microphones
        /// hears the same sound; misread bytes are unrelated).
        package var coupling = 0.0
        /// Share of the samples of the first two channels below a quarter of the peak (sound
        /// crosses zero; integers misread from floats sit near ±0.5).
        package var nearZero = 0.0
        /// The larger of the first two channels' mean over RMS (sound has no DC to speak of;
        /// 24-bit samples read as 32-bit jump by 1/128 at every zero crossing).
        package var offset = 0.0

        /// Share of the samples that are NaN/Inf, percent.
        package var nonFinitePercent: Double { samples > 0 ? 100 * Double(nonFinite) / Double(samples) : 0 }
        /// The peak in dBFS.
        package var peakDBFS: Double { 20 * log10(max(Double(peak), 1e-300)) }
        /// At most 1 % NaN/Inf, a peak no higher than +40 dBFS (|x| ≤ 100), and not a peak
        /// below −200 dBFS other than silence (the tiny floats of integers read as f32).
        package var isPlausible: Bool { nonFinitePercent <= 1 && peak <= 100 && (peak == 0 || peak >= 1e-10) }
        /// No NaN/Inf, nothing above full scale, a level above −200 dBFS, and zero crossings.
        package var isClean: Bool { nonFinite == 0 && peak <= 1.0001 && peak >= 1e-10 && nearZero >= 0.02 && offset <= 0.5 }
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
        let quarter = Double(result.peak) / 4
        result.nearZero = Double(decoded.joined().count { abs($0) < quarter }) / Double(frames * decoded.count)
        for values in decoded {
            let mean = values.reduce(0, +) / Double(frames)
            let rms = (values.reduce(0) { $0 + $1 * $1 } / Double(frames)).squareRoot()
            if rms > 0 { result.offset = max(result.offset, abs(mean) / rms) }
        }
        (result.smoothness, result.coupling) = Self.structure(decoded)
        return result
    }

    /// Lag-1 autocorrelation (the lower of the channels') and the peak correlation between two
    /// channels within ±16 samples.
    static func structure(_ channels: [[Double]]) -> (smoothness: Double, coupling: Double) {
        func dot(_ a: [Double], _ b: [Double], lag: Int) -> Double {
            var sum = 0.0
            let n = a.count
            // Fewer samples than the lag (a stream of a few frames): nothing overlaps.
            let first = max(0, -lag), end = min(n, n - lag)
            guard first < end else { return 0 }
            for i in first..<end { sum += a[i] * b[i + lag] }
            return sum
        }
        let energies = channels.map { dot($0, $0, lag: 0) }
        guard !energies.contains(where: { $0 <= 0 }) else { return (0, 0) }
        var smooth = Double.infinity
        for (c, values) in channels.enumerated() { smooth = min(smooth, dot(values, values, lag: 1) / energies[c]) }
        var coupled = 0.0
        if channels.count == 2 {
            let norm = (energies[0] * energies[1]).squareRoot()
            for lag in -16...16 { coupled = max(coupled, abs(dot(channels[0], channels[1], lag: lag)) / norm) }
        }
        return (smooth, coupled)
    }

    /// The encoding under which `bytes` decode most plausibly: cleanly (see
    /// ``Decoding/isClean``) and the smoothest; when nothing is smooth (noise), the one whose
    /// channels are most alike. Exact ties (24-bit and 32-bit reads of quiet audio) go to the
    /// earlier encoding of ``preference``.
    /// - Returns: `nil` when no encoding decodes cleanly with some structure.
    package static func likeliest(for bytes: UnsafeRawBufferPointer, channels: Int) -> PCMEncoding? {
        let candidates = preference.map { ($0, $0.decoding(of: bytes, channels: channels)) }.filter { $0.1.isClean }
        let smooth = (candidates.map(\.1.smoothness).max() ?? 0) >= 0.5
        var best: (encoding: PCMEncoding, score: Double)?
        for (encoding, decoded) in candidates {
            let score = smooth ? decoded.smoothness : decoded.coupling
            guard score > 0.2 else { continue }
            if best == nil || score > best!.score + 1e-9 { best = (encoding, score) }
        }
        return best?.encoding
    }

    /// A warning when bytes that decode plausibly (``Decoding/isPlausible``) under this
    /// encoding still look misread: noise under it, with channels unrelated, but sound under
    /// another (`f32le` read as `s16le` gives two halves of each float, full-scale noise that
    /// lasts twice as long). The data are used as given; the warning names the likelier format.
    /// - Parameters:
    ///   - decoded: `bytes` decoded under this encoding.
    ///   - name: the stream, for the message.
    /// - Returns: `nil` when nothing decodes clearly better.
    package func mismatchWarning(_ decoded: Decoding, bytes: UnsafeRawBufferPointer, channels: Int, name: String) -> String? {
        let noiseLike = decoded.smoothness < 0.2, unrelated = decoded.coupling < 0.2
        guard noiseLike || !decoded.isClean,
              let likely = Self.likeliest(for: bytes, channels: channels), likely != self
        else { return nil }
        let other = likely.decoding(of: bytes, channels: channels)
        let smoother = other.smoothness >= 0.5 && decoded.smoothness < 0.2
        let coupled = other.coupling >= 0.5 && unrelated
        guard smoother || coupled else { return nil }
        return "\(name): read as \(rawValue), the samples look like noise\(unrelated ? " unrelated between the channels" : ""); as \(likely.rawValue) they look like sound: is the data \(likely.rawValue) (--raw-format \(likely.rawValue))?"
    }
}
