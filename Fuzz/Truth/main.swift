// Fuzz target `truth`: truth CSV (time, azimuth), as `--truth FILE` reads it. A track that
// loads must give finite azimuths wherever it answers (rows may say up to ±360°, as read).
import FuzzSupport
import SoundCompass

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    guard let track = try? TruthTrack(text: text, name: "fuzz.csv") else { return 0 }
    let range = track.azimuthRange
    precondition(range.lowerBound.isFinite && range.upperBound.isFinite, "truth range is not finite")
    let first = track.times.first ?? 0, last = track.times.last ?? 0
    for t in [first - 1, first, (first + last) / 2, last, last + 1, -1e300, 1e300] {
        if let azimuth = track.azimuth(at: t) {
            precondition(azimuth.isFinite && abs(azimuth) <= 360, "truth azimuth \(azimuth) at \(t)")
        }
    }
    return 0
}

fuzzMain(testOneInput)
