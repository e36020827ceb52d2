/// The excess average of ``SourceCandidateFinder``: the frames' correlations of the bins that hold
/// new sound, where a steady source (a fan, a television, traffic) is all but absent.
///
/// Each frame, the bins' powers feed a ``StationaryBinFloor``; the bins whose power in this frame
/// stands more than ``StationaryBinFloor/newSoundRatio`` times above their floor are kept, the
/// others zeroed, in the frame's weighted cross-spectrum `G` (the one behind the plain
/// correlation: phase transform and coherence weighting); it is transformed back and averaged
/// like the plain correlation (the same tail weight; the window of the plain average, at least
/// ``shortestWindowSeconds``), with the same normalisation `1/(2·Σ|G|)` of the whole frame, so a
/// source's height here is the share of the frame's weight that its new bins hold. The steady
/// source's bins sit at their floor and drop out; a talker's syllables lift theirs far above it.
///
/// Only every ``stride``-th bin is used, transformed at the reduced size `M = N/stride` (at least
/// 16 times the lag window's half-width, ``size(fftSize:searchLag:)``): the correlation is then
/// aliased in time by `M`, which only adds the correlation's background far outside the lag
/// window, for a quarter of a full-size inverse FFT at 48 kHz (half at 16 kHz).
///
/// Besides the average, it keeps ``share``, the averaged share of the frames' weight in the new
/// bins, and ``recentShare``, the same over the last ``recentWindowSeconds`` only (is new sound
/// arriving now, or is the average only the memory of it?), and each counted frame's excess
/// correlation in ``history`` (rows written where the finder writes its plain history), from
/// which ``SourceCandidateFinder`` measures the excess candidates' echoes.
///
/// Life cycle: `init` allocates (and plans its FFT size once);
/// ``update(spectra:magnitudes:weight:historyRow:)`` and ``decay()`` never allocate.
package final class ExcessAverage {
    /// Shortest averaging window, seconds: the average holds few bins, and a shorter window
    /// (`--source-window 0.1`) let a moving noise source's leaked bins read as ghosts.
    package static let shortestWindowSeconds = 0.3
    /// Window of ``recentShare``, seconds: a few hops.
    package static let recentWindowSeconds = 0.1

    /// The size `M` of the inverse FFT for an FFT size `n` and a lag window of half-width
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
    /// Share of the newest frame in the average and in ``share``: hop / max(window, shortest).
    let smoothing: Float
    /// Share of the newest frame in ``recentShare``.
    let recentSmoothing: Double
    /// The inverse FFT, size `M`.
    let fft: RealFFT
    /// Scratch: each used bin's new-sound mark (0 or 1), the frame's excess cross-spectrum
    /// (overwritten by the inverse FFT) and its correlation.
    let mask: AlignedFloats
    let spectrum: AlignedFloats
    let correlation: AlignedFloats
    /// The averaged excess correlation at lags `−searchLag…searchLag` (index `lag + searchLag`).
    package let average: AlignedFloats
    /// The average smoothed by [1 2 1]/4 and divided by ``share`` (see ``SourceCandidateFinder``),
    /// where its peaks are searched: filled by the finder.
    let smoothed: AlignedFloats
    /// Averaged share (like the average, tail-weighted) of the frames' weight `Σ|G|` in the bins
    /// that hold new sound, 0…1.
    package private(set) var share = 0.0
    /// The same share over the last ``recentWindowSeconds``.
    package private(set) var recentShare = 0.0
    /// The counted frames' excess correlations, one row of `2·searchLag + 1` each, in the rows
    /// of the finder's history ring.
    let history: AlignedFloats

    /// - Parameters:
    ///   - fftSize: the frames' FFT size `N`.
    ///   - searchLag: half-width of the lag window, whole samples.
    ///   - hopDuration: seconds between frames.
    ///   - windowSeconds: the plain average's window (``AnalysisConfiguration/sourceWindowSeconds``).
    ///   - historyRows: rows of the finder's history ring.
    package init(fftSize n: Int, searchLag: Int, hopDuration: Double, windowSeconds: Double, historyRows: Int) {
        let m = Self.size(fftSize: n, searchLag: searchLag)
        self.searchLag = searchLag
        self.stride = n / m
        self.fft = RealFFT(size: m)
        self.floor = StationaryBinFloor(binCount: m / 2 + 1, stride: n / m, hopDuration: hopDuration)
        self.smoothing = Float(min(1, hopDuration / max(windowSeconds, Self.shortestWindowSeconds)))
        self.recentSmoothing = min(1, hopDuration / Self.recentWindowSeconds)
        self.mask = AlignedFloats(count: m / 2 + 1)
        self.spectrum = AlignedFloats(count: 2 * (m / 2 + 1))
        self.correlation = AlignedFloats(count: m)
        self.average = AlignedFloats(count: 2 * searchLag + 1)
        self.smoothed = AlignedFloats(count: 2 * searchLag + 1)
        self.history = AlignedFloats(count: historyRows * (2 * searchLag + 1))
    }

    /// Forgets the floors and the average.
    package func reset() {
        floor.reset()
        average.zero()
        share = 0
        recentShare = 0
    }

    /// A frame that does not count (below the gate, no correlation): the average and the shares
    /// decay, the floors are left alone.
    package func decay() {
        let a = smoothing
        let avg = average.baseAddress
        for i in 0...(2 * searchLag) { avg[i] -= a * avg[i] }
        share -= Double(a) * share
        recentShare -= recentSmoothing * recentShare
    }

    /// Adds a counted frame: updates the floors, marks the new bins, and averages the correlation
    /// of the frame's weighted cross-spectrum in those bins.
    /// - Parameters:
    ///   - spectra: the frame's spectra (its weighted cross-spectrum `whitened`).
    ///   - magnitudes: `|G[k]|` of bins `1 ..< N/2` of this frame.
    ///   - weight: the frame's tail weight, 0…1.
    ///   - historyRow: the row of ``history`` to write this frame's excess correlation into.
    package func update(spectra: FrameSpectra, magnitudes: UnsafePointer<Float>, weight w: Float, historyRow: Int) {
        let K = searchLag, a = smoothing
        let row = history.baseAddress + historyRow * (2 * K + 1)
        floor.update(spectra: spectra)
        let marks = mask.baseAddress, x = spectrum.baseAddress, g = spectra.whitened
        floor.markNewSound(spectra: spectra, into: marks)
        // Every `stride`-th bin k = j·stride, j = 0…M/2, into an M-point spectrum.
        let m = fft.size
        var newWeight: Float = 0, sampledWeight: Float = 0
        for j in 0...(m / 2) {
            let k = j * stride
            x[2 * j] = g[2 * k] * marks[j]
            x[2 * j + 1] = g[2 * k + 1] * marks[j]
            if j > 0 && j < m / 2 {
                newWeight += magnitudes[k] * marks[j]
                sampledWeight += magnitudes[k]
            }
        }
        guard sampledWeight > 0, sampledWeight.isFinite else {
            row.update(repeating: 0, count: 2 * K + 1)
            decay()
            return
        }
        let frameShare = Double(w * newWeight / sampledWeight)
        share += Double(a) * (frameShare - share)
        recentShare += recentSmoothing * (frameShare - recentShare)
        fft.inverse(x, correlation.baseAddress)
        let c = correlation.baseAddress, avg = average.baseAddress
        let scale = 1 / (2 * sampledWeight)
        // Lags −K…−1 sit at the end of the circular correlation, 0…K at its start. The history
        // keeps the frame's own values, as the plain history does; the average takes them times
        // the frame's tail weight.
        for i in 0...(2 * K) {
            let v = scale * (i < K ? c[m - K + i] : c[i - K])
            avg[i] += a * (w * v - avg[i])
            row[i] = v
        }
    }
}
