import CMySofa

/// Every libmysofa call of the project. `MYSOFA_EASY` never leaves this file.
///
/// A handle is not thread-safe (libmysofa's lookup keeps state), so one is opened, read whole
/// and closed by ``SOFAFile/horizontalPlane(path:sampleRate:)`` in one go.
enum SOFACalls {
    /// A measurement: where the source was (Cartesian, metres; x ahead, y left, z up, as
    /// libmysofa gives them after opening) and the two ears' impulse responses at the rate asked for.
    struct Measurement {
        var x: Double, y: Double, z: Double
        var left: [Float], right: [Float]
    }

    /// Opens `path` without loudness normalisation, resampled to `sampleRate` Hz, and returns
    /// the measurements that `keep` (given the Cartesian position) accepts, each read without
    /// interpolation (interpolation between neighbours would smear the interaural delay; the
    /// files keep that delay inside the impulse responses, and a separate `Data.Delay` is
    /// applied as whole samples).
    /// - Throws: the libmysofa error code, when the file cannot be opened.
    /// The corresponding C functions are `mysofa_open_no_norm`, `mysofa_getfilter_float_nointerp`
    /// and `mysofa_close`.
    static func read(
        path: String, sampleRate: Double, keep: (Double, Double, Double) -> Bool
    ) throws(SOFACallError) -> [Measurement] {
        var filterLength: Int32 = 0
        var error: Int32 = 0
        guard let easy = mysofa_open_no_norm(path, Float(sampleRate), &filterLength, &error) else {
            throw SOFACallError(code: error == 0 ? -1 : error)
        }
        defer { mysofa_close(easy) }
        guard error == 0, let hrtf = easy.pointee.hrtf else { throw SOFACallError(code: error == 0 ? -1 : error) }
        let count = Int(hrtf.pointee.M), coordinates = Int(hrtf.pointee.C)
        let positions = hrtf.pointee.SourcePosition
        let length = Int(filterLength)
        guard count > 0, coordinates == 3, length > 0, length <= 1 << 20,
              Int(positions.elements) >= count * 3, let values = positions.values
        else { throw SOFACallError(code: 10005) }
        var result: [Measurement] = []
        var left = [Float](repeating: 0, count: length), right = [Float](repeating: 0, count: length)
        for m in 0..<count {
            let x = Double(values[3 * m]), y = Double(values[3 * m + 1]), z = Double(values[3 * m + 2])
            guard x.isFinite, y.isFinite, z.isFinite, keep(x, y, z) else { continue }
            var delayLeft: Float = 0, delayRight: Float = 0
            // mysofa's lookup may rewrite the coordinates it is given: pass copies.
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    mysofa_getfilter_float_nointerp(
                        easy, Float(x), Float(y), Float(z), l.baseAddress, r.baseAddress, &delayLeft, &delayRight)
                }
            }
            result.append(Measurement(
                x: x, y: y, z: z,
                left: Self.delayed(left, samples: Double(delayLeft)), right: Self.delayed(right, samples: Double(delayRight))))
        }
        return result
    }

    /// `ir` delayed by `Data.Delay` (samples at the rate asked for, usually 0), rounded to whole samples.
    private static func delayed(_ ir: [Float], samples: Double) -> [Float] {
        let whole = samples.rounded()
        guard whole.isFinite, whole > 0, whole < 65536 else { return ir }
        return [Float](repeating: 0, count: Int(whole)) + ir
    }
}

/// A libmysofa error code.
struct SOFACallError: Error {
    var code: Int32
}
