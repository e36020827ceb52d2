import Foundation

/// Why an option's value cannot be used; its description follows the parser's "The value 'x'
/// is invalid for '--option':".
package struct ArgumentProblem: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// An option that does not suit the input it is used with (`--channels 3,4` of a stereo file),
/// found after parsing: the command-line tool reports it as a usage error (exit 64), the C
/// library as `SC_USAGE`. Its description is one line naming the input.
package struct OptionFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// The argument parser's message for a failure as one line of a `soundcompass: error:` report:
/// its lines joined with "; ", and its first letter lowercased ("Missing value for…" →
/// "missing value for…"; "LR…" stays). The command-line tool and the C library say the same.
package func oneLineMessage(_ message: String) -> String {
    let text = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }.joined(separator: "; ")
    guard let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true else { return text }
    return first.lowercased() + text.dropFirst()
}
