import SoundCompassEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Each heard source's patch from the mixture, by where its bins point: the third of
/// ``SourceLabeler``'s parts (its documentation has the whole story).
///
/// A bin that holds a delay (``OnsetDelayHistory``) goes to the heard source whose delay is
/// nearest, if it is within ``delayTolerance`` of the array's largest delay (else to none: a
/// sound the tracker does not list); any other bin to the heard source whose expected phase is
/// nearest its direction (the largest `cos(φₖ − ωₖτ)`), unless another heard source's expected
/// phase is within ``ambiguitySine`` of it there (spatial aliasing: then to none). A source's
/// patch is the mixture's magnitude in its bins and, elsewhere, at most ``rejectedBinGain``
/// (−30 dB) of the RMS of its own bins in that frame, scaled so that its loud frames sit at
/// ``patchLevel``, then mel and log as YAMNet's front end. With one heard source its mask keeps
/// every bin but those holding a delay far from it.
///
/// **Soft masks.** When two or more heard sources have powers within ``softLevelRatio`` (6 dB)
/// of each other over the patch (each counted in the bins the assignment above gives it), each
/// bin is shared instead of given: a ratio mask, source j's weight over the sum of every
/// source's and "none"'s, by how near its direction is to the source's expected phase
/// (``phaseSharpness``; where spatial aliasing makes two sources' phases alike, as above, to
/// none). A bin holding a delay is decided as above: a held delay far from every source is
/// often an alias of the grid (a 3 kHz tone at +30° held a delay between the two sources), and
/// shared by nearness it leaked that tone into the other source's patch at −20 dB. The phase
/// is left alone (only magnitudes are classified); the floor above still applies, so no patch
/// has holes.
///
/// Life cycle: `init` allocates everything; nothing after it allocates.
final class SourceMasks {
    static let bins = StereoFrames16k.bins
    static let stride = StereoFrames16k.stride
    static let frames = YAMNet.patchFrames
    private typealias V = FloatLanes.V

    // MARK: - Constants

    /// A bin holding a delay goes to no source when the nearest heard source's delay is further
    /// than this share of the array's largest delay (±11.5° at the front of a spaced pair).
    static let delayTolerance: Float = 0.2
    /// A bin decided by phase goes to no source when two heard sources' expected phases there
    /// differ by less than `2·asin(0.2)` (±23°) modulo 2π, above the frequency where they
    /// first part (where they differ by more than π): spatial aliasing.
    static let ambiguitySine: Float = 0.2
    /// The magnitude of a bin that is not a source's, in that source's patch, at most: this
    /// share (−30 dB) of the RMS over all bins of the source's own bins in that frame (and never
    /// more than the mixture's). Neither a zero (`log(0.001)` after mel: between a tone's
    /// harmonics holes make YAMNet hear a telephone or a doorbell) nor a share of the mixture
    /// (which carries the other sources' structure: a siren's partials 20–40 dB above a talker
    /// stayed above the talker at −30 dB, and the talker read as "Music").
    static let rejectedBinGain: Float = 0.03
    /// The level a source's patch is scaled to before it is classified: the 90th percentile of
    /// its frames' power `Σₖ|Xₖ|²` (the 257 bins of YAMNet's unnormalised 512-point FFT of a
    /// 400-sample Hann-windowed frame at 16 kHz), 10^4.5 (45 dB; white noise of RMS 0.91 has
    /// this power). YAMNet's scores depend on level (AudioSet's clips are loud), and a masked
    /// patch keeps only part of its source's energy: normalising makes a source's label
    /// independent of the recording's gain and of how much of its energy the mask kept.
    static let patchLevel: Float = 31_622.8
    /// The largest gain (magnitude) ``patchLevel`` may apply: +30 dB.
    static let maximumLevelGain: Float = 31.62
    /// A lone source's unmasked patch, raised to ``patchLevel``, is also classified this much
    /// quieter (magnitude ratio: −17.2 dB, its loud frames near −18 dBFS instead of −0.8), never
    /// below the sound as heard, and the two copies' scores are averaged
    /// (``writeQuieterCopy(of:gainIndex:to:)``). YAMNet reads level, and no one level suits every class:
    /// raised to −0.8 dBFS rain and running water lose their names ("Toilet flush" 0.90 as heard,
    /// 0.11 raised 20 dB), at −18 dBFS applause and knocks lose theirs. On
    /// `Benchmarks/accuracy/labels_real.py` (seeds 44–53, 440 lone scenes) the NumPy reference
    /// named 291 raised to −0.8 dBFS, 306 at −18 and 314 with both averaged; in SoundCompass the
    /// pair took the lone scenes labelled from 285 to 298 (Docs/Classification.md, "The patch
    /// level").
    static let quieterCopyRatio: Float = 0.138

    /// The sharpness of a bin's phase evidence for a source, in a soft mask: its weight is
    /// `((1 + cos Δφ)/2)^p` with this `p` (a power of two). On labels_real.py (seeds 44–46,
    /// beside a talker) sharper masks labelled fewer sources: p = 8, 4, 2 and 1 gave 53, 58,
    /// 62 and 63 of 132 (hard masks 48) before held delays were decided as in the hard masks.
    static let phaseSharpness = 2
    /// The weight of "no listed source" beside the sources' in a soft mask: for a bin decided by
    /// phase (about a source's weight ±155° away), and for a bin holding a delay (where every
    /// source's weight is 0 or 1, so that a delay far from every source goes to none).
    static let nonePhaseWeight: Float = 0.0015
    static let noneDelayWeight: Float = 1e-6
    /// Soft masks are used when the heard sources' powers (by the hard assignment, over the
    /// patch) are within this ratio (6 dB) of each other; the hard masks otherwise. A ratio
    /// mask weighs bins by direction alone, so a source 10 dB louder leaks into a quieter one's
    /// mask wherever their expected phases are near (low frequencies on a small pair): in the
    /// synthetic rooms (a siren 10 dB over a talker) soft masks everywhere took the talker from
    /// 61 to 24–55 of 66 patches, whatever `p`.
    static let softLevelRatio: Float = 4

    private let model: ArrayModel
    /// The largest distance (seconds) between a held delay and its source's.
    private let toleranceSeconds: Float
    /// Per heard source: expected phase rotation per bin (cos, sin), its delay, and the bins
    /// where another heard source's phase is too near (1, else 0).
    private let rotationReBuffer, rotationImBuffer, sourceDelayBuffer, ambiguousBuffer: OwnedBuffer<Float>
    /// Per frame and bin the source it goes to (its index as a Float; −1: none); per source and
    /// frame the floor of its other bins; one frame's masked magnitudes.
    private let winnerBuffer, floorBuffer, maskedBuffer: OwnedBuffer<Float>
    /// Per frame and heard source its soft mask (frames × capacity × stride; frame f, source j
    /// at `(f · sources + j) · stride`), made once by assign and read by render.
    private let softBuffer: OwnedBuffer<Float>
    /// Whether the patch being built uses soft masks (``softLevelRatio``).
    private var useSoft = false
    /// Per patch its frames' power, its gain; scratch for the percentile.
    private let framePowerBuffer, gainBuffer, sortBuffer: OwnedBuffer<Float>
    /// Two sources' band powers (``spectralSimilarity(history:_:_:)``).
    private let profileBuffer: OwnedBuffer<Float>
    /// The patches built: up to capacity + 1 of `96 × 64` log-mel values.
    private let patchBuffer: OwnedBuffer<Float>

    /// - Parameters:
    ///   - array: the array model (delays, channel offset).
    ///   - capacity: the most heard sources.
    init(array: ArrayModel, capacity: Int) {
        let stride = Self.stride, frames = Self.frames
        model = array
        toleranceSeconds = Self.delayTolerance * Float(array.maximumDelaySeconds)
        rotationReBuffer = OwnedBuffer(zeros: capacity * stride)
        rotationImBuffer = OwnedBuffer(zeros: capacity * stride)
        sourceDelayBuffer = OwnedBuffer(zeros: capacity)
        ambiguousBuffer = OwnedBuffer(zeros: capacity * stride)
        winnerBuffer = OwnedBuffer(zeros: frames * stride)
        floorBuffer = OwnedBuffer(zeros: capacity * frames)
        maskedBuffer = OwnedBuffer(zeros: stride)
        softBuffer = OwnedBuffer(zeros: frames * capacity * stride)
        framePowerBuffer = OwnedBuffer(zeros: (capacity + 1) * frames)
        gainBuffer = OwnedBuffer(count: capacity + 1, value: 1)
        sortBuffer = OwnedBuffer(zeros: frames)
        profileBuffer = OwnedBuffer(zeros: 2 * (Self.profileEdges.count - 1))
        patchBuffer = OwnedBuffer(zeros: (capacity + 1) * frames * YAMNet.melBands)
    }

    /// The patches of the last ``build(history:frontEnd:sources:positions:mixtureAt:normalised:)``.
    var patches: UnsafePointer<Float> { UnsafePointer(patchBuffer.pointer) }

    /// Writes patch `from` of the last build, ``quieterCopyRatio`` quieter in magnitude but
    /// never quieter than the sound as heard (the ratio is at least the inverse of the gain
    /// the build gave that patch), into position `to`. A log-mel value `P = log(m + 0.001)` of
    /// a patch whose magnitudes were scaled by `g` becomes `log(r·(e^P − 0.001) + 0.001)`
    /// (mel is linear in the magnitudes): exact, with no second pass over the spectra.
    /// - Parameters:
    ///   - from: the patch built (its gain is the one of the build's patch `gainIndex`).
    ///   - gainIndex: which of the build's patches `from` is: a source's index, or the number
    ///     of sources for the mixture's.
    ///   - to: where the copy goes (0…capacity: the buffer holds capacity + 1 patches).
    /// - Returns: whether a copy was written: none when the patch was not raised (the copy
    ///   would be the patch itself).
    func writeQuieterCopy(of from: Int, gainIndex: Int, to: Int) -> Bool {
        let ratio = max(1 / gains[gainIndex], Self.quieterCopyRatio)
        guard ratio < 0.999 else { return false }
        let size = Self.frames * YAMNet.melBands, offset = LogMelFrontEnd.logOffset
        let source = patchesOut + from * size, copy = patchesOut + to * size
        for i in 0..<size {
            copy[i] = logf(max(0, ratio * (expf(source[i]) - offset)) + offset)
        }
        return true
    }

    /// The magnitude gain the last build gave patch `index` (a source's index, or the number of
    /// sources for the mixture's): 1 when not normalised.
    func gain(ofPatch index: Int) -> Float { gains[index] }

    /// The power that heard source `j`'s mask holds in the last build, summed over the patch's
    /// frames (`Σ|Xₖ|²` of YAMNet's spectra, before the level; its rejected bins at their
    /// floor), to compare the heard sources' shares of the sound.
    func maskedPower(ofSource j: Int) -> Float {
        let frames = Self.frames
        var sum: Float = 0
        for f in 0..<frames { sum += framePower[j * frames + f] }
        return sum
    }

    /// The power of the last 96 frames in the bins that hold an onset delay (``OnsetDelayHistory``)
    /// and that the last build's bin assignment gave heard source `j` (the nearest heard
    /// source's delay, within ``delayTolerance``): the share of the sound whose onsets came
    /// from that direction first. A reflection arrives after its source, so the bins its onsets
    /// fall in mostly hold the source's delay (precedence). Needs a build with two or more
    /// sources.
    /// - Returns: `Σ|Xₖ|²` (YAMNet's spectra, as ``maskedPower(ofSource:)``).
    func heldPower(history: OnsetDelayHistory, ofSource j: Int) -> Float {
        let own = V(repeating: Float(j))
        var sum = V()
        for f in 0..<Self.frames {
            let slot = history.slot(ofFrame: f)
            let mag = history.magnitudes(slot), held = history.heldDelays(slot), win = winners + f * Self.stride
            var k = 0
            while k < Self.stride {
                let delay = FloatLanes.load(held + k), m = FloatLanes.load(mag + k)
                let mine = (FloatLanes.load(win + k) .== own) .& (delay .== delay)  // held: not NaN
                sum += (m * m).replacing(with: 0, where: .!mine)
                k += 8
            }
        }
        return sum.sum()
    }

    /// The edges (bins of YAMNet's 257) of the bands of ``spectralSimilarity(history:_:_:)``:
    /// 62.5 Hz to 8 kHz, about a third of an octave each above 250 Hz, wider below.
    static let profileEdges = [2, 4, 6, 8, 11, 15, 20, 26, 34, 44, 57, 74, 96, 125, 162, 210, 257]

    /// How alike the spectra of heard sources `i` and `j` are over the last 96 frames: the
    /// correlation across ``profileEdges``' 16 bands of the log of the power that the last
    /// build's bin assignment gives each (1: the same shape; a reflection carries its source's
    /// spectrum, coloured a little by the walls). Needs a build with two or more sources.
    func spectralSimilarity(history: OnsetDelayHistory, _ i: Int, _ j: Int) -> Float {
        let bands = Self.profileEdges.count - 1
        let a = profilePointer, b = profilePointer + bands
        for band in 0..<2 * bands { a[band] = 1e-6 }
        let first = Float(i), second = Float(j)
        for f in 0..<Self.frames {
            let mag = history.magnitudes(history.slot(ofFrame: f)), win = winners + f * Self.stride
            for band in 0..<bands {
                for k in Self.profileEdges[band]..<Self.profileEdges[band + 1] {
                    if win[k] == first { a[band] += mag[k] * mag[k] } else if win[k] == second { b[band] += mag[k] * mag[k] }
                }
            }
        }
        var meanA: Float = 0, meanB: Float = 0
        for band in 0..<bands {
            a[band] = logf(a[band]); b[band] = logf(b[band])
            meanA += a[band]; meanB += b[band]
        }
        meanA /= Float(bands); meanB /= Float(bands)
        var ab: Float = 0, aa: Float = 0, bb: Float = 0
        for band in 0..<bands {
            let x = a[band] - meanA, y = b[band] - meanB
            ab += x * y; aa += x * x; bb += y * y
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    /// Moves patch `from` of ``patches`` to position `to` (a batch closing a gap).
    func movePatch(_ from: Int, to: Int) {
        let size = Self.frames * YAMNet.melBands
        (patchesOut + to * size).update(from: patchesOut + from * size, count: size)
    }

    private var rotationRe: UnsafeMutablePointer<Float> { rotationReBuffer.pointer }
    private var rotationIm: UnsafeMutablePointer<Float> { rotationImBuffer.pointer }
    private var sourceDelays: UnsafeMutablePointer<Float> { sourceDelayBuffer.pointer }
    private var ambiguous: UnsafeMutablePointer<Float> { ambiguousBuffer.pointer }
    private var winners: UnsafeMutablePointer<Float> { winnerBuffer.pointer }
    private var floors: UnsafeMutablePointer<Float> { floorBuffer.pointer }
    private var masked: UnsafeMutablePointer<Float> { maskedBuffer.pointer }
    private var soft: UnsafeMutablePointer<Float> { softBuffer.pointer }

    private var framePower: UnsafeMutablePointer<Float> { framePowerBuffer.pointer }
    private var gains: UnsafeMutablePointer<Float> { gainBuffer.pointer }
    private var sortScratch: UnsafeMutablePointer<Float> { sortBuffer.pointer }
    private var profilePointer: UnsafeMutablePointer<Float> { profileBuffer.pointer }
    private var patchesOut: UnsafeMutablePointer<Float> { patchBuffer.pointer }

    /// Each heard source's delay and expected rotation e^{iωτ} per bin, and the bins where two
    /// heard sources' phases cannot be told apart (above their first parting).
    /// - Parameters:
    ///   - laterals: the heard sources' lateral positions (sin of the azimuth), in order.
    ///   - count: how many (at most the capacity).
    func prepare(laterals: [Double], count: Int) {
        let bins = Self.bins, stride = Self.stride
        for j in 0..<count {
            let tau = model.delay(lateral: laterals[j]) + model.delayOffsetSeconds
            sourceDelays[j] = Float(tau)
            for k in 0..<bins {
                rotationRe[j * stride + k] = Float(cos(OnsetDelayHistory.omega(k) * tau))
                rotationIm[j * stride + k] = Float(sin(OnsetDelayHistory.omega(k) * tau))
            }
        }
        for j in 0..<count {
            let amb = ambiguous + j * stride
            for k in 0..<stride { amb[k] = 0 }
            for i in 0..<count where i != j {
                let difference = Double(sourceDelays[i] - sourceDelays[j])
                for k in 0..<bins {
                    let phase = OnsetDelayHistory.omega(k) * difference
                    if abs(phase) > Double.pi && abs(sin(phase / 2)) < Double(Self.ambiguitySine) { amb[k] = 1 }
                }
            }
        }
    }

    /// The share of the last 96 frames' energy in bins that hold an onset delay far from the one
    /// heard source's (``delayTolerance``): the energy of sounds the tracker does not list.
    /// ``prepare(laterals:count:)`` must have been called for that one source.
    func foreignShare(history: OnsetDelayHistory) -> Float {
        let stride = Self.stride, frames = Self.frames
        var foreign = V(), total = V()
        let none = V(repeating: -1)
        for f in 0..<frames {
            let slot = history.slot(ofFrame: f)
            let mag = history.magnitudes(slot)
            let win = winners + f * stride
            assignBins(history: history, slot: slot, sources: 1, into: win)
            var k = 0
            while k < stride {
                let m = FloatLanes.load(mag + k)
                let power = m * m
                total += power
                foreign += power.replacing(with: 0, where: .!(FloatLanes.load(win + k) .== none))
                k += 8
            }
        }
        let sum = total.sum()
        return sum > 0 ? foreign.sum() / sum : 0
    }

    /// The patches of the last 96 frames of `history` into ``patches``: one per heard source
    /// from the mask (`sources` of them, none when 0), and the unmasked mixture's. Source j's
    /// patch goes to position `positions[j]` (−1: not built, though its mask is still made, as
    /// every heard source's is needed for the others'), the mixture's to `mixtureAt` (−1: not
    /// built). With `normalised`, each patch's magnitudes are scaled so that its loud frames sit
    /// at ``patchLevel`` (see there). ``prepare(laterals:count:)`` must have been called for
    /// these `sources` (unless 0).
    ///
    /// With `raiseOnly`, a patch is only ever raised towards the level, never lowered (the
    /// unmasked patch of a lone source: a quiet one still reads as at any level, and a loud one
    /// is heard as it is). With `mixtureAsHeard`, the mixture's patch is left at its own level
    /// whatever `normalised` says: beside the masked patches of two or more sources it is the
    /// unseparated sound as YAMNet would hear it, the reference a separated label must beat (a
    /// police siren rising beside a talker at its level read "Police car (siren)" 0.52 there
    /// and "Speech" 0.13 raised 10 dB to the patch level).
    func build(
        history: OnsetDelayHistory, frontEnd: LogMelFrontEnd, sources: Int, positions: [Int], mixtureAt: Int,
        normalised: Bool, raiseOnly: Bool = false, mixtureAsHeard: Bool = false
    ) {
        assign(history: history, sources: sources)
        render(
            history: history, frontEnd: frontEnd, sources: sources, positions: positions, mixtureAt: mixtureAt,
            normalised: normalised, raiseOnly: raiseOnly, mixtureAsHeard: mixtureAsHeard)
    }

    /// The first half of ``build(history:frontEnd:sources:positions:mixtureAt:normalised:raiseOnly:mixtureAsHeard:)``:
    /// each bin of the last 96 frames to its source, and each patch's floor and per-frame power.
    private func assign(history: OnsetDelayHistory, sources: Int) {
        let stride = Self.stride, frames = Self.frames
        let mixturePower = framePower + sources * frames
        let floorShare = Self.rejectedBinGain / Float(Self.bins).squareRoot()
        useSoft = sources >= 2 && levelsAreNear(history: history, sources: sources)
        for f in 0..<frames {
            let slot = history.slot(ofFrame: f)  // oldest first
            let mag = history.magnitudes(slot), mix = history.mixtureMagnitudes(slot)
            var p = V()
            var k = 0
            while k < stride { let m = FloatLanes.load(mix + k); p += m * m; k += 8 }
            mixturePower[f] = p.sum()
            if sources == 0 { continue }
            if useSoft {
                let weights = soft + f * sources * stride
                softWeights(history: history, slot: slot, sources: sources, into: weights)
                for j in 0..<sources {
                    let w = weights + j * stride
                    var sum = V()
                    var k = 0
                    while k < stride { let m = FloatLanes.load(mag + k) * FloatLanes.load(w + k); sum += m * m; k += 8 }
                    let floor = V(repeating: floorShare * sum.sum().squareRoot())
                    var total = V()
                    k = 0
                    while k < stride {
                        let m = FloatLanes.load(mag + k)
                        let kept = FloatLanes.max(m * FloatLanes.load(w + k), FloatLanes.min(m, floor))
                        total += kept * kept
                        k += 8
                    }
                    floors[j * frames + f] = floor[0]
                    framePower[j * frames + f] = total.sum()
                }
                continue
            }
            let win = winners + f * stride
            // With two or more sources levelsAreNear has assigned the bins already.
            if sources == 1 { assignBins(history: history, slot: slot, sources: sources, into: win) }
            for j in 0..<sources {
                let own = V(repeating: Float(j))
                let ownPower = Self.power(mag, in: win, of: j)
                let floor = V(repeating: floorShare * ownPower.squareRoot())
                var rest = V()
                var k = 0
                while k < stride {
                    let m = FloatLanes.min(FloatLanes.load(mag + k), floor)
                    let mine = FloatLanes.load(win + k) .== own
                    rest += (m * m).replacing(with: 0, where: mine)
                    k += 8
                }
                floors[j * frames + f] = floor[0]
                framePower[j * frames + f] = ownPower + rest.sum()
            }
        }
    }

    /// The second half of ``build(history:frontEnd:sources:positions:mixtureAt:normalised:raiseOnly:mixtureAsHeard:)``,
    /// after ``assign(history:sources:)`` with the same `sources`.
    private func render(
        history: OnsetDelayHistory, frontEnd: LogMelFrontEnd, sources: Int, positions: [Int], mixtureAt: Int,
        normalised: Bool, raiseOnly: Bool, mixtureAsHeard: Bool
    ) {
        let melBands = YAMNet.melBands, stride = Self.stride, frames = Self.frames
        let patchCount = sources + 1
        for j in 0..<patchCount {
            let gain = normalised ? Self.levelGain(framePowers: framePower + j * frames, scratch: sortScratch) : 1
            gains[j] = raiseOnly ? max(1, gain) : gain
        }
        if mixtureAsHeard { gains[sources] = 1 }
        // Pass 2: masked, scaled magnitudes into mel and log; the mixture's last.
        for f in 0..<frames {
            let slot = history.slot(ofFrame: f)
            let mag = history.magnitudes(slot), mix = history.mixtureMagnitudes(slot)
            if mixtureAt >= 0 {
                let g = V(repeating: gains[sources])
                var k = 0
                while k < stride { FloatLanes.store(g * FloatLanes.load(mix + k), masked + k); k += 8 }
                frontEnd.logMel(magnitudes: masked, into: patchesOut + mixtureAt * frames * melBands + f * melBands)
            }
            if sources == 0 { continue }
            if useSoft {
                let weights = soft + f * sources * stride
                for j in 0..<sources where positions[j] >= 0 {
                    let g = V(repeating: gains[j]), floor = V(repeating: floors[j * frames + f])
                    let w = weights + j * stride
                    var k = 0
                    while k < stride {
                        let m = FloatLanes.load(mag + k)
                        FloatLanes.store(g * FloatLanes.max(m * FloatLanes.load(w + k), FloatLanes.min(m, floor)), masked + k)
                        k += 8
                    }
                    frontEnd.logMel(magnitudes: masked, into: patchesOut + positions[j] * frames * melBands + f * melBands)
                }
                continue
            }
            let win = winners + f * stride
            for j in 0..<sources where positions[j] >= 0 {
                let g = V(repeating: gains[j]), floor = V(repeating: floors[j * frames + f])
                let own = V(repeating: Float(j))
                var k = 0
                while k < stride {
                    let m = FloatLanes.load(mag + k)
                    let mine = FloatLanes.load(win + k) .== own
                    FloatLanes.store(g * FloatLanes.min(m, floor).replacing(with: m, where: mine), masked + k)
                    k += 8
                }
                frontEnd.logMel(magnitudes: masked, into: patchesOut + positions[j] * frames * melBands + f * melBands)
            }
        }
    }

    /// Each bin of ring frame `slot` to its heard source, or −1 (see the type's documentation).
    private func assignBins(history: OnsetDelayHistory, slot: Int, sources: Int, into win: UnsafeMutablePointer<Float>) {
        let stride = Self.stride
        let dirRe = history.directionRe(slot), dirIm = history.directionIm(slot)
        let held = history.heldDelays(slot)
        let tolerance = V(repeating: toleranceSeconds), minusOne = V(repeating: -1)
        var k = 0
        if sources == 1 {
            // One source: every bin but those holding a delay far from its own.
            let own = V(repeating: sourceDelays[0])
            while k < stride {
                let difference = FloatLanes.load(held + k) - own
                let far = (difference .> tolerance) .| (-difference .> tolerance)
                FloatLanes.store(V().replacing(with: minusOne, where: far), win + k)
                k += 8
            }
            return
        }
        while k < stride {
            let delay = FloatLanes.load(held + k)
            let isHeld = delay .== delay  // not NaN
            let x = FloatLanes.load(dirRe + k), y = FloatLanes.load(dirIm + k)
            // Held delays: the nearest source's, if near enough; the others: the best phase fit.
            var nearest = minusOne, nearestDistance = tolerance
            var fitted = V(), bestFit = V(repeating: -2), fittedAmbiguous = V()
            for j in 0..<sources {
                let index = V(repeating: Float(j))
                let difference = delay - V(repeating: sourceDelays[j])
                let distance = difference.replacing(with: -difference, where: difference .< V())
                let nearer = distance .<= nearestDistance
                nearest.replace(with: index, where: nearer)
                nearestDistance.replace(with: distance, where: nearer)
                let fit = x * FloatLanes.load(rotationRe + j * stride + k) + y * FloatLanes.load(rotationIm + j * stride + k)
                let better = fit .> bestFit
                fitted.replace(with: index, where: better)
                bestFit.replace(with: fit, where: better)
                fittedAmbiguous.replace(with: FloatLanes.load(ambiguous + j * stride + k), where: better)
            }
            fitted.replace(with: minusOne, where: fittedAmbiguous .> V())
            let chosen = fitted.replacing(with: nearest, where: isHeld)
            FloatLanes.store(chosen, win + k)
            k += 8
        }
    }

    /// Whether the heard sources' powers over the last 96 frames, each in the bins the hard
    /// assignment gives it, are within ``softLevelRatio`` of each other. Leaves the hard
    /// assignment in ``winners``.
    private func levelsAreNear(history: OnsetDelayHistory, sources: Int) -> Bool {
        let stride = Self.stride, frames = Self.frames
        for f in 0..<frames {
            assignBins(history: history, slot: history.slot(ofFrame: f), sources: sources, into: winners + f * stride)
        }
        var loudest: Float = 0, quietest = Float.greatestFiniteMagnitude
        for j in 0..<sources {
            var total: Float = 0
            for f in 0..<frames {
                total += Self.power(history.magnitudes(history.slot(ofFrame: f)), in: winners + f * stride, of: j)
            }
            loudest = max(loudest, total)
            quietest = min(quietest, total)
        }
        return loudest <= Self.softLevelRatio * quietest
    }

    /// The power `Σₖ|Xₖ|²` of one frame's magnitudes `mag` in the bins `win` gives source `j`.
    private static func power(_ mag: UnsafePointer<Float>, in win: UnsafePointer<Float>, of j: Int) -> Float {
        let own = V(repeating: Float(j))
        var sum = V()
        var k = 0
        while k < stride {
            let m = FloatLanes.load(mag + k)
            sum += (m * m).replacing(with: 0, where: .!(FloatLanes.load(win + k) .== own))
            k += 8
        }
        return sum.sum()
    }

    /// Each heard source's soft mask for ring frame `slot` into `soft` (source-major): its
    /// weight over the sum of every source's and "none"'s. A bin holding a delay weighs 1 for a
    /// source within ``delayTolerance`` of it and 0 for the others (as the hard mask decides);
    /// any other bin by how near its direction is to the source's expected phase
    /// (`((1 + cos Δφ)/2)^p`, ``phaseSharpness``), 0 where two sources' phases cannot be told
    /// apart (spatial aliasing).
    private func softWeights(history: OnsetDelayHistory, slot: Int, sources: Int, into soft: UnsafeMutablePointer<Float>) {
        let stride = Self.stride
        let dirRe = history.directionRe(slot), dirIm = history.directionIm(slot)
        let held = history.heldDelays(slot)
        let tolerance = V(repeating: toleranceSeconds)
        let one = V(repeating: 1), half = V(repeating: 0.5)
        let nonePhase = V(repeating: Self.nonePhaseWeight), noneDelay = V(repeating: Self.noneDelayWeight)
        let squarings = Self.phaseSharpness.trailingZeroBitCount
        var k = 0
        while k < stride {
            let delay = FloatLanes.load(held + k)
            let isHeld = delay .== delay  // not NaN
            let x = FloatLanes.load(dirRe + k), y = FloatLanes.load(dirIm + k)
            var total = nonePhase.replacing(with: noneDelay, where: isHeld)
            for j in 0..<sources {
                let fit = x * FloatLanes.load(rotationRe + j * stride + k) + y * FloatLanes.load(rotationIm + j * stride + k)
                var phaseWeight = FloatLanes.max(V(), half * (one + fit))
                for _ in 0..<squarings { phaseWeight *= phaseWeight }
                // Where its phase cannot be told from another source's (spatial aliasing): none's.
                phaseWeight.replace(with: 0, where: FloatLanes.load(ambiguous + j * stride + k) .> V())
                // A held delay decides as in the hard masks: a source within the tolerance, or
                // none (a delay far from every source is often an alias, not a direction).
                let difference = delay - V(repeating: sourceDelays[j])
                let near = (difference .<= tolerance) .& (-difference .<= tolerance)
                let delayWeight = V().replacing(with: one, where: near)
                let weight = phaseWeight.replacing(with: delayWeight, where: isHeld)
                FloatLanes.store(weight, soft + j * stride + k)
                total += weight
            }
            let inverse = one / total
            for j in 0..<sources {
                FloatLanes.store(FloatLanes.load(soft + j * stride + k) * inverse, soft + j * stride + k)
            }
            k += 8
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
}
