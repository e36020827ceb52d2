/// The lags of the direct sounds heard lately: candidates that no test took for a copy of
/// another (nor for an echo), remembered for ``memorySeconds`` after their peak last stood
/// among the candidates. A component of ``SourceCandidateFinder`` that owns its entries.
///
/// A source's peak leaves the 0.3 s average while its reflections can still stand there: a
/// steady noise's floor and ceiling images, which arrive together from one bearing, outgrow
/// it for a while; a talker's peak goes in its pauses, or under a louder talker. With the
/// source's peak gone there is no pair among the candidates for ``ReflectionImageTest`` to
/// judge, and the reflection was listed as a source of its own. The finder judges such a
/// candidate against the sounds remembered here
/// (``ReflectionImageTest/isLaterCopy(lag:of:least:)``): the image average, whose cross terms
/// the test reads, remembers a second.
///
/// Only steady candidates are judged so, against steady sounds (a fan's, a television's floor
/// and ceiling images), as the pairwise test judges pairs alike in new sound. With every
/// candidate judged, the two-talker scenes of `evaluate.py --multi` kept their false sources
/// (the ripples did not tell a talker's reflections) and the siren beside a talker in
/// `SourceLabelTests`' second synthetic room lost its track: 2 of its patches labelled
/// instead of 21.
///
/// Life cycle: `init` allocates; nothing else does.
package struct HeardDirectSounds {
    /// How long a direct sound is remembered after its peak last stood among the candidates,
    /// seconds: the image average's window (``ReflectionImageTest``), over which its cross
    /// terms fade.
    package static let memorySeconds = 1.0
    /// Most direct sounds remembered at once (the one heard least lately gives way).
    package static let capacity = 8
    /// Two lags closer than this are one sound, samples.
    package static let mergeSamples = 1.5

    /// The remembered lags, samples; the first ``count`` are valid.
    private var lags: [Double]
    /// The frame each was last heard in (see ``advance()``).
    private var lastFrames: [Int]
    /// Whether each held little new sound when last heard (a steady source).
    private var steady: [Bool]
    /// Valid entries.
    package private(set) var count = 0
    /// Frames seen.
    private var frame = 0
    /// Frames a sound is remembered (``memorySeconds``).
    private let memoryFrames: Int

    /// - Parameter hopDuration: time between frames, seconds.
    package init(hopDuration: Double) {
        lags = [Double](repeating: 0, count: Self.capacity)
        lastFrames = [Int](repeating: 0, count: Self.capacity)
        steady = [Bool](repeating: false, count: Self.capacity)
        memoryFrames = max(1, Int((Self.memorySeconds / hopDuration).rounded()))
    }

    /// Forgets every sound.
    package mutating func reset() {
        count = 0
        frame = 0
    }

    /// The next frame: forgets the sounds last heard more than ``memorySeconds`` ago.
    package mutating func advance() {
        frame += 1
        var k = 0
        while k < count {
            if frame - lastFrames[k] > memoryFrames {
                lags[k] = lags[count - 1]
                lastFrames[k] = lastFrames[count - 1]
                steady[k] = steady[count - 1]
                count -= 1
            } else {
                k += 1
            }
        }
    }

    /// The lag of remembered sound `k` (0 ..< ``count``), samples.
    package func lag(_ k: Int) -> Double { lags[k] }

    /// Whether remembered sound `k` held little new sound when last heard.
    package func isSteady(_ k: Int) -> Bool { steady[k] }

    /// Remembers a direct sound at `lag` samples in this frame, `steady` when it holds little
    /// new sound: the entry within ``mergeSamples`` moves there, or a new one is made.
    package mutating func remember(lag: Double, steady isSteady: Bool) {
        for k in 0..<count where abs(lags[k] - lag) < Self.mergeSamples {
            lags[k] = lag
            lastFrames[k] = frame
            steady[k] = isSteady
            return
        }
        var k = count
        if count == Self.capacity {
            k = 0
            for m in 1..<count where lastFrames[m] < lastFrames[k] { k = m }
        } else {
            count += 1
        }
        lags[k] = lag
        lastFrames[k] = frame
        steady[k] = isSteady
    }
}
