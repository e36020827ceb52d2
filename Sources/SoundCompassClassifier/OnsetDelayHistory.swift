import SoundCompassEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Per bin of the 16 kHz spectra, the evidence of where its sound comes from, frame by frame,
/// and the last 96 frames of it: the second of ``SourceLabeler``'s parts (its documentation
/// says why onsets).
///
/// - an **onset** is a frame whose power exceeds ``onsetRise`` times the bin's recent peak (a
///   peak envelope that falls by ``onsetEnvelopeDecay`` per frame);
/// - the onsets of one frame are **pooled**: the delay that best fits them all (the peak of
///   their power-weighted cross-correlation, ``delayGridCount`` delays across the array's lag
///   window) is the frame's **onset delay**, and each onset bin whose phase agrees with it
///   (within 90°) holds that delay;
/// - a bin **holds** its delay while the sound goes on: the evidence decays by
///   ``evidenceDecay`` per frame and is kept at most ``evidenceCeiling`` times the bin's power,
///   a stronger onset replaces it, a weaker one is averaged in, and it is let go when the bin's
///   power falls ``releaseShare`` (−15 dB) below its peak since;
/// - onsets that disagree with the frame's onset delay are held as phase, and a bin without
///   held onsets falls back on its current phase (weight ``currentPhaseWeight``).
///
/// The ring keeps, per frame and bin, the mixture's magnitude (RMS of the channels), the bin's
/// direction (a unit vector: the held phase evidence plus the current phase) and the delay it
/// holds (seconds; NaN when none).
///
/// Life cycle: `init` allocates everything; ``add(spectrumLeft:spectrumRight:)`` never allocates.
final class OnsetDelayHistory {
    static let bins = StereoFrames16k.bins
    static let stride = StereoFrames16k.stride
    /// Frames kept: one patch (0.96 s).
    static let frames = YAMNet.patchFrames
    private typealias V = FloatLanes.V

    // MARK: - Constants

    /// A bin's frame is an onset when its power `(|L|²+|R|²)/2` exceeds this many times the
    /// bin's recent peak (4.8 dB); the onset's weight is the excess. The build-up of a room's
    /// reverberation after an onset rises more slowly and is not taken for one.
    static let onsetRise: Float = 3
    /// Per frame (10 ms), the factor by which a bin's peak envelope falls (−0.7 dB).
    static let onsetEnvelopeDecay: Float = 0.85
    /// Per frame, the factor by which a bin's held onset evidence decays (1 s time constant).
    static let evidenceDecay: Float = 0.99
    /// A bin's held evidence is at most this many times its current power (15 dB): when the
    /// sound that made the onset fades, so does its evidence.
    static let evidenceCeiling: Float = 30
    /// A bin lets go of its held delay when its power falls this far below its peak since the
    /// delay was taken (−15 dB): the sound that made the onset has ended, and what follows in
    /// that bin (a talker after a siren's tone) is judged afresh.
    static let releaseShare: Float = 0.03
    /// The weight of a bin's current phase, times its power, beside its held phase evidence.
    static let currentPhaseWeight: Float = 0.1
    /// Delays tried for a frame's pooled onset delay, evenly across ±1.05 times the array's lag
    /// window (``ArrayModel/lagWindowSeconds``; 14 µs apart for a 15 cm pair).
    static let delayGridCount = 65
    private static let gridStride = (delayGridCount + 7) / 8 * 8

    // MARK: - The ring of the last 96 frames

    /// Per frame slot (``stride`` bins each): the mixture's magnitude (the RMS of the two
    /// channels', for the masks), the left channel's magnitude (for the unmasked mixture's patch:
    /// one microphone, as YAMNet was trained; the RMS of two microphones that hear a room
    /// differently smooths the fine structure it reads, and took the glass recordings of
    /// `Benchmarks/accuracy/labels_real.py` from 10 of 11 patches named to 2), the direction
    /// (re, im) and the held delay (seconds, NaN for none).
    private let magnitudeRing: OwnedBuffer<Float>, directionReRing: OwnedBuffer<Float>
    private let mixtureRing: OwnedBuffer<Float>
    private let directionImRing: OwnedBuffer<Float>, heldDelayRing: OwnedBuffer<Float>
    /// The slot the next frame goes to, and how many frames the ring holds (at most 96).
    private(set) var ringHead = 0, framesStored = 0

    // MARK: - Per-bin state and scratch

    private let envelopeBuffer, phaseReBuffer, phaseImBuffer, phaseWeightBuffer: OwnedBuffer<Float>
    private let delayHeldBuffer, delayWeightBuffer, heldPeakBuffer: OwnedBuffer<Float>
    private let powerBuffer, unitReBuffer, unitImBuffer, onsetWeightBuffer: OwnedBuffer<Float>
    private let onsetBinBuffer: OwnedBuffer<Int32>
    /// The delays tried (seconds), `cos` and `sin` of `ωₖ·τ` for each (bin-major:
    /// ``gridStride`` delays a bin) and the fit of each.
    private let gridDelayBuffer, gridCosBuffer, gridSinBuffer, gridFitBuffer: OwnedBuffer<Float>

    /// - Parameter array: the array model (its lag window and channel delay offset).
    init(array model: ArrayModel) {
        let stride = Self.stride, frames = Self.frames, bins = Self.bins
        magnitudeRing = OwnedBuffer(zeros: frames * stride)
        mixtureRing = OwnedBuffer(zeros: frames * stride)
        directionReRing = OwnedBuffer(zeros: frames * stride)
        directionImRing = OwnedBuffer(zeros: frames * stride)
        heldDelayRing = OwnedBuffer(count: frames * stride, value: .nan)
        envelopeBuffer = OwnedBuffer(zeros: stride)
        phaseReBuffer = OwnedBuffer(zeros: stride)
        phaseImBuffer = OwnedBuffer(zeros: stride)
        phaseWeightBuffer = OwnedBuffer(zeros: stride)
        delayHeldBuffer = OwnedBuffer(zeros: stride)
        delayWeightBuffer = OwnedBuffer(zeros: stride)
        heldPeakBuffer = OwnedBuffer(zeros: stride)
        powerBuffer = OwnedBuffer(zeros: stride)
        unitReBuffer = OwnedBuffer(zeros: stride)
        unitImBuffer = OwnedBuffer(zeros: stride)
        onsetWeightBuffer = OwnedBuffer(zeros: stride)
        onsetBinBuffer = OwnedBuffer(zeros: stride)
        let grid = Self.delayGridCount, gridStride = Self.gridStride
        gridDelayBuffer = OwnedBuffer(zeros: gridStride)
        gridCosBuffer = OwnedBuffer(zeros: stride * gridStride)
        gridSinBuffer = OwnedBuffer(zeros: stride * gridStride)
        gridFitBuffer = OwnedBuffer(zeros: gridStride)
        // The delays tried for a frame's onsets: the array's lag window and its hardware offset.
        let halfWidth = 1.05 * model.lagWindowSeconds
        for g in 0..<grid {
            let tau = model.delayOffsetSeconds - halfWidth + 2 * halfWidth * Double(g) / Double(grid - 1)
            gridDelayBuffer.pointer[g] = Float(tau)
            for k in 0..<bins {
                let phase = Self.omega(k) * tau
                gridCosBuffer.pointer[k * gridStride + g] = Float(cos(phase))
                gridSinBuffer.pointer[k * gridStride + g] = Float(sin(phase))
            }
        }
    }

    /// Copies the ring of the last 96 frames (magnitudes, directions, held delays) and its
    /// position into `other`, which then reads as this history did: a snapshot for patches
    /// built on another thread while this one goes on. Copies 0.5 MB; allocates nothing.
    func copyRing(into other: OnsetDelayHistory) {
        let count = Self.frames * Self.stride
        other.magnitudeRing.pointer.update(from: magnitudeRing.pointer, count: count)
        other.mixtureRing.pointer.update(from: mixtureRing.pointer, count: count)
        other.directionReRing.pointer.update(from: directionReRing.pointer, count: count)
        other.directionImRing.pointer.update(from: directionImRing.pointer, count: count)
        other.heldDelayRing.pointer.update(from: heldDelayRing.pointer, count: count)
        other.ringHead = ringHead
        other.framesStored = framesStored
    }

    /// The angular frequency of bin k, radians per second.
    static func omega(_ k: Int) -> Double {
        2 * Double.pi * LogMelFrontEnd.sampleRate * Double(k) / Double(LogMelFrontEnd.fftSize)
    }

    /// The ring slot of frame `f` of the last 96, oldest first (valid once ``framesStored`` is 96).
    @inline(__always) func slot(ofFrame f: Int) -> Int { (ringHead + f) % Self.frames }
    /// The mixture's magnitudes of ring slot `slot` (``stride`` bins).
    @inline(__always) func magnitudes(_ slot: Int) -> UnsafeMutablePointer<Float> { magnitudeRing.pointer + slot * Self.stride }
    /// One microphone's (the left) magnitudes of ring slot `slot`: the unmasked mixture's patch.
    @inline(__always) func mixtureMagnitudes(_ slot: Int) -> UnsafeMutablePointer<Float> { mixtureRing.pointer + slot * Self.stride }
    /// The directions (unit vectors, re and im) of ring slot `slot`.
    @inline(__always) func directionRe(_ slot: Int) -> UnsafeMutablePointer<Float> { directionReRing.pointer + slot * Self.stride }
    @inline(__always) func directionIm(_ slot: Int) -> UnsafeMutablePointer<Float> { directionImRing.pointer + slot * Self.stride }
    /// The held delays (seconds; NaN for none) of ring slot `slot`.
    @inline(__always) func heldDelays(_ slot: Int) -> UnsafeMutablePointer<Float> { heldDelayRing.pointer + slot * Self.stride }

    /// Takes in one 10 ms frame: each bin's onset evidence, direction and held delay into the ring.
    /// - Parameters:
    ///   - spectrumLeft: the left channel's spectrum, interleaved complex, ``stride`` bins.
    ///   - spectrumRight: the right channel's.
    func add(spectrumLeft: UnsafePointer<Float>, spectrumRight: UnsafePointer<Float>) {
        let magnitudes = magnitudeRing.pointer, directionRe = directionReRing.pointer
        let directionIm = directionImRing.pointer, heldDelays = heldDelayRing.pointer
        let envelope = envelopeBuffer.pointer, phaseRe = phaseReBuffer.pointer, phaseIm = phaseImBuffer.pointer
        let phaseWeight = phaseWeightBuffer.pointer, delayHeld = delayHeldBuffer.pointer
        let delayWeight = delayWeightBuffer.pointer, heldPeak = heldPeakBuffer.pointer
        let framePowerScratch = powerBuffer.pointer, unitRe = unitReBuffer.pointer, unitIm = unitImBuffer.pointer
        let onsetWeight = onsetWeightBuffer.pointer, onsetBins = onsetBinBuffer.pointer
        let gridDelays = gridDelayBuffer.pointer, gridCos = gridCosBuffer.pointer, gridSin = gridSinBuffer.pointer
        let gridFit = gridFitBuffer.pointer
        let bins = Self.bins, stride = Self.stride
        let mag = magnitudes + ringHead * stride, mix = mixtureRing.pointer + ringHead * stride
        // Power, magnitude, unit cross-spectrum and onset weight per bin.
        let zero = V(), half = V(repeating: 0.5), one = V(repeating: 1)
        let envelopeDecay = V(repeating: Self.onsetEnvelopeDecay), rise = V(repeating: Self.onsetRise)
        let rawLeft = UnsafeRawPointer(spectrumLeft), rawRight = UnsafeRawPointer(spectrumRight)
        var k = 0
        while k < stride {
            let byteOffset = 2 * k * MemoryLayout<Float>.stride
            let l16 = rawLeft.loadUnaligned(fromByteOffset: byteOffset, as: SIMD16<Float>.self)
            let r16 = rawRight.loadUnaligned(fromByteOffset: byteOffset, as: SIMD16<Float>.self)
            let lr = l16.evenHalf, li = l16.oddHalf, rr = r16.evenHalf, ri = r16.oddHalf
            let power = half * (lr * lr + li * li + rr * rr + ri * ri)
            FloatLanes.store(power, framePowerScratch + k)
            FloatLanes.store(power.squareRoot(), mag + k)
            FloatLanes.store((lr * lr + li * li).squareRoot(), mix + k)
            // L·R* = (lr + i·li)(rr − i·ri)
            let re = lr * rr + li * ri, im = li * rr - lr * ri
            let norm = (re * re + im * im).squareRoot()
            let inverse = (one / norm).replacing(with: 0, where: .!(norm .> zero))
            FloatLanes.store(re * inverse, unitRe + k)
            FloatLanes.store(im * inverse, unitIm + k)
            let reference = envelopeDecay * FloatLanes.load(envelope + k)
            let weight = power - rise * reference
            FloatLanes.store(FloatLanes.max(power, reference), envelope + k)
            FloatLanes.store(weight.replacing(with: 0, where: .!(weight .> zero)), onsetWeight + k)
            k += 8
        }
        var onsetCount = 0
        for k in 0..<bins where onsetWeight[k] > 0 && onsetWeight[k].isFinite {
            onsetBins[onsetCount] = Int32(k)
            onsetCount += 1
        }
        // The frame's onset delay: the grid delay that best fits all its onsets.
        var event = -1
        if onsetCount > 0 {
            let gridStride = Self.gridStride
            var g = 0
            while g < gridStride { FloatLanes.store(V(), gridFit + g); g += 8 }
            for i in 0..<onsetCount {
                let k = Int(onsetBins[i])
                let x = V(repeating: onsetWeight[k] * unitRe[k]), y = V(repeating: onsetWeight[k] * unitIm[k])
                let c = gridCos + k * gridStride, sn = gridSin + k * gridStride
                g = 0
                while g < gridStride {
                    FloatLanes.store(FloatLanes.load(gridFit + g) + x * FloatLanes.load(c + g) + y * FloatLanes.load(sn + g), gridFit + g)
                    g += 8
                }
            }
            var best: Float = 0
            for g in 0..<Self.delayGridCount where gridFit[g] > best {
                best = gridFit[g]
                event = g
            }
        }
        // Held delays: decay, then the onsets that agree with the frame's onset delay (a
        // stronger one replaces the held delay, a weaker one is averaged in); those are not
        // phase evidence.
        let decay = V(repeating: Self.evidenceDecay)
        k = 0
        while k < stride {
            FloatLanes.store(decay * FloatLanes.load(delayWeight + k), delayWeight + k)
            k += 8
        }
        if event >= 0 {
            let eventDelay = gridDelays[event], gridStride = Self.gridStride
            for i in 0..<onsetCount {
                let k = Int(onsetBins[i])
                let agreement = unitRe[k] * gridCos[k * gridStride + event] + unitIm[k] * gridSin[k * gridStride + event]
                guard agreement > 0 else { continue }
                let onset = onsetWeight[k], held = delayWeight[k]
                if onset >= held {
                    delayHeld[k] = eventDelay
                    delayWeight[k] = onset
                    heldPeak[k] = framePowerScratch[k]
                } else {
                    delayHeld[k] = (held * delayHeld[k] + onset * eventDelay) / (held + onset)
                    delayWeight[k] = held + onset
                }
                onsetWeight[k] = 0
            }
        }
        // Phase evidence, the ceilings, and each bin's direction and held delay into the ring.
        let ceiling = V(repeating: Self.evidenceCeiling), current = V(repeating: Self.currentPhaseWeight)
        let none = V(repeating: .nan), release = V(repeating: Self.releaseShare)
        let dirRe = directionRe + ringHead * stride, dirIm = directionIm + ringHead * stride
        let held = heldDelays + ringHead * stride
        k = 0
        while k < stride {
            let power = FloatLanes.load(framePowerScratch + k), onset = FloatLanes.load(onsetWeight + k)
            let ux = FloatLanes.load(unitRe + k), uy = FloatLanes.load(unitIm + k)
            var hx = decay * FloatLanes.load(phaseRe + k) + onset * ux
            var hy = decay * FloatLanes.load(phaseIm + k) + onset * uy
            var hw = decay * FloatLanes.load(phaseWeight + k) + onset
            let cap = ceiling * power
            let over = hw .> cap
            let scale = (cap / hw).replacing(with: 1, where: .!over)
            hx *= scale; hy *= scale
            hw.replace(with: cap, where: over)
            var dw = FloatLanes.min(FloatLanes.load(delayWeight + k), cap)
            // Released when the power has fallen far below its peak since the delay was taken.
            var peak = FloatLanes.max(FloatLanes.load(heldPeak + k), power)
            let released = power .< release * peak
            dw.replace(with: 0, where: released)
            peak.replace(with: 0, where: released)
            FloatLanes.store(hx, phaseRe + k); FloatLanes.store(hy, phaseIm + k); FloatLanes.store(hw, phaseWeight + k)
            FloatLanes.store(dw, delayWeight + k)
            FloatLanes.store(peak, heldPeak + k)
            let dx = hx + current * power * ux, dy = hy + current * power * uy
            let dn = (dx * dx + dy * dy).squareRoot()
            let inverse = (one / dn).replacing(with: 0, where: .!(dn .> zero))
            FloatLanes.store(dx * inverse, dirRe + k)
            FloatLanes.store(dy * inverse, dirIm + k)
            FloatLanes.store(FloatLanes.load(delayHeld + k).replacing(with: none, where: .!((dw .> zero) .& (dw .>= dn))), held + k)
            k += 8
        }
        ringHead = (ringHead + 1) % Self.frames
        framesStored = min(framesStored + 1, Self.frames)
    }
}
