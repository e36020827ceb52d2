/// The excess averages of ``SourceCandidateFinder``: the frames' correlations of the bins that
/// hold new sound, where a steady source (a fan, a television, traffic) is all but absent.
///
/// Each frame, the bins' powers feed a ``StationaryBinFloor``, which marks the bins of **new
/// sound** (more than ``StationaryBinFloor/newSoundRatio`` times their floor) and the **onsets**
/// among them (bins that have just risen). The frame's weighted cross-spectrum `G` (the one
/// behind the plain correlation: phase transform and coherence weighting) is kept in the marked
/// bins and zeroed elsewhere, transformed back, and averaged like the plain correlation (the
/// same tail weight; the plain average's window, at least ``shortestWindowSeconds``), with the
/// same normalisation `1/(2·Σ|G|)` of the whole frame, so a source's height is the share of the
/// frame's weight that its marked bins hold. Two averages are kept:
/// - ``onsetAverage``, of the onsets: where the candidates are searched. A talker's syllables
///   lift their bins far above the floor, and at their onsets the bins hold the direct sound
///   more than the room's; the steady source's bins sit at their floor and drop out;
/// - ``newSoundAverage``, of all new bins: the steady test. A plain candidate that holds little
///   new sound is a steady source; a talker holds much, whether or not its bins are onsets.
///
/// Only every ``stride``-th bin is used, transformed at the reduced size `M = N/stride` (at least
/// 16 times the lag window's half-width, ``size(fftSize:searchLag:)``): the correlation is then
/// aliased in time by `M`, which only adds the correlation's background far outside the lag
/// window, for two inverse FFTs of a quarter of the frame's size at 48 kHz (half at 16 kHz).
///
/// Besides the averages, it keeps the averaged shares of the frames' weight in the new bins
/// (``newSoundShare``, and ``recentNewSoundShare`` over the last ``recentWindowSeconds`` only:
/// is new sound arriving now, or is the average only the memory of it?), in the onsets
/// (``onsetShare``) and below 8 kHz (``bearingBandShare``), and each counted frame's onset
/// correlation in ``onsetHistory`` (rows written where the finder writes its plain history),
/// from which ``SourceCandidateFinder`` measures the excess candidates' echoes.
///
/// Life cycle: `init` allocates (and plans its FFT size once);
/// ``update(spectra:magnitudes:weight:historyRow:)`` and ``decay()`` never allocate.
package final class ExcessAverage {
    /// Shortest averaging window, seconds: the averages hold few bins, and a shorter window
    /// (`--source-window 0.1`) let a moving noise source's leaked bins read as ghosts.
    package static let shortestWindowSeconds = 0.3
    /// Window of ``recentNewSoundShare``, seconds: a few hops.
    package static let recentWindowSeconds = 0.1

    /// The size `M` of the inverse FFTs for an FFT size `n` and a lag window of half-width
    /// `searchLag`: the smallest power of two ≥ 16·searchLag (and ≥ 64), at most `n`.
    package static func size(fftSize n: Int, searchLag: Int) -> Int {
        var m = 64
        while m < 16 * searchLag { m <<= 1 }
        return min(m, n)
    }

    /// Half-width of the averaged lag window, whole samples.
    package let searchLag: Int
    /// Every `stride`-th bin of the frame's spectra is used.
    package let stride: Int
    /// The stationary floor of each bin used.
    let floor: StationaryBinFloor
    /// Share of the newest frame in the averages and the shares: hop / max(window, shortest).
    let smoothing: Float
    /// Share of the newest frame in ``recentNewSoundShare``.
    let recentSmoothing: Double
    /// The inverse FFT, size `M`.
    let fft: RealFFT
    /// Scratch: each used bin's marks (0 or 1), the frame's cross-spectra in those bins
    /// (overwritten by the inverse FFT) and a correlation.
    let newSoundMarks: AlignedFloats
    let onsetMarks: AlignedFloats
    let newSoundSpectrum: AlignedFloats
    let onsetSpectrum: AlignedFloats
    let correlation: AlignedFloats
    /// The averaged correlation of the onsets at lags `−searchLag…searchLag` (index
    /// `lag + searchLag`).
    package let onsetAverage: AlignedFloats
    /// The averaged correlation of all new bins, at the same lags.
    package let newSoundAverage: AlignedFloats
    /// The onset correlation averaged over ``shortestWindowSeconds`` whatever the source window:
    /// where the broadband tracker's ``OnsetBearing`` is read, so that `--source-window` moves
    /// only the sources. With the default window it is ``onsetAverage`` itself.
    package let bearingAverage: AlignedFloats
    /// Share of the newest frame in ``bearingAverage``.
    let bearingSmoothing: Float
    /// Whether the bearing's averages are their own (a source window longer than
    /// ``shortestWindowSeconds``), not the onset average and its shares.
    private let bearingHasOwnWindow: Bool
    /// Scratch of the finder: the onset average smoothed by [1 2 1]/4 per unit of ``onsetShare``,
    /// where its peaks are searched.
    let smoothed: AlignedFloats
    /// Averaged share (like the averages, tail-weighted) of the frames' weight `Σ|G|` in the
    /// bins of new sound, 0…1.
    package private(set) var newSoundShare = 0.0
    /// The same share over the last ``recentWindowSeconds``.
    package private(set) var recentNewSoundShare = 0.0
    /// Averaged share of the frames' weight in the onsets, 0…1.
    package private(set) var onsetShare = 0.0
    /// ``newSoundShare`` and ``onsetShare`` averaged like ``bearingAverage`` (over
    /// ``shortestWindowSeconds`` whatever the source window).
    package var bearingNewSoundShare: Double { bearingHasOwnWindow ? ownBearingNewSoundShare : newSoundShare }
    package var bearingOnsetShare: Double { bearingHasOwnWindow ? ownBearingOnsetShare : onsetShare }
    private var ownBearingNewSoundShare = 0.0, ownBearingOnsetShare = 0.0
    /// Averaged share (over ``shortestWindowSeconds``, not tail-weighted) of the frames' weight
    /// `Σ|G|` in the bins at or below ``OnsetBearing/bandHertz``, 0…1: exactly 1 at 16 kHz and
    /// below, about a third at 48 kHz. ``OnsetBearing`` reads its heights and shares per unit of
    /// it.
    package private(set) var bearingBandShare: Float = 1
    /// The last used bin `j` (of `0…M/2`) at or below ``OnsetBearing/bandHertz``.
    private let bandEnd: Int
    /// The counted frames' onset correlations (not tail-weighted), one row of
    /// `2·searchLag + 1` each, in the rows of the finder's history ring.
    let onsetHistory: AlignedFloats
    /// The onset average just outside the lag window, ``interpolationTaps`` lags on each side:
    /// lags `−searchLag − P … −searchLag − 1` at indices `0 ..< P`, `searchLag + 1 … searchLag + P`
    /// at `P ..< 2P` (`P` = ``interpolationTaps``), averaged as ``onsetAverage`` is. The
    /// interpolation between lags (``onsetAverage(atStep:)``) reads them near the window's edges.
    package let onsetFlanks: AlignedFloats
    /// Windowed-sinc kernels of ``onsetAverage(atStep:)``, one row of `2P` taps for each tenth of a
    /// sample, made once.
    let interpolationKernels: AlignedFloats

    /// - Parameters:
    ///   - fftSize: the frames' FFT size `N`.
    ///   - searchLag: half-width of the lag window, whole samples.
    ///   - sampleRate: Hz.
    ///   - hopDuration: seconds between frames.
    ///   - windowSeconds: the plain average's window (``SourceCandidateFinder/Configuration/sourceWindowSeconds``).
    ///   - historyRows: rows of the finder's history ring.
    package init(
        fftSize n: Int, searchLag: Int, sampleRate: Double, hopDuration: Double, windowSeconds: Double, historyRows: Int
    ) {
        let m = Self.size(fftSize: n, searchLag: searchLag)
        let lags = 2 * searchLag + 1
        self.searchLag = searchLag
        self.stride = n / m
        // Bin j·stride is at j·stride·fs/n Hz.
        let bandBin = Int((OnsetBearing.bandHertz * Double(n) / sampleRate).rounded(.down))
        self.bandEnd = min(m / 2 - 1, bandBin / (n / m))
        self.fft = RealFFT(size: m)
        self.floor = StationaryBinFloor(binCount: m / 2 + 1, stride: n / m, hopDuration: hopDuration)
        self.smoothing = Float(min(1, hopDuration / max(windowSeconds, Self.shortestWindowSeconds)))
        self.recentSmoothing = min(1, hopDuration / Self.recentWindowSeconds)
        self.newSoundMarks = AlignedFloats(count: m / 2 + 1)
        self.onsetMarks = AlignedFloats(count: m / 2 + 1)
        self.newSoundSpectrum = AlignedFloats(count: 2 * (m / 2 + 1))
        self.onsetSpectrum = AlignedFloats(count: 2 * (m / 2 + 1))
        self.correlation = AlignedFloats(count: m)
        self.onsetAverage = AlignedFloats(count: lags)
        self.newSoundAverage = AlignedFloats(count: lags)
        self.bearingSmoothing = Float(min(1, hopDuration / Self.shortestWindowSeconds))
        self.bearingHasOwnWindow = bearingSmoothing != smoothing
        self.bearingAverage = bearingHasOwnWindow ? AlignedFloats(count: lags) : onsetAverage
        self.smoothed = AlignedFloats(count: lags)
        self.onsetHistory = AlignedFloats(count: historyRows * lags)
        self.onsetFlanks = AlignedFloats(count: 2 * Self.interpolationTaps)
        self.interpolationKernels = Self.makeInterpolationKernels()
    }

    /// Forgets the floors and the averages.
    package func reset() {
        floor.reset()
        onsetAverage.zero()
        onsetFlanks.zero()
        newSoundAverage.zero()
        bearingAverage.zero()
        newSoundShare = 0
        recentNewSoundShare = 0
        onsetShare = 0
        ownBearingNewSoundShare = 0
        ownBearingOnsetShare = 0
        bearingBandShare = 1
    }

    /// A frame that does not count (below the gate, no correlation): the averages and the shares
    /// decay, the floors and ``bearingBandShare`` (a ratio of weights, not a weight) are left
    /// alone.
    package func decay() {
        let a = smoothing
        let onset = onsetAverage.baseAddress, new = newSoundAverage.baseAddress
        for i in 0...(2 * searchLag) {
            onset[i] -= a * onset[i]
            new[i] -= a * new[i]
        }
        let b = bearingSmoothing
        if bearingHasOwnWindow {
            let bearing = bearingAverage.baseAddress
            for i in 0...(2 * searchLag) { bearing[i] -= b * bearing[i] }
            ownBearingNewSoundShare -= Double(b) * ownBearingNewSoundShare
            ownBearingOnsetShare -= Double(b) * ownBearingOnsetShare
        }
        let flanks = onsetFlanks.baseAddress
        for i in 0..<(2 * Self.interpolationTaps) { flanks[i] -= a * flanks[i] }
        newSoundShare -= Double(a) * newSoundShare
        onsetShare -= Double(a) * onsetShare
        recentNewSoundShare -= recentSmoothing * recentNewSoundShare
    }

    /// Adds a counted frame: updates the floors, marks the new bins and the onsets, and averages
    /// the correlations of the frame's weighted cross-spectrum in those bins.
    /// - Parameters:
    ///   - spectra: the frame's spectra (its weighted cross-spectrum `whitened`).
    ///   - magnitudes: `|G[k]|` of bins `1 ..< N/2` of this frame.
    ///   - weight: the frame's tail weight, 0…1.
    ///   - historyRow: the row of ``onsetHistory`` to write this frame's onset correlation into.
    package func update(spectra: FrameSpectra, magnitudes: UnsafePointer<Float>, weight w: Float, historyRow: Int) {
        let K = searchLag
        let row = onsetHistory.baseAddress + historyRow * (2 * K + 1)
        let new = newSoundMarks.baseAddress, onsets = onsetMarks.baseAddress
        floor.update(spectra: spectra, newSound: new, onsets: onsets)
        // Every `stride`-th bin k = j·stride, j = 0…M/2, into M-point spectra.
        let xn = newSoundSpectrum.baseAddress, xo = onsetSpectrum.baseAddress, g = spectra.whitened
        let m = fft.size
        var newWeight: Float = 0, onsetWeight: Float = 0, sampledWeight: Float = 0, bandWeight: Float = 0
        for j in 0...(m / 2) {
            let k = j * stride
            let re = g[2 * k], im = g[2 * k + 1]
            xn[2 * j] = re * new[j]
            xn[2 * j + 1] = im * new[j]
            xo[2 * j] = re * onsets[j]
            xo[2 * j + 1] = im * onsets[j]
            if j > 0 && j < m / 2 {
                newWeight += magnitudes[k] * new[j]
                onsetWeight += magnitudes[k] * onsets[j]
                sampledWeight += magnitudes[k]
                if j == bandEnd { bandWeight = sampledWeight }
            }
        }
        guard sampledWeight > 0, sampledWeight.isFinite else {
            row.update(repeating: 0, count: 2 * K + 1)
            decay()
            return
        }
        let a = smoothing
        let newShare = Double(w * newWeight / sampledWeight)
        newSoundShare += Double(a) * (newShare - newSoundShare)
        recentNewSoundShare += recentSmoothing * (newShare - recentNewSoundShare)
        onsetShare += Double(a) * (Double(w * onsetWeight / sampledWeight) - onsetShare)
        let b = bearingSmoothing
        bearingBandShare += b * (bandWeight / sampledWeight - bearingBandShare)
        if bearingHasOwnWindow {
            ownBearingNewSoundShare += Double(b) * (newShare - ownBearingNewSoundShare)
            ownBearingOnsetShare += Double(b) * (Double(w * onsetWeight / sampledWeight) - ownBearingOnsetShare)
        }
        // Lags −K…−1 sit at the end of the circular correlation, 0…K at its start. The history
        // keeps the frame's own values, as the plain history does; the averages take them times
        // the frame's tail weight.
        let c = correlation.baseAddress, scale = 1 / (2 * sampledWeight)
        // The correlation at `lag` (−M/2 < lag < M/2), scaled.
        @inline(__always) func value(atLag lag: Int) -> Float { scale * (lag < 0 ? c[m + lag] : c[lag]) }
        fft.inverse(xn, c)
        let newAverage = newSoundAverage.baseAddress
        for i in 0...(2 * K) { newAverage[i] += a * (w * value(atLag: i - K) - newAverage[i]) }
        fft.inverse(xo, c)
        let onsetAverage = onsetAverage.baseAddress, bearing = bearingAverage.baseAddress
        for i in 0...(2 * K) {
            let v = value(atLag: i - K)
            onsetAverage[i] += a * (w * v - onsetAverage[i])
            if bearingHasOwnWindow { bearing[i] += b * (w * v - bearing[i]) }
            row[i] = v
        }
        let P = Self.interpolationTaps, flanks = onsetFlanks.baseAddress
        for i in 0..<P {
            flanks[i] += a * (w * value(atLag: -K - P + i) - flanks[i])
            flanks[P + i] += a * (w * value(atLag: K + 1 + i) - flanks[P + i])
        }
    }
}
