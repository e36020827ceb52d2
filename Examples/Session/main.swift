import Foundation
import SoundCompass

// What `soundcompass analyze FILE --format jsonl` does, as a library call: the session opens
// the file, reads a profile or an IMU log when the settings name one, builds the analyzer and
// writes one JSON line per frame, flushed, to standard output. Errors: one line, exit status 1.
let path = CommandLine.arguments.dropFirst().first ?? "talk.wav"
do {
    let session = try AnalysisSession(input: .file(path: path), settings: AnalysisSettings())
    try session.run(writer: session.makeRecordWriter(format: .jsonl, sink: .standardOutput()))
} catch {
    FileHandle.standardError.write(Data("SessionExample: error: \(error)\n".utf8))
    exit(1)
}
