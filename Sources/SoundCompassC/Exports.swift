// The C interface (include/soundcompass.h of the CSoundCompass target): each function here is
// one of the header's, exported under its C name. They catch every error and return its status;
// none of them traps on a caller's mistake that C lets through (a NULL pointer, a bad index).
import ArgumentParser
import CSoundCompass
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SoundCompass
import SoundCompassOptions

@_cdecl("sc_analyzer_create")
public func scAnalyzerCreate(
    _ sampleRate: Double, _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> sc_status {
    open(out, error: error, errorSize: errorSize) {
        guard sampleRate.isFinite, sampleRate >= 8000, sampleRate <= 768_000 else {
            throw OptionFailure("the sample rate must be 8000…768000 Hz, got \(sampleRate)")
        }
        let options = try parse(argc, argv)
        if options.channels != nil {
            throw OptionFailure("--channels picks a file's channels: it applies to sc_analyzer_open_file, not to written samples")
        }
        var warnings: [String] = []
        let source = MemoryStereoSource(left: [], right: [], sampleRate: sampleRate, name: "samples")
        let session = try AnalysisSession(source: source, settings: options.settings) { warnings.append($0) }
        return ForeignAnalyzer(session: session, readsFile: false, swapsWritten: options.swap, openingWarnings: warnings)
    }
}

@_cdecl("sc_analyzer_open_file")
public func scAnalyzerOpenFile(
    _ path: UnsafePointer<CChar>?, _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<CChar>?, _ errorSize: Int
) -> sc_status {
    open(out, error: error, errorSize: errorSize) {
        guard let path else { throw OptionFailure("no file named (the path is NULL)") }
        let options = try parse(argc, argv)
        let input = AnalysisInput.file(path: String(cString: path))
        var warnings: [String] = []
        let session = try AnalysisSession(
            input: input, channels: try options.channelPair(for: input.name), swap: options.swap,
            settings: options.settings) { warnings.append($0) }
        return ForeignAnalyzer(session: session, readsFile: true, openingWarnings: warnings)
    }
}

@_cdecl("sc_analyzer_destroy")
public func scAnalyzerDestroy(_ analyzer: OpaquePointer?) {
    guard let analyzer else { return }
    Unmanaged<ForeignAnalyzer>.fromOpaque(UnsafeRawPointer(analyzer)).release()
}

@_cdecl("sc_analyzer_info")
public func scAnalyzerInfo(_ analyzer: OpaquePointer?, _ info: UnsafeMutablePointer<sc_info>?) -> sc_status {
    guard let analyzer = borrow(analyzer), let info else { return SC_USAGE }
    info.pointee = analyzer.info
    return SC_OK
}

@_cdecl("sc_analyzer_band_info")
public func scAnalyzerBandInfo(
    _ analyzer: OpaquePointer?, _ index: Int32, _ info: UnsafeMutablePointer<sc_band_info>?
) -> sc_status {
    guard let analyzer = borrow(analyzer), let info else { return SC_USAGE }
    guard let band = analyzer.bandInfo(Int(index)) else {
        analyzer.fail("band \(index) does not exist: the analyzer has \(analyzer.info.band_count) bands")
        return SC_USAGE
    }
    info.pointee = band
    return SC_OK
}

@_cdecl("sc_analyzer_write")
public func scAnalyzerWrite(
    _ analyzer: OpaquePointer?, _ left: UnsafePointer<Float>?, _ right: UnsafePointer<Float>?, _ frames: Int
) -> sc_status {
    guard let analyzer = borrow(analyzer) else { return SC_USAGE }
    guard !analyzer.readsFile else {
        analyzer.fail("\(analyzer.session.source.name): this analyzer reads its file; sc_analyzer_write is for sc_analyzer_create's")
        return SC_USAGE
    }
    guard frames > 0 else { return SC_OK }
    guard let left, let right else {
        analyzer.fail("sc_analyzer_write: \(frames) frames, but a channel's samples are NULL")
        return SC_USAGE
    }
    analyzer.write(left: left, right: right, count: frames)
    return SC_OK
}

@_cdecl("sc_analyzer_read")
public func scAnalyzerRead(
    _ analyzer: OpaquePointer?, _ records: UnsafeMutablePointer<sc_record>?, _ bands: UnsafeMutablePointer<sc_band>?,
    _ sources: UnsafeMutablePointer<sc_source>?, _ capacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> sc_status {
    count?.pointee = 0
    guard let analyzer = borrow(analyzer) else { return SC_USAGE }
    guard let records, let count, capacity > 0 else {
        analyzer.fail("sc_analyzer_read needs room for at least one record and a count")
        return SC_USAGE
    }
    let info = analyzer.info
    if (info.band_count > 0 && bands == nil) || (info.max_sources > 0 && sources == nil) {
        analyzer.fail(
            "sc_analyzer_read: the records carry \(info.band_count) bands and up to \(info.max_sources) sources; give arrays for them")
        return SC_USAGE
    }
    do {
        count.pointee = try analyzer.read(records: records, bands: bands, sources: sources, capacity: capacity)
        return SC_OK
    } catch {
        let (status, message) = describe(error)
        analyzer.fail(message)
        return status
    }
}

@_cdecl("sc_analyzer_error")
public func scAnalyzerError(_ analyzer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let analyzer = borrow(analyzer) else { return nil }
    return UnsafePointer(analyzer.errorMessage.pointer)
}

@_cdecl("sc_analyzer_warnings")
public func scAnalyzerWarnings(_ analyzer: OpaquePointer?) -> UnsafePointer<CChar>? {
    borrow(analyzer)?.finalWarnings()
}

// MARK: - Helpers

/// The analyzer behind a handle, not retained.
private func borrow(_ handle: OpaquePointer?) -> ForeignAnalyzer? {
    handle.map { Unmanaged<ForeignAnalyzer>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

/// Runs `make`, hands its analyzer to the caller through `out`, or writes the error's line into
/// `error` and returns its status.
private func open(
    _ out: UnsafeMutablePointer<OpaquePointer?>?, error: UnsafeMutablePointer<CChar>?, errorSize: Int,
    _ make: () throws -> ForeignAnalyzer
) -> sc_status {
    out?.pointee = nil
    let status: sc_status, message: String
    do {
        guard let out else { throw OptionFailure("no place for the analyzer (out is NULL)") }
        out.pointee = OpaquePointer(Unmanaged.passRetained(try make()).toOpaque())
        return SC_OK
    } catch let failure {
        (status, message) = describe(failure)
    }
    if let error, errorSize > 0 {
        // Whole characters only: a message cut short is still valid UTF-8.
        var bytes: [UInt8] = []
        for scalar in message.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard bytes.count + encoded.count <= errorSize - 1 else { break }
            bytes += encoded
        }
        for (i, byte) in bytes.enumerated() { error[i] = CChar(bitPattern: byte) }
        error[bytes.count] = 0
    }
    return status
}

/// Parses `argv` as the command-line tool's analysis options.
private func parse(_ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?) throws -> AnalysisOptions {
    var arguments: [String] = []
    for i in 0..<max(0, Int(argc)) {
        guard let argument = argv?[i] else { throw OptionFailure("option \(i) is NULL") }
        arguments.append(String(cString: argument))
    }
    do {
        return try AnalysisOptions.parse(arguments)
    } catch {
        throw OptionFailure(oneLineMessage(AnalysisOptions.message(for: error)))
    }
}

/// A library error's status (the command-line tool's exit code for it) and its one-line message.
private func describe(_ error: any Error) -> (sc_status, String) {
    switch error {
    case let failure as OptionFailure: (SC_USAGE, failure.description)
    case let error as SoundFileError:
        switch error {
        case .notFound, .unreadable: (SC_NO_INPUT, error.description)
        case .readFailed: (SC_IO_ERROR, error.description)
        default: (SC_DATA_ERROR, error.description)
        }
    case let error as ConfigurationError: (SC_USAGE, error.description)
    case let error as AnalysisSessionError: (SC_USAGE, error.description)
    case let error as ProfileError: (error.isUnreadable ? SC_NO_INPUT : SC_DATA_ERROR, error.description)
    case let error as SOFAError: (error.isUnreadable ? SC_NO_INPUT : SC_DATA_ERROR, error.description)
    default: (SC_INTERNAL_ERROR, "internal error: \(error)")
    }
}
