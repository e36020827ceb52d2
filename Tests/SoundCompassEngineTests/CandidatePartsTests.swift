import Foundation
import Testing
@testable import SoundCompassEngine

/// The parts of ``SourceCandidateFinder`` on their own, without a finder: each owns its state
/// and gives back values (Docs/Pipeline.md, "Where the code lives").
@Suite("Source candidate finder's parts")
struct CandidatePartsTests {
    @Test("LagPeakSearch: the strongest peak first, each taken one keeps the next at its separation")
    func peakSearch() {
        // 31 values (lags −15…15): a peak of 1.0 at lag −5 and one of 0.6 at lag +5, each with
        // equal neighbours (so the parabola moves neither), on a floor of 0.1.
        let search = LagPeakSearch(searchLag: 15, separation: 2.5, maxLag: 14)
        // The physical window and half a sample, within the searched one.
        #expect(search.limit == 14.5 && LagPeakSearch(searchLag: 15, separation: 2.5, maxLag: 15).limit == 15)
        var y = [Float](repeating: 0.1, count: 31)
        y[9] = 0.5; y[10] = 1.0; y[11] = 0.5
        y[19] = 0.3; y[20] = 0.6; y[21] = 0.3
        y.withUnsafeBufferPointer { p in
            let y = p.baseAddress!
            let first = search.strongestSeparatedPeak(in: y, floor: 0.2, limit: 15, taken: [], takenCount: 0)
            #expect(first?.index == 10 && first?.lag == -5 && first?.height == 1.0, "\(String(describing: first))")
            let second = search.strongestSeparatedPeak(in: y, floor: 0.2, limit: 15, taken: [-5], takenCount: 1)
            #expect(second?.index == 20 && second?.lag == 5 && second?.height == Double(Float(0.6)), "\(String(describing: second))")
            // Both taken: nothing left above the floor; a peak within the separation of a taken lag is not taken.
            #expect(search.strongestSeparatedPeak(in: y, floor: 0.2, limit: 15, taken: [-5, 5], takenCount: 2) == nil)
            #expect(search.strongestSeparatedPeak(in: y, floor: 0.2, limit: 15, taken: [-3.0], takenCount: 1)?.index == 20)
            // Outside the limit, no peak: the one at −5 is beyond |lag| ≤ 4.
            #expect(search.strongestSeparatedPeak(in: y, floor: 0.2, limit: 4, taken: [], takenCount: 0) == nil)
            // The highest peak stands out by its height over the lowest point.
            #expect(abs(search.prominence(at: 10, in: y) - 0.9) < 1e-6)
        }
    }

    @Test("HeardDirectSounds: a lag within 1.5 samples is one sound; a sound is forgotten a second after it was last heard; the least lately heard gives way")
    func heardDirectSounds() {
        // 20 ms hops: a second is 50 frames.
        var heard = HeardDirectSounds(hopDuration: 0.02)
        heard.advance()
        heard.remember(lag: 4.0, steady: true)
        heard.remember(lag: -3.0, steady: false)
        heard.remember(lag: 4.8, steady: false)  // the sound at 4.0, moved, no longer steady
        #expect(heard.count == 2)
        #expect((0..<heard.count).map { heard.lag($0) }.sorted() == [-3.0, 4.8])
        #expect((0..<heard.count).allSatisfy { !heard.isSteady($0) })
        // −3 is heard again 30 frames on; 4.8 is not.
        for _ in 0..<30 { heard.advance() }
        heard.remember(lag: -3.2, steady: true)
        for _ in 0..<20 { heard.advance() }
        #expect(heard.count == 2, "50 frames after: both still remembered")
        heard.advance()
        #expect(heard.count == 1 && heard.lag(0) == -3.2 && heard.isSteady(0), "51 frames after 4.8 was last heard, it is forgotten")
        // Full: the new sound takes the place of the one heard least lately (−3.2, 21 frames ago).
        for k in 0..<HeardDirectSounds.capacity - 1 { heard.remember(lag: Double(10 + 2 * k), steady: false) }
        #expect(heard.count == HeardDirectSounds.capacity)
        heard.remember(lag: -8, steady: false)
        let lags = (0..<heard.count).map { heard.lag($0) }
        #expect(heard.count == HeardDirectSounds.capacity && lags.contains(-8) && !lags.contains(-3.2), "\(lags)")
        heard.reset()
        #expect(heard.count == 0)
    }

    @Test("PointSpread: its peak is the grouped weights' sum; two samples away it is below a fifth of it")
    func pointSpread() {
        let n = 512, searchLag = 8
        let spread = PointSpread(fftSize: n, searchLag: searchLag)
        // A whitened cross-spectrum with every bin at magnitude 1 (interleaved re, im).
        var g = [Float](repeating: 0, count: n + 2)
        for k in 0...(n / 2) { g[2 * k] = 1 }
        let sum = g.withUnsafeBufferPointer { spread.average($0.baseAddress!, counts: true, weight: 1, smoothing: 1) }
        #expect(sum == Float(n / 2 - 1), "Σ|G| over bins 1 ..< n/2")
        // After one frame at smoothing 1 each bin's weight is 1/Σ|G|: the peak is the mean of
        // the smoothing's factor (1 + cos ω)/2 over those bins, about 1/2.
        let peak = spread.measurePeak()
        var expected = 0.0
        for k in 1..<(n / 2) { expected += 0.5 * (1 + cos(2 * Double.pi * Double(k) / Double(n))) / Double(n / 2 - 1) }
        #expect(abs(peak - expected) < 1e-4, "peak \(peak), expected \(expected)")
        #expect(spread.peak == peak && spread.mainLobeShare(0) == 1)
        // A flat spectrum's point spread is narrow: two samples away it is a small share of the peak.
        #expect(spread.mainLobeShare(2) < 0.2, "\(spread.mainLobeShare(2))")
        // A frame that does not count adds nothing and returns 0; reset forgets the weights.
        #expect(g.withUnsafeBufferPointer { spread.average($0.baseAddress!, counts: false, weight: 1, smoothing: 0.5) } == 0)
        spread.reset()
        #expect(spread.measurePeak() == 0)
    }

    @Test("CoincidentAngleSearch: the pseudo-angle and its inverse agree on the whole circle")
    func diamondAngles() {
        for degrees in stride(from: -179.0, through: 180, by: 7) {
            let theta = degrees * Double.pi / 180
            let p = CoincidentAngleSearch.diamondAngle(x: Float(cos(theta)), y: Float(sin(theta)))
            #expect(p >= 0 && p < 4, "\(degrees)°: \(p)")
            let back = CoincidentAngleSearch.angle(diamond: Double(p))
            var error = abs(back - theta)
            error = min(error, 2 * Double.pi - error)
            #expect(error < 1e-5, "\(degrees)°: \(back) rad")
        }
    }
}
