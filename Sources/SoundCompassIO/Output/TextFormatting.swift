import SoundCompassEngine

// Numbers in messages and settings lines. Records use `NumberFormatting` (allocation-free);
// fixed decimals use the engine's `formatFixed`; these drop the trailing zeros.

/// `value` rounded to `places` (0…7) decimals, trailing zeros dropped: "12", "0.5", "-3.25".
package func formatTrimmed(_ value: Double, _ places: Int) -> String {
    var text = formatFixed(value, places)
    guard text.contains(".") else { return text }
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
}

/// Seconds with at most three decimals, for messages: "2", "0.125".
package func formatSeconds(_ seconds: Double) -> String { formatTrimmed(seconds, 3) }

/// A sample rate for messages: "48000 Hz", "44100.5 Hz".
package func formatHertz(_ rate: Double) -> String { "\(formatTrimmed(rate, 3)) Hz" }
