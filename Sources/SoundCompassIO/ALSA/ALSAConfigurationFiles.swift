import SoundCompassEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The files ALSA reads its global configuration from, checked before the first ALSA call
/// that loads it (`snd_pcm_open`, `snd_ctl_open`, `snd_device_name_hint`).
///
/// ALSA parses each of these files to its end, in memory, inside one C call that no signal
/// handler can stop. A file that never ends (`ALSA_CONFIG_PATH=/dev/zero`, a FIFO, a
/// `~/.asoundrc` linked to a device) makes it grow by about 150 MB a second for ever. So every
/// one of them that exists must be a regular file of at most ``maximumBytes``: the parse is then
/// bounded. The files are those of alsa-lib 1.2's `snd_config_update_r` and of the stock
/// `alsa.conf`'s load hook.
enum ALSAConfigurationFiles {
    /// The largest configuration file accepted, bytes (alsa.conf is about 10 KiB; a generated
    /// `~/.asoundrc` rarely passes 100 KiB).
    static let maximumBytes = 16 << 20

    /// A file ALSA would read, and where its name came from (for messages).
    struct Entry: Equatable {
        var path: String
        var origin: String
    }

    /// The files ALSA's global configuration reads, from `environment` (the process's when `nil`):
    /// `ALSA_CONFIG_PATH` (entries separated by `:` or spaces, `~/` expanded; default
    /// `$ALSA_CONFIG_DIR/alsa.conf`, else `/usr/share/alsa/alsa.conf`), then the directories and
    /// files the stock `alsa.conf` loads (`/etc/alsa/conf.d`, `/etc/asound.conf`, `~/.asoundrc`,
    /// `$XDG_CONFIG_HOME/alsa/asoundrc`, …).
    static func entries(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> [Entry] {
        let home = environment("HOME") ?? ""
        func expand(_ path: String) -> String { path.hasPrefix("~/") ? home + path.dropFirst(1) : path }
        var result: [Entry] = []
        if let configured = environment("ALSA_CONFIG_PATH"), !configured.isEmpty {
            for part in configured.split(whereSeparator: { $0 == ":" || $0 == " " }) {
                result.append(Entry(path: expand(String(part)), origin: "ALSA_CONFIG_PATH"))
            }
        } else {
            let directory = environment("ALSA_CONFIG_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/usr/share/alsa"
            result.append(Entry(path: directory + "/alsa.conf", origin: "ALSA's configuration"))
        }
        let xdg = environment("XDG_CONFIG_HOME").flatMap { $0.isEmpty ? nil : $0 } ?? "~/.config"
        for hooked in [
            "/var/lib/alsa/conf.d", "/usr/etc/alsa/conf.d", "/etc/alsa/conf.d", "/etc/asound.conf", "/usr/etc/asound.conf",
            "~/.asoundrc", xdg + "/alsa/asoundrc",
        ] {
            result.append(Entry(path: expand(hooked), origin: "loaded by alsa.conf"))
        }
        return result
    }

    /// Why ALSA cannot be given `path` to read, or `nil` when it can (or it does not exist, which
    /// ALSA skips). A directory is fine where ALSA reads the `*.conf` files in it; those are checked.
    static func problem(with path: String, directoryAllowed: Bool) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            guard directoryAllowed, let directory = opendir(path) else { return nil }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                guard name.hasSuffix(".conf") else { continue }
                if let problem = problem(with: path + "/" + name, directoryAllowed: false) { return "\(name): \(problem)" }
            }
            return nil
        }
        if type != S_IFREG {
            return "it is \(InputFile.describe(type: type)), not a regular file: ALSA would read it without end"
        }
        if Int(info.st_size) > maximumBytes {
            return "it is \(InputFile.describe(bytes: Int(info.st_size))), more than the \(InputFile.describe(bytes: maximumBytes)) an ALSA configuration file may be"
        }
        return nil
    }

    /// Checks every file of ``entries(environment:)``.
    /// - Throws: ``ALSAError/unusableConfiguration(file:origin:problem:)`` for the first file ALSA
    ///   could not read in bounded time and memory.
    static func check() throws(ALSAError) {
        for entry in entries() {
            if let problem = problem(with: entry.path, directoryAllowed: entry.origin != "ALSA_CONFIG_PATH") {
                throw .unusableConfiguration(file: entry.path, origin: entry.origin, problem: problem)
            }
        }
    }
}
