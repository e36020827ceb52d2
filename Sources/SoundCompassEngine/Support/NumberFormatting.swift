#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Fast, allocation-free fixed-point formatting of numbers into a byte buffer, for the
/// record writers (which run once per frame).
package enum NumberFormatting {
    /// 10⁰…10¹⁵, all exact in a `Double`.
    private static let powers: [Double] = (0...15).map { (0..<$0).reduce(1.0) { x, _ in x * 10 } }

    /// The most decimals ``appendFixed(_:decimals:to:)`` writes.
    package static let maximumDecimals = 15

    /// Appends `value` rounded to `decimals` places, e.g. `-12.35`. Any finite value is written:
    /// one whose scaled digits pass 9·10¹⁵ (`1e300`, or `100` with 15 decimals) in the shortest
    /// exact form, `1e+300`. A non-finite value is written as what it is, `nan`, `inf` or
    /// `-inf`, never as a number: the record writers check first and write `null`, an empty CSV
    /// cell or a dash instead (Docs/OutputFormat.md).
    /// - Parameter decimals: 0…``maximumDecimals``; more or fewer are a programmer error.
    package static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        precondition(decimals >= 0 && decimals <= maximumDecimals, "appendFixed: \(decimals) decimals")
        guard value.isFinite else {
            if value.isNaN {
                out.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "a"), UInt8(ascii: "n")])
            } else {
                if value < 0 { out.append(UInt8(ascii: "-")) }
                out.append(contentsOf: [UInt8(ascii: "i"), UInt8(ascii: "n"), UInt8(ascii: "f")])
            }
            return
        }
        let scale = powers[decimals]
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else {
            out.append(contentsOf: Array(String(value).utf8))
            return
        }
        var units = UInt64(scaled)
        if value < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
        let divisor = UInt64(scale)
        let integer = units / divisor
        units %= divisor
        appendInteger(integer, to: &out)
        if decimals > 0 {
            out.append(UInt8(ascii: "."))
            var digitDivisor = divisor / 10
            while digitDivisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(units / digitDivisor))
                units %= digitDivisor
                digitDivisor /= 10
            }
        }
    }

    /// Appends a non-negative integer in decimal.
    package static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        if value == 0 { out.append(UInt8(ascii: "0")); return }
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Appends `text` as a JSON string literal with quotes and escapes.
    package static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// `value` with `places` (0…15) decimals, for messages and profiles: `-12.35`.
package func formatFixed(_ value: Double, _ places: Int) -> String {
    var bytes: [UInt8] = []
    NumberFormatting.appendFixed(value, decimals: places, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// An angle in degrees for messages: whole degrees with a sign, "+20", "−5", "0".
package func formatDegrees(_ value: Double) -> String {
    guard value.isFinite else { return formatFixed(value, 0) }
    let r = Int(value.rounded())
    return r > 0 ? "+\(r)" : r < 0 ? "−\(-r)" : "0"
}
