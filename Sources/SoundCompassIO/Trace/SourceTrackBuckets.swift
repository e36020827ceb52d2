import SoundCompassEngine

/// The tracked sources of a trace (``AnalysisRecord/sources``), kept per time bucket of a
/// ``TraceDecimation`` in memory that does not grow with the recording: each bucket holds at
/// most ``slots`` sources, each as its id and its mean azimuth over the bucket's frames that
/// heard it. Buckets merge in pairs with the decimation's; a merged bucket that would hold more
/// than ``slots`` ids keeps those heard in the most frames (at a tie, the first listed).
struct SourceTrackBuckets {
    /// One source in one bucket.
    struct Slot: Equatable {
        /// The source's id; 0 for an empty slot.
        var id: Int32 = 0
        /// The first azimuth seen, degrees: the mean is kept as an offset from it, so that a
        /// source crossing ±180° averages across the wrap rather than to 0°.
        var reference: Float = 0
        /// Sum of the wrapped offsets from ``reference``, degrees.
        var offsetSum: Float = 0
        /// Frames averaged.
        var count: UInt32 = 0

        /// The mean azimuth, degrees (on (−180, 180]).
        var mean: Float {
            Float(YawTimeline.wrap(Double(reference) + Double(offsetSum) / Double(max(1, count))))
        }
    }

    /// Sources per bucket at most (the tracker's largest `--max-sources`).
    static let slots = AnalysisConfiguration.maximumSources
    /// `bucketCount × slots` slots, bucket-major.
    private(set) var storage: [Slot]
    /// True once any source was added.
    private(set) var hasSources = false

    init(bucketCount: Int) {
        storage = [Slot](repeating: Slot(), count: bucketCount * Self.slots)
    }

    /// Adds one frame's heard source to bucket `bucket` (ignored when the bucket is full).
    mutating func add(bucket: Int, id: Int, azimuth: Double) {
        guard azimuth.isFinite, id > 0 else { return }
        hasSources = true
        let base = bucket * Self.slots
        let id32 = Int32(clamping: id)
        for k in base..<(base + Self.slots) {
            if storage[k].id == id32 {
                storage[k].offsetSum += Float(YawTimeline.wrap(azimuth - Double(storage[k].reference)))
                storage[k].count += 1
                return
            }
            if storage[k].id == 0 {
                storage[k] = Slot(id: id32, reference: Float(azimuth), offsetSum: 0, count: 1)
                return
            }
        }
    }

    /// The sources of bucket `bucket`: the filled slots.
    func sources(in bucket: Int) -> ArraySlice<Slot> {
        let base = bucket * Self.slots
        var end = base
        while end < base + Self.slots && storage[end].id != 0 { end += 1 }
        return storage[base..<end]
    }

    /// The mean azimuth of source `id` in bucket `bucket`, or `nil` when it was not heard there.
    func azimuth(of id: Int32, in bucket: Int) -> Float? {
        sources(in: bucket).first { $0.id == id }?.mean
    }

    /// Bucket `i` becomes buckets `a` and `b` merged; `a` and `b` must be at or after `i`.
    mutating func merge(_ a: Int, _ b: Int, into i: Int) {
        var merged = Array(sources(in: a))
        for slot in sources(in: b) {
            if let k = merged.firstIndex(where: { $0.id == slot.id }) {
                let shift = Float(YawTimeline.wrap(Double(slot.reference) - Double(merged[k].reference)))
                merged[k].offsetSum += slot.offsetSum + shift * Float(slot.count)
                merged[k].count += slot.count
            } else {
                merged.append(slot)
            }
        }
        if merged.count > Self.slots {
            // Keep the sources heard most, in the order they came.
            let kept = Set(merged.indices.sorted { (merged[$0].count, -$0) > (merged[$1].count, -$1) }.prefix(Self.slots))
            merged = merged.indices.filter { kept.contains($0) }.map { merged[$0] }
        }
        clear(i)
        for (k, slot) in merged.enumerated() { storage[i * Self.slots + k] = slot }
    }

    /// Empties bucket `i`.
    mutating func clear(_ i: Int) {
        for k in (i * Self.slots)..<((i + 1) * Self.slots) { storage[k] = Slot() }
    }

    /// Every id heard, increasing.
    func ids(buckets: Int) -> [Int32] {
        var seen = Set<Int32>()
        for i in 0..<buckets { for slot in sources(in: i) { seen.insert(slot.id) } }
        return seen.sorted()
    }
}
