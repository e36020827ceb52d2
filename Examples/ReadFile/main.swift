import SoundCompass

// Analyse a sound file block by block in constant memory; print time, bearing, confidence.
let path = CommandLine.arguments.dropFirst().first ?? "talk.wav"
let reader = try SoundFileReader(path: path)
let analyzer = try StreamingAnalyzer(configuration: AnalysisConfiguration(sampleRate: reader.sampleRate))
try analyzer.analyze(reader) { record in
    print(record.time, record.azimuth, record.confidence)
}
