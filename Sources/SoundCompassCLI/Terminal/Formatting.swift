import Foundation

// Text for stderr tables and the summary JSON. Records and profiles use the library's
// formatters; `formatFixedCLI` keeps printf's rounding (exact ties go to even) because the
// summary JSON has always been written with it, and the library's `formatFixed` rounds ties
// away from zero: 0.0625 s is "0.062" here and "0.063" there.

/// `value` with exactly `places` decimals: "0.1200", "-3.0".
func formatFixedCLI(_ value: Double, _ places: Int) -> String {
    String(format: "%.\(places)f", value == 0 ? 0 : value)
}

/// `value` to `digits` significant digits: "0.00012", "0.35", "12".
func formatSignificant(_ value: Double, _ digits: Int) -> String {
    guard value != 0, value.isFinite else { return "0" }
    let places = max(0, digits - 1 - Int(log10(abs(value)).rounded(.down)))
    return String(format: "%.\(places)f", value)
}

/// `value` in degrees with a sign: "+12.5°", "−40.0°", "0.0°".
func signedDegrees(_ value: Double, _ places: Int) -> String {
    let text = formatFixedCLI(abs(value), places)
    if Double(text) == 0 { return text + "°" }
    return (value > 0 ? "+" : "−") + text + "°"
}

