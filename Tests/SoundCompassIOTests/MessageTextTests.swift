import Testing
@testable import SoundCompassIO

/// `MessageText` (SoundCompassIO/Input): text from outside quoted safely in a message.
@Suite("Message text")
struct MessageTextTests {
    @Test("message text: control characters from outside are escaped, the rest kept")
    func messageText() {
        #expect(MessageText.escaped("take 1.wav") == "take 1.wav")
        #expect(MessageText.escaped("a\u{1B}[2J\u{07}b\nc\rd\te") == "a\\e[2J\\ab\\nc\\rd\\te")
        #expect(MessageText.escaped("\u{0}\u{7F}\u{9B}x\u{202E}é") == "\\x00\\x7f\\u{9b}x\\u{202e}é")
    }
}
