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
        // libmysofa resamples every impulse response inside `mysofa_open*`, before any check of
        // ours could run: a file whose Data.SamplingRate is 1 Hz (or 1e9) would be resampled to
        // gigabytes (or for minutes). So the file is first loaded as it is and checked.
        try precheck(path: path, sampleRate: sampleRate)
        var filterLength: Int32 = 0
        var error: Int32 = 0
        guard let easy = mysofa_open_no_norm(path, Float(sampleRate), &filterLength, &error) else {
            throw .library(code: error == 0 ? -1 : error)
        }
        defer { mysofa_close(easy) }
        guard error == 0, let hrtf = easy.pointee.hrtf else { throw .library(code: error == 0 ? -1 : error) }
        let count = Int(hrtf.pointee.M), coordinates = Int(hrtf.pointee.C)
        let positions = hrtf.pointee.SourcePosition
        let length = Int(filterLength)
        guard count > 0, coordinates == 3, length > 0, length <= 1 << 20,
              Int(positions.elements) >= count * 3, let values = positions.values
        else { throw .library(code: 10005) }
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

    /// Lowest and highest `Data.SamplingRate` read, Hz: measured heads are recorded at
    /// 44.1–96 kHz; outside 8–384 kHz a rate is a damaged or hostile field.
    static let sampleRateRange = 8000.0...384_000.0
    /// Most samples (measurements × receivers × samples per response, at the rate asked for)
    /// opened: 32 M floats, 128 MB (the MIT KEMAR file at 48 kHz holds 0.8 M; a dense
    /// 8,802-direction set at 96 kHz with 512-sample responses about 18 M).
    static let maximumSamples = 32 << 20

    /// Loads `path` without resampling (`mysofa_load`), checks it as `mysofa_open` would
    /// (`mysofa_check`), then checks what the resampling would make of it: the sampling rate
    /// within ``sampleRateRange`` and the resampled responses within ``maximumSamples``.
    /// The corresponding C functions are `mysofa_load`, `mysofa_check`, `mysofa_getAttribute` and
    /// `mysofa_free`.
    private static func precheck(path: String, sampleRate: Double) throws(SOFACallError) {
        var error: Int32 = 0
        guard let hrtf = mysofa_load(path, &error) else { throw .library(code: error == 0 ? -1 : error) }
        defer { mysofa_free(hrtf) }
        guard error == 0 else { throw .library(code: error) }
        let checked = mysofa_check(hrtf)
        guard checked == 0 else {
            // Name the convention when that is what is wrong.
            let conventions = attribute(hrtf, "Conventions"), kind = attribute(hrtf, "SOFAConventions")
            if conventions != "SOFA" {
                throw .field("its Conventions attribute is \(conventions.map { "\"\($0)\"" } ?? "missing"), not \"SOFA\"")
            }
            if let kind, kind != "SimpleFreeFieldHRIR" {
                throw .field("its SOFAConventions is \"\(kind)\"; only SimpleFreeFieldHRIR is read")
            }
            // Name a variable that is missing or does not fit the dimensions.
            let h = hrtf.pointee
            let expected = UInt64(h.M) * UInt64(h.R) * UInt64(h.N)
            if h.DataIR.elements == 0 { throw .field("Data.IR is missing") }
            if UInt64(h.DataIR.elements) != expected {
                throw .field("Data.IR holds \(h.DataIR.elements) values, not M × R × N = \(h.M) × \(h.R) × \(h.N)")
            }
            if h.SourcePosition.elements == 0 { throw .field("SourcePosition is missing") }
            throw .library(code: checked)
        }
        let rates = hrtf.pointee.DataSamplingRate
        guard rates.elements >= 1, let rateValues = rates.values else { throw .field("Data.SamplingRate is missing") }
        let rate = Double(rateValues[0])
        guard rate.isFinite, sampleRateRange.contains(rate) else {
            throw .field("Data.SamplingRate is \(rate.isFinite ? formatTrimmed(rate, 3) : "\(rate)") Hz; a measured head is read at 8–384 kHz")
        }
        let measurements = Int(hrtf.pointee.M), receivers = Int(hrtf.pointee.R), length = Int(hrtf.pointee.N)
        guard measurements > 0, receivers > 0, length > 0 else {
            throw .field("its dimensions M = \(measurements), R = \(receivers), N = \(length) hold no impulse response")
        }
        // The responses' length at the rate asked for, as libmysofa's resampling makes it.
        let resampled = (Double(length) * sampleRate / rate).rounded(.up)
        let total = Double(measurements) * Double(receivers) * max(resampled, Double(length))
        guard total <= Double(maximumSamples) else {
            throw .field(
                "\(measurements) measurements × \(receivers) receivers × \(Int(resampled)) samples at \(formatTrimmed(sampleRate, 0)) Hz "
                    + "(Data.IR of \(length) samples at \(formatTrimmed(rate, 0)) Hz) is more than the \(maximumSamples >> 20) M samples read")
        }
    }

    /// A global attribute of the file (nil when it has none).
    private static func attribute(_ hrtf: UnsafeMutablePointer<MYSOFA_HRTF>, _ name: String) -> String? {
        var name = Array(name.utf8CString)
        return name.withUnsafeMutableBufferPointer { n in
            mysofa_getAttribute(hrtf.pointee.attributes, n.baseAddress).map { String(cString: $0) }
        }
    }
}

/// Why ``SOFACalls`` could not read a file.
enum SOFACallError: Error {
    /// libmysofa's error code (its own, or an `errno` value from its HDF5 reader).
    case library(code: Int32)
    /// A field of the file is out of range or missing, in words.
    case field(String)
}
