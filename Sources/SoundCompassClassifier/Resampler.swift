import CSoxr

/// A streaming two-channel sample-rate converter over libsoxr ("high quality": 20-bit, linear
/// phase, passband to 91 % of the lower Nyquist), for the classifier's 16 kHz input.
///
/// Life cycle: `init` makes the converter; ``process(left:right:count:)`` never allocates
/// (libsoxr keeps its own buffers after the first calls). Every libsoxr call is in this file.
final class Resampler {
    /// Input frames taken per libsoxr call.
    static let chunk = 4096
    let inputRate: Double
    let outputRate: Double
    private let soxr: soxr_t
    /// 16 kHz output of the last ``process(left:right:count:)``, per channel.
    let outLeft: UnsafeMutablePointer<Float>
    let outRight: UnsafeMutablePointer<Float>
    let outCapacity: Int
    private let inPointers: UnsafeMutablePointer<UnsafeRawPointer?>
    private let outPointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    /// - Parameters:
    ///   - inputRate: the stream's rate, Hz.
    ///   - outputRate: the rate wanted, Hz.
    /// - Throws: ``ClassifierError/resampler(_:)`` with libsoxr's message.
    /// The corresponding C function is `soxr_create`.
    init(inputRate: Double, outputRate: Double) throws(ClassifierError) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        var error: soxr_error_t? = nil
        var io = soxr_io_spec(SOXR_FLOAT32_S, SOXR_FLOAT32_S)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        var runtime = soxr_runtime_spec(1)
        guard let handle = soxr_create(inputRate, outputRate, 2, &error, &io, &quality, &runtime), error == nil else {
            throw .resampler(error.map { String(cString: $0) } ?? "soxr_create failed")
        }
        soxr = handle
        outCapacity = 2 * Int((Double(Self.chunk) * outputRate / inputRate).rounded(.up)) + 1024
        outLeft = .allocate(capacity: outCapacity)
        outRight = .allocate(capacity: outCapacity)
        outLeft.initialize(repeating: 0, count: outCapacity)
        outRight.initialize(repeating: 0, count: outCapacity)
        inPointers = .allocate(capacity: 2)
        inPointers.initialize(repeating: nil, count: 2)
        outPointers = .allocate(capacity: 2)
        outPointers.initialize(repeating: nil, count: 2)
    }

    deinit {
        soxr_delete(soxr)
        outLeft.deallocate()
        outRight.deallocate()
        inPointers.deallocate()
        outPointers.deallocate()
    }

    /// Converts up to ``chunk`` frames; the output is in ``outLeft`` and ``outRight``.
    /// - Returns: output frames written (libsoxr's filter delay means the first calls give fewer).
    /// The corresponding C function is `soxr_process`.
    func process(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) -> Int {
        precondition(count <= Self.chunk, "at most \(Self.chunk) frames per call")
        inPointers[0] = UnsafeRawPointer(left)
        inPointers[1] = UnsafeRawPointer(right)
        outPointers[0] = UnsafeMutableRawPointer(outLeft)
        outPointers[1] = UnsafeMutableRawPointer(outRight)
        var consumed = 0, produced = 0
        _ = soxr_process(soxr, UnsafeRawPointer(inPointers), count, &consumed, UnsafeMutableRawPointer(outPointers), outCapacity, &produced)
        return produced
    }

    /// Forgets the stream so far.
    /// The corresponding C function is `soxr_clear`.
    func reset() { _ = soxr_clear(soxr) }
}
