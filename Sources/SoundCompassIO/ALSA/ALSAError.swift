import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why an ALSA device could not be opened, configured or read. Every case names the device;
/// ``code`` and ``alsaMessage`` carry ALSA's own error where there is one.
public enum ALSAError: Error, Equatable, CustomStringConvertible {
    /// ALSA knows no PCM of that name, or its card is absent (`-ENOENT`, `-ENODEV` at open).
    case noSuchDevice(device: String)
    /// Another program holds the device (`-EBUSY`).
    case busy(device: String)
    /// The user may not open the device (`-EACCES`; on Debian, membership of the `audio` group).
    case permissionDenied(device: String)
    /// The device cannot capture the way asked: channels, sample format, rate or period.
    case unsupported(device: String, problem: String)
    /// The device went away while capturing (unplugged: `-ENODEV`).
    case deviceGone(device: String)
    /// Any other failure of an ALSA call; `code` is the negative errno it returned.
    case failed(device: String, operation: String, code: Int32)
    /// A file of ALSA's configuration that ALSA could not read in bounded time and memory (a
    /// device, a FIFO, a file of more than 16 MiB), refused before ALSA is asked to load it;
    /// `origin` says where its name came from (`ALSA_CONFIG_PATH`, …).
    case unusableConfiguration(file: String, origin: String, problem: String)

    /// The device the error is about (for a configuration file, the file).
    public var device: String {
        switch self {
        case .noSuchDevice(let d), .busy(let d), .permissionDenied(let d), .unsupported(let d, _), .deviceGone(let d), .failed(let d, _, _): d
        case .unusableConfiguration(let file, _, _): file
        }
    }

    /// The negative errno ALSA returned, when the error came from an ALSA call.
    public var code: Int32? {
        switch self {
        case .noSuchDevice: -ENOENT
        case .busy: -EBUSY
        case .permissionDenied: -EACCES
        case .deviceGone: -ENODEV
        case .failed(_, _, let code): code
        case .unsupported, .unusableConfiguration: nil
        }
    }

    /// ALSA's message for ``code`` (`snd_strerror`).
    public var alsaMessage: String? { code.map(ALSACalls.message) }

    /// The problem, without the device name.
    public var problem: String {
        switch self {
        case .noSuchDevice: "no such ALSA capture device"
        case .busy: "the device is busy (another program is using it)"
        case .permissionDenied: "permission denied (is the user in the 'audio' group?)"
        case .unsupported(_, let problem): problem
        case .deviceGone: "the device disappeared while capturing"
        case .failed(_, let operation, let code): "\(operation) failed: \(ALSACalls.message(code))"
        case .unusableConfiguration(_, _, let problem): problem
        }
    }

    public var description: String {
        switch self {
        case .unusableConfiguration(let file, let origin, let problem):
            "\(file) (\(origin)): cannot be used as ALSA configuration: \(problem)"
        default: "\(device): \(problem)"
        }
    }
}
