import SoundCompassEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// YAMNet's front end: 16 kHz mono, 400-sample (25 ms) periodic Hann window every 160 samples
/// (10 ms), 512-point FFT magnitude, 64 HTK-mel bands from 125 to 7500 Hz, `log(mel + 0.001)`.
/// The mel weights are TensorFlow's `linear_to_mel_weight_matrix` (triangles in mel, the DC
/// bin left out), which YAMNet was trained with.
///
/// Life cycle: `init` allocates; the buffer-pointer methods never allocate.
public final class LogMelFrontEnd {
    /// Sample rate of the input, Hz.
    public static let sampleRate = 16_000.0
    /// Window length, samples (25 ms).
    public static let windowLength = 400
    /// Hop between frames, samples (10 ms).
    public static let hopLength = 160
    /// FFT length, samples.
    public static let fftSize = 512
    /// Bins of a spectrum: `fftSize/2 + 1`.
    public static let binCount = fftSize / 2 + 1
    /// Mel bands.
    public static let melBands = YAMNet.melBands
    /// Lowest and highest mel edges, Hz.
    public static let melLowHertz = 125.0, melHighHertz = 7500.0
    /// Offset inside the logarithm (keeps silence finite: log(0.001) = −6.91).
    public static let logOffset: Float = 0.001

    private let fft = RealFFT(size: fftSize)
    private let windowed = AlignedFloats(count: fftSize)
    private let spectrum = AlignedFloats(count: 2 * binCount)
    private let window: [Float]
    /// Band m covers bins `melFirst[m] ..< melFirst[m] + melCount[m]` with weights
    /// `melWeights[melOffset[m] ...]`.
    private let melFirst: [Int], melCount: [Int], melOffset: [Int], melWeights: [Float]

    public init() {
        let n = Self.windowLength
        window = (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
        let mel = { (f: Double) in 1127.0 * log(1.0 + f / 700.0) }
        let bins = Self.binCount, bands = Self.melBands
        let edges = (0..<(bands + 2)).map {
            mel(Self.melLowHertz) + (mel(Self.melHighHertz) - mel(Self.melLowHertz)) * Double($0) / Double(bands + 1)
        }
        var first: [Int] = [], count: [Int] = [], offset: [Int] = [], weights: [Float] = []
        for m in 0..<bands {
            let lower = edges[m], center = edges[m + 1], upper = edges[m + 2]
            var start = -1, taken = 0
            offset.append(weights.count)
            for k in 1..<bins {  // bin 0 (DC) has no weight
                let f = mel(Self.sampleRate / 2 * Double(k) / Double(bins - 1))
                let wgt = max(0, min((f - lower) / (center - lower), (upper - f) / (upper - center)))
                if wgt > 0 {
                    if start < 0 { start = k }
                    // Triangles are contiguous: fill any gap (none in practice) with zeros.
                    while start + taken < k { weights.append(0); taken += 1 }
                    weights.append(Float(wgt)); taken += 1
                }
            }
            first.append(max(start, 0)); count.append(taken)
        }
        melFirst = first; melCount = count; melOffset = offset; melWeights = weights
    }

    /// The spectrum of one window: `samples` (400 at 16 kHz) windowed, zero-padded to 512 and
    /// transformed.
    /// - Parameters:
    ///   - samples: 400 samples.
    ///   - output: `2·257` floats, interleaved complex, unnormalised (FFTW's convention).
    public func spectrum(of samples: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        let x = windowed.baseAddress
        window.withUnsafeBufferPointer { w in
            for i in 0..<Self.windowLength { x[i] = samples[i] * w[i] }
        }
        for i in Self.windowLength..<Self.fftSize { x[i] = 0 }
        fft.forward(x, spectrum.baseAddress)
        output.update(from: spectrum.baseAddress, count: 2 * Self.binCount)
    }

    /// The log-mel frame of magnitudes.
    /// - Parameters:
    ///   - magnitudes: 257 bin magnitudes.
    ///   - output: room for 64 values, `log(mel + 0.001)`.
    public func logMel(magnitudes: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        melWeights.withUnsafeBufferPointer { w in
            for m in 0..<Self.melBands {
                var sum: Float = 0
                let first = melFirst[m], base = melOffset[m]
                for j in 0..<melCount[m] { sum += magnitudes[first + j] * w[base + j] }
                output[m] = logf(sum + Self.logOffset)
            }
        }
    }

    /// The log-mel frames of a whole 16 kHz signal, one per hop while a full window fits
    /// (allocates; for tests and one-off use).
    /// - Returns: frames × 64 values, frame-major.
    public func logMelFrames(_ samples: [Float]) -> [Float] {
        guard samples.count >= Self.windowLength else { return [] }
        let frames = 1 + (samples.count - Self.windowLength) / Self.hopLength
        var out = [Float](repeating: 0, count: frames * Self.melBands)
        var spec = [Float](repeating: 0, count: 2 * Self.binCount)
        var mags = [Float](repeating: 0, count: Self.binCount)
        samples.withUnsafeBufferPointer { s in
            for f in 0..<frames {
                spectrum(of: s.baseAddress! + f * Self.hopLength, into: &spec)
                for k in 0..<Self.binCount { mags[k] = (spec[2 * k] * spec[2 * k] + spec[2 * k + 1] * spec[2 * k + 1]).squareRoot() }
                out.withUnsafeMutableBufferPointer { logMel(magnitudes: mags, into: $0.baseAddress! + f * Self.melBands) }
            }
        }
        return out
    }
}
