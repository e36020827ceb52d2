import SoundCompassEngine
import SoundCompassIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names what each tracked source is: the stream resampled to 16 kHz, YAMNet's spectra of both
/// channels kept for the last 0.96 s, and every 0.48 s each heard source's own patch, made of
/// the time-frequency bins whose inter-channel phase points at it, classified.
///
/// **The mask.** For a far source at bearing θ the right channel lags the left by
/// `τ(θ)` (``ArrayModel/delay(lateral:)``), so bin k's cross-spectrum `L·R*` has phase `ωₖ·τ(θ)`.
/// Each bin of each 10 ms frame goes to the heard source whose expected phase is nearest its
/// measured one (the largest `cos(φₖ − ωₖτ)`); a source's patch is the mixture's magnitude in
/// its bins and ``rejectedBinGain`` (−30 dB) of it elsewhere, scaled so that its loud frames
/// sit at ``patchLevel``, then mel and log as YAMNet's front end. One heard source gets every
/// bin (scaled the same way); with none heard the whole mixture is classified as it is (for the
/// record's own label; silence stays silence). A coincident pair has no delay to go by: each
/// source gets the (scaled) mixture. A label scoring under ``minimumLabelScore`` is withheld.
///
/// The record's ``AnalysisRecord/label`` is the loudest heard source's label, or the mixture's
/// when none is heard. A label is that of the latest patch (the 0.96 s ending at most 0.48 s
/// before the record).
///
/// Life cycle: `init` allocates everything; ``append(left:right:)`` and ``label(_:emit:)``
/// never allocate.
public final class SourceLabeler: RecordLabeler {
    /// The classifier.
    public let classifier: SoundClassifier
    /// The analysis's settings (sample rate, array).
    public let configuration: AnalysisConfiguration
    /// Patches classified so far (sources and mixture).
    public private(set) var patchesClassified = 0

    private static let bins = LogMelFrontEnd.binCount
    private static let frames = YAMNet.patchFrames
    private static let hop = YAMNet.patchFrames / 2

    /// The gain of a bin that points at another source, in a source's patch (−30 dB). A bin is
    /// attenuated rather than zeroed: zeroed bins leave holes at log(0.001) between a tone's
    /// harmonics, and YAMNet hears a harmonic sound with holes as a telephone or a doorbell
    /// (with the ideal binary mask at RT60 0.3 s the siren read as a siren in 19 % of its
    /// patches with holes and 43 % with this floor; Docs/Classification.md).
    public static let rejectedBinGain: Float = 0.03
    /// The level a source's patch is scaled to before it is classified: the 90th percentile of
    /// its frames' power `Σₖ|Xₖ|²` (the 257 bins of YAMNet's unnormalised 512-point FFT of a
    /// 400-sample Hann-windowed frame at 16 kHz), 10^4.5 (45 dB; white noise of RMS 0.91 has
    /// this power). YAMNet's scores depend on level (AudioSet's clips are loud), and a masked
    /// patch keeps only part of its source's energy: normalising makes a source's label
    /// independent of the recording's gain and of how much of its energy the mask kept.
    public static let patchLevel: Float = 31_622.8
    /// The largest gain (magnitude) ``patchLevel`` may apply: +30 dB.
    public static let maximumLevelGain: Float = 31.62
    /// A label whose best reported score is below this is withheld (`null`) unless it alerts:
    /// see ``reported(_:)``.
    public static let minimumLabelScore: Double = 0.1

    private let frontEnd = LogMelFrontEnd()
    private let resampler: Resampler
    private let clean: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>)
    /// 16 kHz samples waiting to fill a window.
    private let pending: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>)
    private let pendingCapacity: Int
    private var pendingCount = 0
    private let spectrumLeft: UnsafeMutablePointer<Float>, spectrumRight: UnsafeMutablePointer<Float>
    /// The last 96 frames: per bin the mixture's magnitude (RMS of the channels) and the unit
    /// cross-spectrum `L·R*/|L·R*|` (re, im), in a ring.
    private let magnitudes: UnsafeMutablePointer<Float>
    private let cross: UnsafeMutablePointer<Float>
    private var ringHead = 0, framesStored = 0, framesSincePatch = 0

    /// The sources of the latest record.
    private let capacity: Int
    private var sourceCount = 0
    private var sourceIDs: [Int], sourceLateral: [Double], sourceActive: [Bool]
    /// Per heard source: expected phase rotation per bin (cos, sin) and its patch.
    private let rotations: UnsafeMutablePointer<Float>
    private let patches: UnsafeMutablePointer<Float>
    private let winners: UnsafeMutablePointer<Int32>
    private let masked: UnsafeMutablePointer<Float>
    /// Per patch its frames' power, its gain; scratch for the percentile.
    private let framePower: UnsafeMutablePointer<Float>
    private let gains: UnsafeMutablePointer<Float>
    private let sortScratch: UnsafeMutablePointer<Float>
    private var heard: [Int]
    /// Labels by source id (slots reused as ids go away) and the mixture's.
    private var slotIDs: [Int], slotLabels: [SoundLabel?]
    private var mixtureLabel: SoundLabel?
    /// The sources array of the records handed on (swapped in and out so that it is never shared).
    private var sourcesBuffer: [SourceRecord]

    /// - Parameters:
    ///   - classifier: the model and the names to report.
    ///   - configuration: the analysis's settings (its sample rate, array and ``AnalysisConfiguration/maxSources``).
    /// - Throws: ``ClassifierError/resampler(_:)``.
    /// - Precondition: the classifier takes batches of ``AnalysisConfiguration/maxSources``
    ///   patches (``SoundClassifier/init(directory:labels:alerts:maximumBatch:)``).
    public init(classifier: SoundClassifier, configuration: AnalysisConfiguration) throws(ClassifierError) {
        precondition(
            classifier.network.maximumBatch >= max(1, configuration.maxSources),
            "the classifier must take a batch of every source's patch")
        self.classifier = classifier
        self.configuration = configuration
        resampler = try Resampler(inputRate: configuration.sampleRate, outputRate: LogMelFrontEnd.sampleRate)
        let chunk = Resampler.chunk
        clean = (.allocate(capacity: chunk), .allocate(capacity: chunk))
        clean.left.initialize(repeating: 0, count: chunk)
        clean.right.initialize(repeating: 0, count: chunk)
        pendingCapacity = LogMelFrontEnd.windowLength + resampler.outCapacity
        pending = (.allocate(capacity: pendingCapacity), .allocate(capacity: pendingCapacity))
        pending.left.initialize(repeating: 0, count: pendingCapacity)
        pending.right.initialize(repeating: 0, count: pendingCapacity)
        spectrumLeft = .allocate(capacity: 2 * Self.bins)
        spectrumRight = .allocate(capacity: 2 * Self.bins)
        spectrumLeft.initialize(repeating: 0, count: 2 * Self.bins)
        spectrumRight.initialize(repeating: 0, count: 2 * Self.bins)
        magnitudes = .allocate(capacity: Self.frames * Self.bins)
        magnitudes.initialize(repeating: 0, count: Self.frames * Self.bins)
        cross = .allocate(capacity: Self.frames * Self.bins * 2)
        cross.initialize(repeating: 0, count: Self.frames * Self.bins * 2)
        capacity = max(1, configuration.maxSources)
        sourceIDs = [Int](repeating: 0, count: capacity)
        sourceLateral = [Double](repeating: 0, count: capacity)
        sourceActive = [Bool](repeating: false, count: capacity)
        heard = []
        heard.reserveCapacity(capacity)
        rotations = .allocate(capacity: capacity * Self.bins * 2)
        rotations.initialize(repeating: 0, count: capacity * Self.bins * 2)
        patches = .allocate(capacity: capacity * Self.frames * YAMNet.melBands)
        patches.initialize(repeating: 0, count: capacity * Self.frames * YAMNet.melBands)
        winners = .allocate(capacity: Self.bins)
        winners.initialize(repeating: 0, count: Self.bins)
        masked = .allocate(capacity: Self.bins)
        masked.initialize(repeating: 0, count: Self.bins)
        framePower = .allocate(capacity: capacity * Self.frames)
        framePower.initialize(repeating: 0, count: capacity * Self.frames)
        gains = .allocate(capacity: capacity)
        gains.initialize(repeating: 1, count: capacity)
        sortScratch = .allocate(capacity: Self.frames)
        sortScratch.initialize(repeating: 0, count: Self.frames)
        slotIDs = [Int](repeating: -1, count: capacity + 4)
        slotLabels = [SoundLabel?](repeating: nil, count: capacity + 4)
        sourcesBuffer = []
        sourcesBuffer.reserveCapacity(capacity)
    }

    deinit {
        for p in [clean.left, clean.right, pending.left, pending.right, spectrumLeft, spectrumRight, magnitudes, cross, rotations, patches, masked, framePower, gains, sortScratch] {
            p.deallocate()
        }
        winners.deallocate()
    }

    // MARK: - Samples in

    public func append(left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>) {
        precondition(left.count == right.count, "channel blocks differ in length")
        var index = 0
        while index < left.count {
            let take = min(Resampler.chunk, left.count - index)
            for i in 0..<take {
                let l = left[index + i], r = right[index + i]
                clean.left[i] = l.isFinite ? max(-1e4, min(1e4, l)) : 0
                clean.right[i] = r.isFinite ? max(-1e4, min(1e4, r)) : 0
            }
            let produced = resampler.process(left: clean.left, right: clean.right, count: take)
            take16k(count: produced)
            index += take
        }
    }

    /// Appends the resampler's output to the pending samples and analyses every whole window.
    private func take16k(count: Int) {
        guard count > 0 else { return }
        let room = pendingCapacity - pendingCount
        let n = min(count, room)
        (pending.left + pendingCount).update(from: resampler.outLeft, count: n)
        (pending.right + pendingCount).update(from: resampler.outRight, count: n)
        pendingCount += n
        var start = 0
        while start + LogMelFrontEnd.windowLength <= pendingCount {
            analyzeFrame(left: pending.left + start, right: pending.right + start)
            start += LogMelFrontEnd.hopLength
        }
        if start > 0 {
            pendingCount -= start
            pending.left.update(from: pending.left + start, count: pendingCount)
            pending.right.update(from: pending.right + start, count: pendingCount)
        }
    }

    /// One 10 ms frame: both spectra into the ring; every 48 frames (once 96 are there) the patches.
    private func analyzeFrame(left: UnsafePointer<Float>, right: UnsafePointer<Float>) {
        frontEnd.spectrum(of: left, into: spectrumLeft)
        frontEnd.spectrum(of: right, into: spectrumRight)
        let mag = magnitudes + ringHead * Self.bins, g = cross + ringHead * Self.bins * 2
        for k in 0..<Self.bins {
            let lr = spectrumLeft[2 * k], li = spectrumLeft[2 * k + 1]
            let rr = spectrumRight[2 * k], ri = spectrumRight[2 * k + 1]
            mag[k] = ((lr * lr + li * li + rr * rr + ri * ri) / 2).squareRoot()
            // L·R* = (lr + i·li)(rr − i·ri)
            let re = lr * rr + li * ri, im = li * rr - lr * ri
            let norm = (re * re + im * im).squareRoot()
            g[2 * k] = norm > 0 ? re / norm : 0
            g[2 * k + 1] = norm > 0 ? im / norm : 0
        }
        ringHead = (ringHead + 1) % Self.frames
        framesStored = min(framesStored + 1, Self.frames)
        framesSincePatch += 1
        if framesStored == Self.frames && framesSincePatch >= Self.hop {
            framesSincePatch = 0
            classifyPatches()
        }
    }

    // MARK: - Patches

    private func classifyPatches() {
        heard.removeAll(keepingCapacity: true)
        for i in 0..<sourceCount where sourceActive[i] { heard.append(i) }
        let count = heard.count
        if count == 0 {
            buildPatches(sources: 0, normalised: false)
            mixtureLabel = Self.reported(classifier.label(patch: patches))
            patchesClassified += 1
            return
        }
        // Expected rotation e^{iωτ} per bin for each heard source.
        let model = configuration.array
        for (j, i) in heard.enumerated() {
            let tau = model.delay(lateral: sourceLateral[i]) + model.delayOffsetSeconds
            let rot = rotations + j * Self.bins * 2
            for k in 0..<Self.bins {
                let omega = 2 * Double.pi * LogMelFrontEnd.sampleRate * Double(k) / Double(LogMelFrontEnd.fftSize)
                rot[2 * k] = Float(cos(omega * tau))
                rot[2 * k + 1] = Float(sin(omega * tau))
            }
        }
        // A coincident pair: one mixture patch names every source.
        let coincident = model.kind == .coincident
        buildPatches(sources: coincident ? 0 : count, normalised: true)
        let batch = coincident ? 1 : count
        classifier.classify(patches: patches, count: batch)
        patchesClassified += batch
        for (j, i) in heard.enumerated() {
            store(Self.reported(classifier.label(ofPatch: coincident ? 0 : j)), id: sourceIDs[i])
        }
    }

    /// The patches of the last 96 frames: with `sources` = 0 the mixture's (in the first
    /// patch), else one per heard source from the nearest-phase mask. With `normalised`, each
    /// patch's magnitudes are scaled so that its loud frames sit at ``patchLevel`` (see there).
    private func buildPatches(sources: Int, normalised: Bool) {
        let melBands = YAMNet.melBands
        let patchCount = max(1, sources)
        // Pass 1: each patch's per-frame power (with the mask), for its level.
        if normalised {
            for f in 0..<Self.frames {
                let slot = (ringHead + f) % Self.frames
                let mag = magnitudes + slot * Self.bins
                if sources <= 1 {
                    var p: Float = 0
                    for k in 0..<Self.bins { p += mag[k] * mag[k] }
                    framePower[f] = p
                    continue
                }
                assignBins(slot: slot, sources: sources)
                for j in 0..<sources {
                    var p: Float = 0
                    for k in 0..<Self.bins {
                        let m = winners[k] == Int32(j) ? mag[k] : Self.rejectedBinGain * mag[k]
                        p += m * m
                    }
                    framePower[j * Self.frames + f] = p
                }
            }
            for j in 0..<patchCount { gains[j] = Self.levelGain(framePowers: framePower + j * Self.frames, scratch: sortScratch) }
        } else {
            for j in 0..<patchCount { gains[j] = 1 }
        }
        // Pass 2: masked, scaled magnitudes into mel and log.
        for f in 0..<Self.frames {
            let slot = (ringHead + f) % Self.frames  // oldest first
            let mag = magnitudes + slot * Self.bins
            if sources <= 1 {
                let g = gains[0]
                for k in 0..<Self.bins { masked[k] = g * mag[k] }
                frontEnd.logMel(magnitudes: masked, into: patches + f * melBands)
                continue
            }
            assignBins(slot: slot, sources: sources)
            for j in 0..<sources {
                let g = gains[j], rejected = Self.rejectedBinGain * gains[j]
                for k in 0..<Self.bins { masked[k] = (winners[k] == Int32(j) ? g : rejected) * mag[k] }
                frontEnd.logMel(magnitudes: masked, into: patches + j * Self.frames * melBands + f * melBands)
            }
        }
    }

    /// Each bin of ring frame `slot` to the heard source whose expected phase fits best (into ``winners``).
    private func assignBins(slot: Int, sources: Int) {
        let g = cross + slot * Self.bins * 2
        for k in 0..<Self.bins {
            var best: Int32 = 0, bestFit: Float = -2
            for j in 0..<sources {
                let rot = rotations + j * Self.bins * 2
                let fit = g[2 * k] * rot[2 * k] + g[2 * k + 1] * rot[2 * k + 1]
                if fit > bestFit { bestFit = fit; best = Int32(j) }
            }
            winners[k] = best
        }
    }

    /// The magnitude gain that brings a patch's level (the 90th percentile of its 96 frame
    /// powers) to ``patchLevel``, at most ``maximumLevelGain``; 1 for a patch with no power.
    static func levelGain(framePowers: UnsafePointer<Float>, scratch: UnsafeMutablePointer<Float>) -> Float {
        let n = frames
        scratch.update(from: framePowers, count: n)
        // Insertion sort of 96 values (no allocation).
        for i in 1..<n {
            let v = scratch[i]
            var j = i - 1
            while j >= 0 && scratch[j] > v { scratch[j + 1] = scratch[j]; j -= 1 }
            scratch[j + 1] = v
        }
        let level = scratch[((n - 1) * 9) / 10]
        guard level > 0, level.isFinite else { return 1 }
        return min(maximumLevelGain, (patchLevel / level).squareRoot())
    }

    /// `label`, or nil when its best score is below ``minimumLabelScore`` and it raises no
    /// alert. The floor lies in the gap measured on TestSignals' sounds (NumPy YAMNet, `--labels
    /// everyday`, patches every 0.48 s): a sound of the set scored 0.21 or more for its own
    /// group (beeps 0.21–0.94, the siren 0.24–0.86, speech 0.56–1.0, silence 1.0), a sound outside
    /// it 0.06 or less (pink noise of RMS 0.1: 0.001–0.010, white noise: 0.004–0.057).
    public static func reported(_ label: SoundLabel) -> SoundLabel? {
        label.score >= minimumLabelScore || label.alert ? label : nil
    }

    private func store(_ label: SoundLabel?, id: Int) {
        var slot = slotIDs.firstIndex(of: id)
        if slot == nil {
            // A slot whose source is gone.
            slot = slotIDs.indices.first { s in
                let owner = slotIDs[s]
                return owner < 0 || !(0..<sourceCount).contains { sourceIDs[$0] == owner }
            }
        }
        let s = slot ?? 0
        slotIDs[s] = id
        slotLabels[s] = label
    }

    private func label(of id: Int) -> SoundLabel? {
        guard let s = slotIDs.firstIndex(of: id) else { return nil }
        return slotLabels[s]
    }

    // MARK: - Records out

    public func label(_ record: AnalysisRecord, emit: (AnalysisRecord) throws -> Void) rethrows {
        // The sources the next patches are cut for.
        sourceCount = min(record.sources.count, capacity)
        for i in 0..<sourceCount {
            let source = record.sources[i]
            sourceIDs[i] = source.id
            sourceLateral[i] = sin(source.azimuth * Double.pi / 180)
            sourceActive[i] = source.active
        }
        var out = record
        swap(&out.sources, &sourcesBuffer)
        out.sources.removeAll(keepingCapacity: true)
        var loudest = -1
        for i in 0..<record.sources.count {
            var source = record.sources[i]
            source.label = label(of: source.id)
            out.sources.append(source)
            if source.active, source.label != nil, loudest < 0 || source.levelDBFS > out.sources[loudest].levelDBFS {
                loudest = i
            }
        }
        out.label = loudest >= 0 ? out.sources[loudest].label : mixtureLabel
        var alerting = -1
        for i in out.sources.indices where out.sources[i].active && out.sources[i].label?.alert == true {
            if alerting < 0 || out.sources[i].levelDBFS > out.sources[alerting].levelDBFS { alerting = i }
        }
        if alerting >= 0 {
            out.alertAzimuth = out.sources[alerting].azimuth
            out.alertSource = out.sources[alerting].id
        } else if loudest < 0, out.label?.alert == true {
            out.alertAzimuth = out.azimuth
            out.alertSource = 0
        } else {
            out.alertAzimuth = nil
            out.alertSource = 0
        }
        defer { swap(&out.sources, &sourcesBuffer) }
        try emit(out)
    }
}
