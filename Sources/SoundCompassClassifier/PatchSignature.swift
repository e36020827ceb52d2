/// What a patch sounds like, in few numbers: per mel band, the mean and the standard deviation
/// over the patch's frames of its log-mel values (its spectrum, and how much each band moves).
/// ``SourceLabeler`` compares a track's new patch with the last one it classified, and does not
/// classify again a sound that has not changed (``distance(_:_:)`` under
/// ``unchangedDistance``): the forward pass is most of the classifier's cost, and the same sound
/// gives the same scores.
enum PatchSignature {
    /// Floats in a signature: a mean and a deviation per mel band.
    static let count = 2 * YAMNet.melBands

    /// Patches whose signatures are nearer than this (root mean square over the signature, in
    /// natural-log units of mel power: 0.35 is 1.5 dB) are the same sound. Measured on
    /// `Benchmarks/accuracy/labels_real.py`'s real recordings (Docs/Classification.md, "A label
    /// refreshed when its sound changes").
    static let unchangedDistance: Float = 0.35

    /// The signature of a patch of `frames × melBands` log-mel values into `signature`
    /// (``count`` floats).
    static func compute(patch: UnsafePointer<Float>, frames: Int, into signature: UnsafeMutablePointer<Float>) {
        let bands = YAMNet.melBands
        let mean = signature, deviation = signature + bands
        mean.update(repeating: 0, count: bands)
        deviation.update(repeating: 0, count: bands)
        for f in 0..<frames {
            let row = patch + f * bands
            for b in 0..<bands { mean[b] += row[b] }
        }
        let scale = 1 / Float(frames)
        for b in 0..<bands { mean[b] *= scale }
        for f in 0..<frames {
            let row = patch + f * bands
            for b in 0..<bands {
                let d = row[b] - mean[b]
                deviation[b] += d * d
            }
        }
        for b in 0..<bands { deviation[b] = (deviation[b] * scale).squareRoot() }
    }

    /// The root mean square difference of two signatures (natural-log units).
    static func distance(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>) -> Float {
        var sum: Float = 0
        for i in 0..<count {
            let d = a[i] - b[i]
            sum += d * d
        }
        return (sum / Float(count)).squareRoot()
    }
}
