import Foundation

/// A fresh directory under the system's temporary directory, removed on deinit.
public final class TemporaryDirectory {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("soundcompass-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
