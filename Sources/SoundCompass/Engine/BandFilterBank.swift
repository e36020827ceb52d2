/// The per-band streams: each band's filter runs on both channels as the samples arrive, and
/// keeps a frame's worth of filtered samples aligned with the analyzer's frame buffers.
///
/// A band is a cookbook Butterworth high-pass (Q = 1/√2) at its lower edge followed by a
/// Butterworth low-pass at its upper edge: −3 dB at each edge of a wide band, unity in between,
/// and 12 dB per octave outside, twice the skirt of a single band-pass biquad, so that a loud
/// band does not leak into its neighbours' levels. A band whose upper edge is within 2 % of
/// Nyquist has no low-pass. Life cycle: `init` allocates; `filter`, `shift` and `levels` never
/// allocate.
final class BandFilterBank {
    struct Band {
        let spec: BandSpec
        var left: (highPass: Biquad, lowPass: Biquad)
        var right: (highPass: Biquad, lowPass: Biquad)
        let leftFrame: AlignedFloats
        let rightFrame: AlignedFloats
    }

    private(set) var bands: [Band]
    let frameLength: Int

    init(bands specs: [BandSpec], sampleRate: Double, frameLength: Int) {
        self.frameLength = frameLength
        self.bands = specs.map { spec in
            let highPass = Biquad(.highPass(cutoff: spec.low, sampleRate: sampleRate))
            let lowPass = Biquad(.lowPass(cutoff: min(spec.high, 0.49 * sampleRate), sampleRate: sampleRate))
            return Band(
                spec: spec, left: (highPass, lowPass), right: (highPass, lowPass),
                leftFrame: AlignedFloats(count: frameLength), rightFrame: AlignedFloats(count: frameLength))
        }
    }

    /// Filters `count` new samples that sit at `offset` in the analyzer's frame buffers.
    func filter(left: UnsafePointer<Float>, right: UnsafePointer<Float>, offset: Int, count: Int) {
        for i in bands.indices {
            let l = UnsafeMutableBufferPointer(start: bands[i].leftFrame.baseAddress + offset, count: count)
            let r = UnsafeMutableBufferPointer(start: bands[i].rightFrame.baseAddress + offset, count: count)
            bands[i].left.highPass.process(UnsafeBufferPointer(start: left, count: count), into: l)
            bands[i].left.lowPass.process(l)
            bands[i].right.highPass.process(UnsafeBufferPointer(start: right, count: count), into: r)
            bands[i].right.lowPass.process(r)
        }
    }

    /// Drops the first `hop` samples of every band frame, keeping `keep` samples.
    func shift(hop: Int, keep: Int) {
        guard keep > 0 else { return }
        for band in bands {
            band.leftFrame.baseAddress.update(from: band.leftFrame.baseAddress + hop, count: keep)
            band.rightFrame.baseAddress.update(from: band.rightFrame.baseAddress + hop, count: keep)
        }
    }

    /// RMS levels of band `index` over the current frame.
    func levels(_ index: Int) -> ChannelLevels {
        ChannelLevels(
            left: UnsafeBufferPointer(start: bands[index].leftFrame.baseAddress, count: frameLength),
            right: UnsafeBufferPointer(start: bands[index].rightFrame.baseAddress, count: frameLength),
            count: frameLength)
    }

    func reset() {
        for i in bands.indices {
            bands[i].left.highPass.reset()
            bands[i].left.lowPass.reset()
            bands[i].right.highPass.reset()
            bands[i].right.lowPass.reset()
            bands[i].leftFrame.zero()
            bands[i].rightFrame.zero()
        }
    }
}
