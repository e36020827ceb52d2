import CSoundCompass
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SoundCompass

/// The object behind an `sc_analyzer *`: a ``StreamingAnalyzer`` fed from a queue of written
/// samples, or from a sound file through an ``AnalysisSession``, read out a record at a time
/// into the caller's C structs. Everything it needs per frame is allocated when it is made (the
/// queue grows only when a write brings more samples than any write before).
final class ForeignAnalyzer {
    /// The analysis: its settings, its analyzer and, for a file analyzer, the file.
    let session: AnalysisSession
    /// The session's analyzer.
    var analyzer: StreamingAnalyzer { session.analyzer }
    /// True when the analyzer reads the session's file; false when it is fed by
    /// ``write(left:right:count:)`` (its session's source is empty).
    let readsFile: Bool
    /// Exchange left and right in ``write(left:right:count:)`` (`--swap`; a file's session
    /// swaps its own channels).
    private let swapsWritten: Bool
    /// The bands' names as C strings, in record order (freed in `deinit`).
    private let bandNames: [UnsafeMutablePointer<CChar>]
    /// The bands' edges, Hz, in record order.
    private let bandEdges: [(low: Double, high: Double)]

    /// Samples written or read and not yet analysed: `queueStart..<queueEnd` of each channel.
    private var queueLeft: UnsafeMutableBufferPointer<Float>
    private var queueRight: UnsafeMutableBufferPointer<Float>
    private var queueStart = 0
    private var queueEnd = 0
    /// The file has been read to its end.
    private var fileEnded = false

    /// The last failure's message ("" when none).
    let errorMessage = CString("")
    /// The warnings of ``finalWarnings()``.
    private let warningText = CString("")
    /// Warnings found while the session opened (a profile fitted at another rate, a band left out).
    private let openingWarnings: [String]

    /// Frames a file analyzer reads at a time: the command-line tool's block.
    static let fileBlockFrames = 4096

    /// - Parameters:
    ///   - session: the analysis.
    ///   - readsFile: read the session's source; otherwise samples come from ``write(left:right:count:)``.
    ///   - swapsWritten: exchange the written channels.
    ///   - openingWarnings: what opening the session warned about.
    init(session: AnalysisSession, readsFile: Bool, swapsWritten: Bool = false, openingWarnings: [String] = []) {
        self.session = session
        self.readsFile = readsFile
        self.swapsWritten = swapsWritten
        self.openingWarnings = openingWarnings
        (bandNames, bandEdges) = Self.bands(of: session.configuration)
        (queueLeft, queueRight) = Self.queue(
            capacity: readsFile ? Self.fileBlockFrames : 2 * session.configuration.frameLength)
    }

    deinit {
        for name in bandNames { name.deallocate() }
        queueLeft.deallocate()
        queueRight.deallocate()
    }

    private static func bands(of configuration: AnalysisConfiguration)
        -> ([UnsafeMutablePointer<CChar>], [(low: Double, high: Double)])
    {
        let bands = configuration.usableBands
        let names = bands.map { band in
            let utf8 = Array(band.name.utf8CString)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
            copy.initialize(from: utf8, count: utf8.count)
            return copy
        }
        return (names, bands.map { ($0.low, $0.high) })
    }

    private static func queue(capacity: Int) -> (UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>) {
        let left = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity)
        let right = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity)
        left.initialize(repeating: 0)
        right.initialize(repeating: 0)
        return (left, right)
    }

    // MARK: - Settings

    var info: sc_info {
        let configuration = analyzer.configuration
        return sc_info(
            sample_rate: configuration.sampleRate, frame_length: Int32(configuration.frameLength),
            hop_length: Int32(configuration.hopLength), band_count: Int32(bandNames.count),
            max_sources: Int32(configuration.maxSources))
    }

    func bandInfo(_ index: Int) -> sc_band_info? {
        guard bandNames.indices.contains(index) else { return nil }
        return sc_band_info(name: UnsafePointer(bandNames[index]), low_hz: bandEdges[index].low, high_hz: bandEdges[index].high)
    }

    // MARK: - Samples in

    /// Queues `count` samples of each channel.
    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) {
        let (left, right) = swapsWritten ? (right, left) : (left, right)
        makeRoom(for: count)
        (queueLeft.baseAddress! + queueEnd).update(from: left, count: count)
        (queueRight.baseAddress! + queueEnd).update(from: right, count: count)
        queueEnd += count
    }

    /// Moves the queued samples to the front and grows the queue when `count` more do not fit.
    private func makeRoom(for count: Int) {
        let queued = queueEnd - queueStart
        if queueStart > 0 {
            if queued > 0 {
                queueLeft.baseAddress!.update(from: queueLeft.baseAddress! + queueStart, count: queued)
                queueRight.baseAddress!.update(from: queueRight.baseAddress! + queueStart, count: queued)
            }
            (queueStart, queueEnd) = (0, queued)
        }
        guard queued + count > queueLeft.count else { return }
        let (left, right) = Self.queue(capacity: max(queued + count, 2 * queueLeft.count))
        left.baseAddress!.update(from: queueLeft.baseAddress!, count: queued)
        right.baseAddress!.update(from: queueRight.baseAddress!, count: queued)
        queueLeft.deallocate()
        queueRight.deallocate()
        (queueLeft, queueRight) = (left, right)
    }

    /// Reads the file's next block into the empty queue; false at its end.
    private func readBlock() throws -> Bool {
        guard readsFile, !fileEnded else { return false }
        let n = try session.source.read(into: queueLeft, queueRight, frames: queueLeft.count)
        (queueStart, queueEnd) = (0, n)
        if n == 0 { fileEnded = true }
        return n > 0
    }

    // MARK: - Records out

    /// Analyses queued samples (reading the file on) until `capacity` records are written or
    /// nothing is left; returns the number written. Allocates nothing.
    func read(
        records: UnsafeMutablePointer<sc_record>, bands: UnsafeMutablePointer<sc_band>?,
        sources: UnsafeMutablePointer<sc_source>?, capacity: Int
    ) throws -> Int {
        let hop = analyzer.configuration.hopLength
        let bandStride = bandNames.count, sourceStride = analyzer.configuration.maxSources
        var count = 0
        while count < capacity {
            if queueStart == queueEnd, try !readBlock() { break }
            // At most one hop at a time: a hop completes at most one frame, so `capacity` holds.
            let take = min(hop, queueEnd - queueStart)
            let left = UnsafeBufferPointer(start: queueLeft.baseAddress! + queueStart, count: take)
            let right = UnsafeBufferPointer(start: queueRight.baseAddress! + queueStart, count: take)
            queueStart += take
            analyzer.process(left: left, right: right) { (record: AnalysisRecord) in
                Self.store(
                    record, into: records + count, bands: bands.map { $0 + count * bandStride },
                    sources: sources.map { $0 + count * sourceStride }, sourceCapacity: sourceStride)
                count += 1
            }
            try session.checkNonFinite()
        }
        return count
    }

    /// Copies one record into the caller's structs.
    private static func store(
        _ r: AnalysisRecord, into record: UnsafeMutablePointer<sc_record>, bands: UnsafeMutablePointer<sc_band>?,
        sources: UnsafeMutablePointer<sc_source>?, sourceCapacity: Int
    ) {
        let bandCount = bands == nil ? 0 : r.bands.count
        let sourceCount = sources == nil ? 0 : min(r.sources.count, sourceCapacity)
        record.pointee = sc_record(
            frame: Int64(r.frame), time: r.time, azimuth: r.azimuth, raw_azimuth: r.rawAzimuth, lateral: r.lateral,
            confidence: r.confidence, ild_db: r.ildDecibels, itd_us: r.itdMicroseconds, level_dbfs: r.levelDBFS,
            yaw: r.yaw ?? .nan, world_azimuth: r.worldAzimuth ?? .nan, itd_confidence: r.itdConfidence,
            ild_confidence: r.ildConfidence, dominant_hz: r.dominantHz, noise_floor_dbfs: r.noiseFloorDBFS,
            active: r.active ? 1 : 0, hemisphere: hemisphere(r.hemisphere), band_count: Int32(bandCount),
            source_count: Int32(sourceCount))
        if let bands {
            for i in 0..<bandCount {
                let b = r.bands[i]
                bands[i] = sc_band(
                    azimuth: b.azimuth, confidence: b.confidence, level_dbfs: b.levelDBFS, index: Int32(i),
                    loudest: b.loudest ? 1 : 0)
            }
        }
        if let sources {
            for i in 0..<sourceCount {
                let s = r.sources[i]
                sources[i] = sc_source(
                    id: Int64(s.id), azimuth: s.azimuth, confidence: s.confidence, level_dbfs: s.levelDBFS,
                    world_azimuth: s.worldAzimuth ?? .nan, active: s.active ? 1 : 0, hemisphere: hemisphere(s.hemisphere))
            }
        }
    }

    private static func hemisphere(_ h: Hemisphere) -> Int32 {
        switch h {
        case .unknown: Int32(SC_HEMISPHERE_UNKNOWN.rawValue)
        case .front: Int32(SC_HEMISPHERE_FRONT.rawValue)
        case .back: Int32(SC_HEMISPHERE_BACK.rawValue)
        }
    }

    // MARK: - Messages

    /// Keeps `message` as the last failure's.
    func fail(_ message: String) {
        errorMessage.text = message
    }

    /// The end-of-run warnings, one per line, NUL-terminated (valid until the next call).
    func finalWarnings() -> UnsafePointer<CChar> {
        let lines = openingWarnings + session.finalWarnings()
        warningText.text = lines.joined(separator: "\n")
        return UnsafePointer(warningText.pointer)
    }
}

/// A NUL-terminated copy of a string that C callers may hold until it is replaced or freed.
final class CString {
    private(set) var pointer: UnsafeMutablePointer<CChar>

    init(_ text: String) { pointer = strdup(text) }

    deinit { free(pointer) }

    /// Replaces the text (the old pointer becomes invalid).
    var text: String {
        get { String(cString: pointer) }
        set {
            free(pointer)
            pointer = strdup(newValue)
        }
    }
}
