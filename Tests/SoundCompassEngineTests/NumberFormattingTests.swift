import Foundation
import Testing
import SoundCompassEngine
import TestSignals

/// The record writers' number formatting against an independent one built from Swift's own
/// integer description.
@Suite struct NumberFormattingTests {
    /// `value` rounded to `decimals` places as the writers define it: the magnitude times
    /// 10^decimals rounded half away from zero, its digits from `String(UInt64)`, the point
    /// put in, a minus sign unless it rounds to 0.
    static func reference(_ value: Double, decimals: Int) -> String {
        let units = UInt64((abs(value) * pow(10, Double(decimals))).rounded())
        var digits = String(units)
        if digits.count <= decimals { digits = String(repeating: "0", count: decimals + 1 - digits.count) + digits }
        let body = decimals == 0 ? digits : digits.dropLast(decimals) + "." + digits.suffix(decimals)
        return (value < 0 && units != 0 ? "-" : "") + body
    }

    static func formatted(_ value: Double, decimals: Int) -> String {
        var bytes: [UInt8] = []
        NumberFormatting.appendFixed(value, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("fixed-point numbers: 0–7 places, 100,000 seeded values from 1e-9 to 1e8, and the edges")
    func fixedPoint() {
        var random = SeededRandom(seed: 17)
        var mismatches: [String] = []
        for i in 0..<100_000 {
            let magnitude = pow(10, Double.random(in: -9...8, using: &random))
            let value = (i % 2 == 0 ? 1 : -1) * magnitude
            let decimals = i % 8
            let got = Self.formatted(value, decimals: decimals), want = Self.reference(value, decimals: decimals)
            if got != want && mismatches.count < 5 { mismatches.append("\(value) with \(decimals): \(got), not \(want)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(Self.formatted(0, decimals: 2) == "0.00")
        #expect(Self.formatted(-0.004, decimals: 2) == "0.00")
        #expect(Self.formatted(-0.005, decimals: 2) == "-0.01")
        #expect(Self.formatted(0.05, decimals: 2) == "0.05")
        #expect(Self.formatted(9.9999, decimals: 3) == "10.000")
        #expect(Self.formatted(-12.345678, decimals: 7) == "-12.3456780")
        #expect(Self.formatted(123, decimals: 0) == "123")
        #expect(Self.formatted(8.9e15, decimals: 0) == "8900000000000000")
        #expect(Self.formatted(.nan, decimals: 2) == "nan")
        #expect(Self.formatted(-.infinity, decimals: 2) == "-inf")
    }

    @Test("integers: 0, every power of ten and its neighbours, UInt64.max")
    func integers() {
        var values: [UInt64] = [0, 1, 9, UInt64.max]
        var power: UInt64 = 10
        for _ in 1...19 {
            values += [power - 1, power, power + 1]
            if power > UInt64.max / 10 { break }
            power *= 10
        }
        for value in values {
            var bytes: [UInt8] = []
            NumberFormatting.appendInteger(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
        }
    }

    /// Issue 30 item 1: a profile asked for up to 12 decimals of a tiny positive value and the
    /// formatter, which had 7, trapped. Every finite value is written with 0…15 decimals.
    @Test("fixed-point numbers: 8–15 places, and any finite value, without a trap")
    func manyDecimalsAndExtremes() {
        #expect(Self.formatted(1e-9, decimals: 12) == "0.000000001000")
        #expect(Self.formatted(1e-9, decimals: 15) == "0.000000001000000")
        #expect(Self.formatted(-2.5e-14, decimals: 15) == "-0.000000000000025")
        for value in [Double.leastNonzeroMagnitude, -Double.leastNormalMagnitude, 1e-300, 5e299, -1e300, Double.greatestFiniteMagnitude] {
            for decimals in 0...NumberFormatting.maximumDecimals {
                let text = Self.formatted(value, decimals: decimals)
                let back = Double(text)
                #expect(back != nil && back!.isFinite, "\(value) with \(decimals): \(text)")
            }
        }
    }
}
