// Fuzz target `profile`: calibration profile JSON, as `--profile FILE` reads it. A profile that
// loads must give a usable array model and write JSON that loads back to the same profile.
import FuzzSupport
import SoundCompass

func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    guard let profile = try? ArrayProfile.parse(text, path: "fuzz.json") else { return 0 }
    _ = profile.model
    let again = try? ArrayProfile.parse(profile.json, path: "fuzz.json")
    precondition(again != nil, "a loaded profile writes JSON that does not load")
    return 0
}

fuzzMain(testOneInput)
