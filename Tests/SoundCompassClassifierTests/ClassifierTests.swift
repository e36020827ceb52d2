import Foundation
@testable import SoundCompassClassifier
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing

/// The model directory, when the model is fetched (scripts/fetch-model).
let modelDirectory = YAMNetWeights.defaultDirectory(environment: environmentVariable)
let modelAvailable = FileManager.default.fileExists(atPath: modelDirectory + "/" + YAMNetWeights.fileName)
/// Loaded once: reading 15 MB per test would dominate.
nonisolated(unsafe) let sharedClassifier: SoundClassifier? = try? SoundClassifier(directory: modelDirectory)
let classifierLock = NSLock()

/// The classifier, or a failure that says how to fetch the model (the tests that need it run
/// when it is there, and always on CI, where a missing model fails).
func requireClassifier() throws -> SoundClassifier {
    try #require(
        sharedClassifier,
        "no YAMNet model in \(modelDirectory): run scripts/fetch-model (Docs/Classification.md)")
}

/// The fixtures' float32 files (make_fixtures.py).
func fixture(_ name: String) throws -> [Float] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    let data = try Data(contentsOf: url)
    return data.withUnsafeBytes { raw in
        (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
    }
}

let modelMissingComment: Comment = "the YAMNet model is not fetched (run scripts/fetch-model); these tests run on CI"

@Suite("Classifier fidelity: the Swift port against ONNX Runtime", .serialized, .enabled(if: availableOrOnCI(modelAvailable), modelMissingComment))
struct FidelityTests {
    @Test("logits within 1e-3 of ONNX Runtime on the committed patches (the float arithmetic)")
    func logitsMatchReference() throws {
        let shared = try requireClassifier()
        classifierLock.lock(); defer { classifierLock.unlock() }
        let classifier = try SoundClassifier(directory: modelDirectory, arithmetic: .float32)
        #expect(classifier.network.arithmetic == .float32 && shared.network.arithmetic == YAMNet.fastestArithmetic)
        let patches = try fixture("patches.f32"), reference = try fixture("logits.f32")
        let patchSize = YAMNet.patchFrames * YAMNet.melBands
        #expect(patches.count == 5 * patchSize && reference.count == 5 * YAMNet.classCount)
        var logits = [Float](repeating: 0, count: YAMNet.classCount)
        var worst: Float = 0
        for p in 0..<5 {
            patches.withUnsafeBufferPointer { classifier.network.logits(patch: $0.baseAddress! + p * patchSize, into: &logits) }
            for c in 0..<YAMNet.classCount { worst = max(worst, abs(logits[c] - reference[p * YAMNet.classCount + c])) }
        }
        print("fidelity: largest |logit − ONNX Runtime| over 5 patches × 521 classes = \(worst)")
        #expect(worst <= 1e-3)
    }

    @Test("every instruction set's kernels (AVX-512, AVX2, portable), one patch at a time and all five in one batch, within 1e-3 of ONNX Runtime")
    func everyInstructionSetMatchesReference() throws {
        let classifier = try requireClassifier()
        classifierLock.lock(); defer { classifierLock.unlock() }
        let patches = try fixture("patches.f32"), reference = try fixture("logits.f32")
        let patchSize = YAMNet.patchFrames * YAMNet.melBands
        let network = YAMNet(weights: classifier.network.weights, maximumBatch: 5)
        let best = YAMNet.instructionSet
        // Process-wide: another suite classifying meanwhile runs on this version too, which
        // changes its logits only in rounding (1e-5), as the versions here show.
        defer { YAMNet.useInstructionSet(best) }
        let sets = YAMNet.supportedInstructionSets
        #expect(sets.first == best && sets.last == "portable")
        for isa in sets {
            #expect(YAMNet.useInstructionSet(isa))
            var single = [Float](repeating: 0, count: YAMNet.classCount)
            var batched = [Float](repeating: 0, count: 5 * YAMNet.classCount)
            var worst: Float = 0
            for p in 0..<5 {
                patches.withUnsafeBufferPointer { network.logits(patch: $0.baseAddress! + p * patchSize, into: &single) }
                for c in 0..<YAMNet.classCount { worst = max(worst, abs(single[c] - reference[p * YAMNet.classCount + c])) }
            }
            patches.withUnsafeBufferPointer { network.logits(patches: $0.baseAddress!, count: 5, into: &batched) }
            var worstBatched: Float = 0
            for i in batched.indices { worstBatched = max(worstBatched, abs(batched[i] - reference[i])) }
            print("fidelity (\(isa)): largest |logit − ONNX Runtime| = \(worst) one at a time, \(worstBatched) in a batch of 5")
            #expect(worst <= 1e-3)
            #expect(worstBatched <= 1e-3)
        }
        #expect(!YAMNet.useInstructionSet("sse9"))
    }

    @Test("the front end gives the reference's log-mel patches (NumPy, float64) within 2e-3")
    func frontEndMatchesReference() throws {
        let waves = try fixture("waveforms.f32"), patches = try fixture("patches.f32")
        let frontEnd = LogMelFrontEnd()
        var worst: Float = 0
        for p in 0..<5 {
            let frames = frontEnd.logMelFrames(Array(waves[(p * 15600)..<((p + 1) * 15600)]))
            #expect(frames.count == YAMNet.patchFrames * YAMNet.melBands)
            for i in frames.indices { worst = max(worst, abs(frames[i] - patches[p * frames.count + i])) }
        }
        print("front end: largest |log-mel − reference| = \(worst)")
        #expect(worst <= 2e-3)
    }

    @Test("a missing model is a one-line error naming the file and the fetch script")
    func missingModel() {
        #expect(throws: ClassifierError.modelMissing(path: "/nonexistent/yamnet.weights")) {
            _ = try SoundClassifier(directory: "/nonexistent")
        }
        let message = ClassifierError.modelMissing(path: "/x/yamnet.weights").description
        #expect(message.contains("scripts/fetch-model") && !message.contains("\n"))
    }

    @Test("an unknown --labels or --alert name is refused")
    func unknownLabel() throws {
        let classifier = try requireClassifier()
        #expect(throws: ClassifierError.unknownLabel("sirens")) {
            _ = try LabelSet(parsing: "speech,sirens", classes: classifier.classes)
        }
        let set = try LabelSet(parsing: "everyday", classes: classifier.classes)
        #expect(set.names.contains("siren") && set.names.contains("baby cry"))
    }

    @Test("#47 item 1: a --labels list that names nothing is refused, not a trap on the first patch", arguments: [" ", ",", "\"\"", " , , "])
    func emptyLabelList(text: String) throws {
        let classifier = try requireClassifier()
        #expect(throws: ClassifierError.noLabels(option: "--labels", text: text)) {
            _ = try LabelSet(parsing: text, classes: classifier.classes)
        }
        #expect(LabelSet.namesNothing(text))
        #expect(!LabelSet.namesNothing("speech") && !LabelSet.namesNothing(" , speech"))
    }

    /// The alert rule on hand-set pooled scores (``SoundClassifier/alertStartScore``): an alert
    /// starts on the best of all classes at 0.3 or more, or at 0.7 wherever it ranks; once raised
    /// it holds while among the three best at 0.15.
    @Test("an alert starts on the best class at 0.3 (or 0.7 anywhere) and holds among the three best at 0.15")
    func alertRule() throws {
        _ = try requireClassifier()
        let classifier = try SoundClassifier(directory: modelDirectory, labels: "all", alerts: "siren")
        let siren = try #require(classifier.classes.names.firstIndex(of: "Siren"))
        let speech = try #require(classifier.classes.names.firstIndex(of: "Speech"))
        let music = try #require(classifier.classes.names.firstIndex(of: "Music"))
        func alert(_ values: [Int: Float], alerting: Bool) -> Bool {
            var scores = [Float](repeating: 0.001, count: YAMNet.classCount)
            for (c, v) in values { scores[c] = v }
            var best = -1
            return scores.withUnsafeBufferPointer {
                classifier.label(scores: $0.baseAddress!, favouring: -1, by: 1, alerting: alerting, best: &best).alert
            }
        }
        // Starts: the best at 0.3; not the best at 0.5 (speech above it); 0.7 behind speech.
        #expect(alert([siren: 0.3, speech: 0.2], alerting: false))
        #expect(!alert([siren: 0.29, speech: 0.2], alerting: false))
        #expect(!alert([siren: 0.5, speech: 0.6], alerting: false))
        #expect(alert([siren: 0.7, speech: 0.9], alerting: false))
        // Holds: third at 0.15 once raised, not fourth, not under 0.15.
        #expect(alert([siren: 0.15, speech: 0.6, music: 0.4], alerting: true))
        #expect(!alert([siren: 0.15, speech: 0.6, music: 0.4], alerting: false))
        #expect(!alert([siren: 0.14, speech: 0.6, music: 0.4], alerting: true))
        let fourth = try #require(classifier.classes.names.firstIndex(of: "Vehicle"))
        #expect(!alert([siren: 0.2, speech: 0.6, music: 0.4, fourth: 0.3], alerting: true))
    }
}

/// Share of `patches` whose top classes (the first `within`) include one of `names`.
func share(_ patches: [[(name: String, score: Float)]], of names: Set<String>, within: Int) -> Double {
    guard !patches.isEmpty else { return 0 }
    return Double(patches.filter { $0.prefix(within).contains { names.contains($0.name) } }.count) / Double(patches.count)
}

@Suite("Labels of known sounds", .serialized, .enabled(if: availableOrOnCI(modelAvailable), modelMissingComment))
struct KnownSoundTests {
    static let rate = 48000.0

    @Test("a two-tone siren: a siren or emergency-vehicle class in the top three")
    func siren() throws {
        let classifier = try requireClassifier()
        classifierLock.lock(); defer { classifierLock.unlock() }
        let x = Generators.twoToneSiren(sampleRate: Self.rate, count: Int(5 * Self.rate)).map { Float($0) }
        let patches = try classifier.classify(samples: x, sampleRate: Self.rate)
        let sirens: Set = ["Siren", "Civil defense siren", "Police car (siren)", "Ambulance (siren)",
                           "Fire engine, fire truck (siren)", "Emergency vehicle"]
        let s = share(patches, of: sirens, within: 3)
        print("siren: \(patches.count) patches, siren class in the top three of \(Int(s * 100)) %"); for p in patches { print("  ", p.map { "\($0.name) \(($0.score * 100).rounded() / 100)" }) }
        #expect(s >= 0.8)
    }

    @Test("3 kHz smoke-alarm beeps: smoke detector or alarm in the top three")
    func smokeAlarm() throws {
        let classifier = try requireClassifier()
        classifierLock.lock(); defer { classifierLock.unlock() }
        let x = Generators.beeps(sampleRate: Self.rate, count: Int(5 * Self.rate)).map { Float($0) }
        let patches = try classifier.classify(samples: x, sampleRate: Self.rate)
        let alarms: Set = ["Smoke detector, smoke alarm", "Alarm", "Fire alarm"]
        let s = share(patches, of: alarms, within: 3)
        print("beeps: \(patches.count) patches, alarm class in the top three of \(Int(s * 100)) %; first: \(patches[0])")
        #expect(s >= 0.8)
    }

    @Test("silence: Silence first")
    func silence() throws {
        let classifier = try requireClassifier()
        classifierLock.lock(); defer { classifierLock.unlock() }
        let patches = try classifier.classify(samples: [Float](repeating: 0, count: Int(3 * Self.rate)), sampleRate: Self.rate)
        #expect(!patches.isEmpty && patches.allSatisfy { $0.first?.name == "Silence" })
    }

    static var espeakAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng") }

    @Test("espeak-ng speech: Speech first", .enabled(if: availableOrOnCI(espeakAvailable), "espeak-ng is not installed (apt-get install espeak-ng); runs on CI"))
    func speech() throws {
        let classifier = try requireClassifier()
        classifierLock.lock(); defer { classifierLock.unlock() }
        let speech = try espeakSpeech()
        let patches = try classifier.classify(samples: speech.samples, sampleRate: speech.rate)
        let s = share(patches, of: ["Speech"], within: 1)
        print("speech: \(patches.count) patches, Speech first in \(Int(s * 100)) %")
        #expect(s >= 0.8)
    }
}

/// espeak-ng's speech of a few sentences (mono 16-bit WAV on its standard output, 22050 Hz: the
/// 44-byte header skipped, the rate read from it).
func espeakSpeech(voice: String = "en-us", text: String = "The quick brown fox jumps over the lazy dog. Please move to the left side of the road while the ambulance passes. We will meet again at the station tomorrow morning.") throws -> (samples: [Float], rate: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
    process.arguments = ["-v", voice, "-s", "150", "--stdout", text]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let bytes = [UInt8](data)
    try #require(bytes.count > 44 && bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], "espeak-ng wrote no WAV")
    let rate = Double(UInt32(bytes[24]) | UInt32(bytes[25]) << 8 | UInt32(bytes[26]) << 16 | UInt32(bytes[27]) << 24)
    let samples = stride(from: 44, to: bytes.count - 1, by: 2).map { Float(Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)) / 32768 }
    return (samples, rate)
}
