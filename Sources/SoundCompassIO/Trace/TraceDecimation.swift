import SoundCompassEngine

/// One line of a trace kept per time bucket as its first, lowest, highest and last finite
/// value in time order (the M4 method) and where it broke off (a NaN lifts the pen): drawn
/// per pixel column, that is what the full line would draw as long as a column holds several
/// buckets.
struct DecimatedSeries {
    struct Bucket {
        var first = Float.nan, low = Float.nan, high = Float.nan, last = Float.nan
        /// The lowest value came before the highest.
        var lowFirst = false
        /// A NaN came before the first finite value (all NaN: only this).
        var leadingGap = false
        /// A NaN came after the last finite value.
        var trailingGap = false

        var hasValue: Bool { first.isFinite }

        mutating func add(_ value: Float) {
            guard value.isFinite else {
                if hasValue { trailingGap = true } else { leadingGap = true }
                return
            }
            if !hasValue {
                first = value; low = value; high = value
            } else {
                if value < low { low = value; lowFirst = false }
                if value > high { high = value; lowFirst = true }
            }
            last = value
            trailingGap = false  // a gap inside the bucket is narrower than a pixel
        }

        /// `a` followed by `b`.
        static func merged(_ a: Bucket, _ b: Bucket) -> Bucket {
            if !a.hasValue {
                var r = b
                r.leadingGap = a.leadingGap || b.leadingGap
                return r
            }
            if !b.hasValue {
                var r = a
                if b.leadingGap { r.trailingGap = true }
                return r
            }
            var r = a
            r.last = b.last
            let lowFromB = b.low < a.low, highFromB = b.high > a.high
            if lowFromB { r.low = b.low }
            if highFromB { r.high = b.high }
            r.lowFirst = switch (lowFromB, highFromB) {
            case (false, false): a.lowFirst
            case (true, true): b.lowFirst
            case (false, true): true
            case (true, false): false
            }
            r.trailingGap = b.trailingGap
            return r
        }
    }

    var buckets: [Bucket]

    init(count: Int) { buckets = [Bucket](repeating: Bucket(), count: count) }

    /// The values of bucket `i` in drawing order, NaN for a break.
    func forEachValue(in i: Int, _ body: (Float) -> Void) {
        let b = buckets[i]
        if b.leadingGap { body(.nan) }
        guard b.hasValue else { return }
        body(b.first)
        if b.lowFirst { body(b.low); body(b.high) } else { body(b.high); body(b.low) }
        body(b.last)
        if b.trailingGap { body(.nan) }
    }
}

/// What a trace plot draws of a recording of any length, in memory that does not grow with
/// it: the frames fall into at most ``bucketLimit`` time buckets, whose width doubles (pairs
/// merge) whenever the recording outgrows them; each bucket keeps the M4 points of every
/// line, its activity, the front/back counts and the best confidence per degree of azimuth
/// for the dots.
struct TraceDecimation {
    /// Buckets kept at most: 4096–8192 in use, four or more per column of a 1200-pixel plot.
    static let bucketLimit = 8192
    /// Azimuth bins of the dots: one per degree, −180…180.
    static let azimuthBins = 361

    /// Width of a bucket, seconds (doubles as the recording grows).
    private(set) var width = 1.0 / 64
    /// Buckets in use: 0..<used.
    private(set) var used = 0
    /// Time of the first and last frame in each bucket, seconds (NaN when empty).
    var firstTime: [Float]
    var lastTime: [Float]
    /// Time of the first and last active frame in each bucket (NaN when none).
    var firstActive: [Float]
    var lastActive: [Float]
    /// Frames per bucket that were front, back, unknown.
    var hemisphereCounts: [(front: UInt32, back: UInt32, unknown: UInt32)]
    /// Per bucket and degree of raw azimuth: 0 for no active frame, else 1 + 254 × the best confidence.
    var dots: [UInt8]
    var azimuth, tracked, ild, itd, level, noiseFloor, yaw, truth, error: DecimatedSeries
    var bands: [DecimatedSeries]
    /// The tracked sources heard in each bucket: id and mean azimuth, a few per bucket.
    var sources: SourceTrackBuckets

    init(bandCount: Int) {
        let n = Self.bucketLimit
        firstTime = [Float](repeating: .nan, count: n)
        lastTime = firstTime
        firstActive = firstTime
        lastActive = firstTime
        hemisphereCounts = Array(repeating: (0, 0, 0), count: n)
        dots = [UInt8](repeating: 0, count: n * Self.azimuthBins)
        azimuth = DecimatedSeries(count: n)
        tracked = azimuth; ild = azimuth; itd = azimuth; level = azimuth; noiseFloor = azimuth
        yaw = azimuth; truth = azimuth; error = azimuth
        bands = Array(repeating: azimuth, count: bandCount)
        sources = SourceTrackBuckets(bucketCount: n)
    }

    /// The bucket of time `t`, seconds, making room by doubling the width when needed.
    mutating func bucket(for t: Double) -> Int {
        var i = Int(max(0, t) / width)
        while i >= Self.bucketLimit {
            coarsen()
            i = Int(max(0, t) / width)
        }
        used = max(used, i + 1)
        return i
    }

    /// The time a bucket's points are drawn at: halfway between its first and last frame.
    func time(of i: Int) -> Float { (firstTime[i] + lastTime[i]) / 2 }

    /// Halves the number of buckets: each new bucket is two old ones merged.
    private mutating func coarsen() {
        let n = Self.bucketLimit, half = n / 2, bins = Self.azimuthBins
        func mergeSeries(_ s: inout DecimatedSeries) {
            for i in 0..<half { s.buckets[i] = .merged(s.buckets[2 * i], s.buckets[2 * i + 1]) }
            for i in half..<n { s.buckets[i] = .init() }
        }
        func first(_ a: Float, _ b: Float) -> Float { a.isFinite ? a : b }
        for i in 0..<half {
            let a = 2 * i, b = 2 * i + 1
            firstTime[i] = first(firstTime[a], firstTime[b])
            lastTime[i] = first(lastTime[b], lastTime[a])
            firstActive[i] = first(firstActive[a], firstActive[b])
            lastActive[i] = first(lastActive[b], lastActive[a])
            let ha = hemisphereCounts[a], hb = hemisphereCounts[b]
            hemisphereCounts[i] = (ha.front + hb.front, ha.back + hb.back, ha.unknown + hb.unknown)
            for k in 0..<bins { dots[i * bins + k] = max(dots[a * bins + k], dots[b * bins + k]) }
            if sources.hasSources { sources.merge(a, b, into: i) }
        }
        for i in half..<n {
            firstTime[i] = .nan; lastTime[i] = .nan; firstActive[i] = .nan; lastActive[i] = .nan
            hemisphereCounts[i] = (0, 0, 0)
            if sources.hasSources { sources.clear(i) }
        }
        for k in (half * bins)..<(n * bins) { dots[k] = 0 }
        for s in [\TraceDecimation.azimuth, \.tracked, \.ild, \.itd, \.level, \.noiseFloor, \.yaw, \.truth, \.error] {
            mergeSeries(&self[keyPath: s])
        }
        for b in bands.indices { mergeSeries(&bands[b]) }
        width *= 2
        used = (used + 1) / 2
    }
}
