/// Samples in `seconds` at `sampleRate` Hz, rounded, clamped to `0…Int.max / 2` before the
/// conversion (so that no time, however large, traps); `nil` for a time that is not a number.
/// A clamped count is centuries of audio, so it reads as "no limit" to every caller.
func sampleCount(seconds: Double, sampleRate: Double) -> Int? {
    let samples = (seconds * sampleRate).rounded()
    guard !samples.isNaN else { return nil }
    let ceiling = Double(Int.max / 2)
    return samples >= ceiling ? Int.max / 2 : Int(max(0, samples))
}
