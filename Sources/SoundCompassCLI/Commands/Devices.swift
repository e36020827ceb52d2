import ArgumentParser
import SoundCompass

extension SoundCompassCommand {
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List ALSA capture devices: sound cards with what they accept, and capture PCMs.",
            discussion: "Any name listed can be given to 'soundcompass live --device'.")

        func run() throws {
            try Diagnostics.reportingFailures { try list() }
        }

        private func list() throws {
            let found = try ALSADevices.scan()
            let out = LineSink.standardOutput()
            var text = ""
            if found.cards.isEmpty {
                text += "No sound cards: ALSA sees none on this machine, so there is nothing to\n"
                text += "capture from. A recording can still be replayed through the live path with\n"
                text += "ALSA's file plugin (see Docs/Live.md).\n"
            } else {
                text += "Sound cards:\n"
                for card in found.cards {
                    text += "  card \(card.index): \(card.name)\n"
                    let devices = found.captureDevices.filter { $0.card == card.index }
                    if devices.isEmpty { text += "    (no capture devices)\n" }
                    for device in devices {
                        text += "    \(device.pcmName)  \(device.deviceName)\n"
                        if let c = device.capabilities {
                            text += "      \(Self.range(c.channels)) channels, \(Self.range(c.rates)) Hz, "
                                + (c.encodings.isEmpty ? "no format SoundCompass reads" : c.encodings.map(\.alsaName).joined(separator: " "))
                                + "\n"
                        } else if let problem = device.problem {
                            text += "      cannot be queried now: \(problem)\n"
                        }
                    }
                }
            }
            let pcms = found.pcms
            if !pcms.isEmpty {
                text += "\nCapture PCMs from the ALSA configuration:\n"
                let width = min(40, pcms.map(\.name.count).max() ?? 0)
                for pcm in pcms {
                    let pad = String(repeating: " ", count: max(1, width - pcm.name.count + 2))
                    text += "  \(pcm.name)\(pad)\(pcm.description)\n"
                }
            }
            try out.write(Array(text.utf8))
        }

        static func range(_ r: ClosedRange<Int>) -> String {
            r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)–\(r.upperBound)"
        }
    }
}
