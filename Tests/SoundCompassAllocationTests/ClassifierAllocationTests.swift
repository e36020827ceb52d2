import CMallocCounter
import Foundation
import SoundCompassClassifier
import SoundCompassEngine
import SoundCompassIO
import TestSignals
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

private let modelDirectory = YAMNetWeights.defaultDirectory(environment: environmentVariable)

/// With `--classify` the per-frame path still allocates nothing: the sound classifier
/// (resampling, spectra, per-source masks, YAMNet every 0.48 s and labelling every record)
/// counted together with the analyzer, block by block, after a warm-up.
@Suite(
    "Allocations of the per-frame path with the sound classifier",
    .enabled(if: availableOrOnCI(malloc_counter_available() == 1), "needs glibc's allocator"),
    .enabled(if: availableOrOnCI(FileManager.default.fileExists(atPath: modelDirectory + "/" + YAMNetWeights.fileName)),
             "the YAMNet model is not fetched (run scripts/fetch-model); runs on CI"))
struct ClassifierAllocationTests {
    /// Two sources (masked patches and the mixture's), or a lone talker (its unmasked patch and
    /// the patch's quieter copy: ``SourceLabeler/quieterCopies``).
    @Test("analyzer + SourceLabeler allocate nothing per frame (two sources; a lone talker, its patch classified at two levels)",
          arguments: [false, true])
    func perFrameWithClassifier(lone: Bool) throws {
        try AllocationTests.requireCounter()
        let rate = AllocationTests.sampleRate
        let talker = Source(.speech, azimuth: -40, seed: 3)
        let signal = Scene(
            sampleRate: rate, duration: 6, microphones: .spaced(spacing: 0.15),
            sources: lone ? [talker] : [talker, Source(.whiteNoise, azimuth: 35, seed: 4)],
            noise: SensorNoise(snrDecibels: 25, seed: 5)
        ).render()
        let configuration = AnalysisConfiguration(sampleRate: rate)
        let analyzer = try StreamingAnalyzer(configuration: configuration)
        let classifier = try SoundClassifier(directory: modelDirectory, alerts: "siren,alarm", maximumBatch: SourceLabeler.batchSize(for: configuration))
        let labeler = try SourceLabeler(classifier: classifier, configuration: configuration)
        let block = 1024
        var frames = 0, labelled = 0
        func feed(_ range: Range<Int>) {
            signal.left.withUnsafeBufferPointer { l in
                signal.right.withUnsafeBufferPointer { r in
                    var start = range.lowerBound
                    while start < range.upperBound {
                        let end = min(range.upperBound, start + block)
                        let lb = UnsafeBufferPointer(rebasing: l[start..<end]), rb = UnsafeBufferPointer(rebasing: r[start..<end])
                        labeler.append(left: lb, right: rb)
                        analyzer.process(left: lb, right: rb) { record in
                            labeler.label(record) { out in
                                frames += 1
                                if out.sources.contains(where: { $0.label != nil }) { labelled += 1 }
                            }
                        }
                        start = end
                    }
                }
            }
        }
        let warmUpEnd = Int(2 * rate)
        feed(0..<warmUpEnd)
        let patchesBefore = labeler.patchesClassified, unchangedBefore = labeler.patchesUnchanged
        let copiesBefore = labeler.quieterCopies
        frames = 0; labelled = 0
        let count = AllocationTests.allocations { feed(warmUpEnd..<signal.left.count) }
        let patches = labeler.patchesClassified - patchesBefore, unchanged = labeler.patchesUnchanged - unchangedBefore
        let copies = labeler.quieterCopies - copiesBefore
        print("classifier (\(lone ? "lone talker" : "two sources")): \(count.allocations) allocations over \(frames) frames, \(patches) patches classified (\(copies) also quieter) and \(unchanged) kept unchanged, \(labelled) records with a labelled source")
        if lone { #expect(copies >= 2, "the counted region classified \(copies) quieter copies") }
        // Patches built and compared (kept when their sound has not changed), and forward passes.
        // (A lone labelled track's patch is built every other round: about 4 in the 4 s.)
        #expect(patches + unchanged >= (lone ? 3 : 8) && patches >= (lone ? 2 : 3), "the counted region built \(patches + unchanged) patches and classified \(patches)")
        #expect(labelled > frames / 2)
        #expect(count.allocations == 0, "\(count.allocations) heap allocations in \(frames) frames")
        if AllocationTests.optimized {
            #expect(count.swiftRuntimeInternal == 0, "\(count.swiftRuntimeInternal) coroutine frames in an optimised build")
        }
    }
}
