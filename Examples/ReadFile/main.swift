import Foundation
import SoundCompass

// Analyse a sound file block by block in constant memory; print time, bearing, confidence.
// A file that cannot be read gives one line on stderr and exit status 1.
let path = CommandLine.arguments.dropFirst().first ?? "talk.wav"
do {
    let reader = try SoundFileReader(path: path)
    let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: reader.sampleRate))
    try analyzer.analyze(reader) { record in
        print(record.time, record.azimuth, record.confidence)
    }
} catch {
    FileHandle.standardError.write(Data("ReadFileExample: error: \(error)\n".utf8))
    exit(1)
}
