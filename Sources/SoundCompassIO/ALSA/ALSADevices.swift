import SoundCompassEngine
/// What ALSA offers for capture on this machine: the sound cards with their capture devices,
/// and the capture PCMs its configuration defines.
package struct ALSADevices: Sendable {
    /// A sound card's capture device, with what it accepts.
    package struct CaptureDevice: Sendable {
        /// The PCM name that opens the device directly, `hw:CARD=ID,DEV=N`.
        package var pcmName: String
        /// Card index.
        package var card: Int
        /// Device index on the card.
        package var device: Int
        /// The card's name.
        package var cardName: String
        /// The device's name.
        package var deviceName: String
        /// What the device accepts; `nil` when it could not be opened (see ``problem``).
        package var capabilities: ALSACapabilities?
        /// Why the device could not be queried (busy, …).
        package var problem: String?
    }

    /// A PCM from ALSA's configuration that can capture (`default`, `sysdefault:CARD=…`, …).
    package struct NamedPCM: Sendable {
        /// The name to pass to `--device`.
        package var name: String
        /// ALSA's description of it.
        package var description: String
    }

    /// Sound cards, by index and name.
    package var cards: [(index: Int, name: String)]
    /// The cards' capture devices.
    package var captureDevices: [CaptureDevice]
    /// Capture PCMs from ALSA's configuration.
    package var pcms: [NamedPCM]

    /// True when ALSA sees at least one sound card (cheap: opens nothing).
    package static var hasSoundCard: Bool { ALSACalls.hasSoundCard() }

    /// Looks at what ALSA sees now. Opens each card's capture devices briefly (without waiting
    /// for busy ones) to read what they accept.
    /// - Throws: ``ALSAError/unusableConfiguration(file:origin:problem:)`` when a file of ALSA's
    ///   configuration could not be read in bounded time and memory.
    package static func scan() throws(ALSAError) -> ALSADevices {
        let (cards, devices) = try ALSACalls.cards()
        let captureDevices = devices.map { d -> CaptureDevice in
            let name = "hw:CARD=\(d.cardID),DEV=\(d.device)"
            var entry = CaptureDevice(
                pcmName: name, card: d.card, device: d.device, cardName: d.cardName, deviceName: d.deviceName)
            do throws(ALSAError) {
                let pcm = try ALSAPCM(name: name, nonBlocking: true)
                entry.capabilities = try pcm.capabilities()
            } catch {
                entry.problem = error.problem
            }
            return entry
        }
        let pcms = try ALSACalls.capturePCMHints().map { NamedPCM(name: $0.name, description: $0.description) }
        return ALSADevices(cards: cards, captureDevices: captureDevices, pcms: pcms)
    }
}
