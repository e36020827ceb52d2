#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a measured HRTF (an AES69 SOFA file) could not be used. Every case names the file.
public enum SOFAError: Error, Equatable, CustomStringConvertible {
    /// The path does not exist.
    case notFound(path: String)
    /// The path exists but cannot be read (permissions, a directory, …).
    case unreadable(path: String, reason: String)
    /// libmysofa refused the file; `reason` says why in words (from its error code).
    case invalid(path: String, reason: String)
    /// The file reads, but holds nothing this analysis can use; `problem` says what.
    case unusable(path: String, problem: String)

    /// True when the file is missing or cannot be read (exit 66 in the CLI); otherwise bad data (65).
    public var isUnreadable: Bool {
        switch self {
        case .notFound, .unreadable: true
        case .invalid, .unusable: false
        }
    }

    public var description: String {
        switch self {
        case .notFound(let p): "\(p): HRTF file not found"
        case .unreadable(let p, let reason): "\(p): cannot read the HRTF file: \(reason)"
        case .invalid(let p, let reason): "\(p): not a usable SOFA HRTF: \(reason)"
        case .unusable(let p, let problem): "\(p): not a usable SOFA HRTF: \(problem)"
        }
    }

    /// libmysofa's error code in words (its header names them; the library has no message function).
    static func reason(code: Int32) -> String {
        switch code {
        case -1: "libmysofa internal error (not an HDF5/SOFA file, or damaged)"
        case 10000: "invalid format (not an HDF5/SOFA file, or truncated)"
        case 10001: "unsupported format"
        case 10002: "out of memory"
        case 10003: "read error (truncated?)"
        case 10004: "invalid attributes (not SimpleFreeFieldHRIR?)"
        case 10005: "invalid dimensions"
        case 10006: "invalid dimension list"
        case 10007: "invalid coordinate type"
        case 10008: "only emitters with ECI supported"
        case 10009: "only delays with IR or MR supported"
        case 10010: "only one sampling rate supported"
        case 10011: "only receivers with RCI supported"
        case 10012: "only Cartesian receiver positions supported"
        case 10013: "invalid receiver positions (two ears expected)"
        case 10014: "only sources with MC supported"
        // libmysofa's HDF5 reader gives errno values (EINVAL, ENOMEM, EIO, …) for structures it
        // cannot follow.
        case Int32(ENOMEM): "a size in the file too large to allocate (damaged?)"
        case Int32(EIO): "read error (truncated?)"
        case 1..<10000: "a damaged HDF5 structure, or one libmysofa does not read (its reader's code \(code))"
        default: "libmysofa error \(code)"
        }
    }
}
