import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

struct SubbandTests {
    static func bandAzimuths(_ records: [AnalysisRecord], _ name: String, minimumConfidence: Double = 0.3) -> [Double] {
        records.compactMap { r in r.bands.first { $0.name == name && $0.confidence >= minimumConfidence }?.azimuth }
    }

    @Test("two simultaneous sources in different bands come out as different band azimuths", arguments: [
        (-50.0, 40.0), (30.0, -60.0), (-20.0, 10.0),
    ])
    func twoSourcesTwoBands(lowAzimuth: Double, alertAzimuth: Double) throws {
        // Acceptance: 150–400 Hz noise at −50° and 3–5 kHz noise at +40°, free field, d = 0.15 m.
        let scene = Scene(
            sampleRate: 48000, duration: 3, microphones: .spaced(spacing: 0.15),
            sources: [
                Source(.bandNoise(low: 150, high: 400), azimuth: lowAzimuth, levelDBFS: -25, seed: 1),
                Source(.bandNoise(low: 3000, high: 5000), azimuth: alertAzimuth, levelDBFS: -25, seed: 2),
            ],
            noise: SensorNoise(snrDecibels: 30, seed: 3))
        let records = try analyze(scene.render())
        let low = Self.bandAzimuths(records, "low"), alert = Self.bandAzimuths(records, "alert")
        #expect(low.count > records.count / 2 && alert.count > records.count / 2, "confident frames: \(low.count), \(alert.count) of \(records.count)")
        #expect(abs(median(low) - lowAzimuth) <= 5, "low band median \(median(low))°")
        #expect(abs(median(alert) - alertAzimuth) <= 5, "alert band median \(median(alert))°")
    }

    @Test("a broadband source: every band agrees with it", arguments: [-70.0, -30, 0, 45])
    func broadbandAgreement(azimuth: Double) throws {
        let records = try analyze(stillSource(azimuth: azimuth, duration: 1, signal: .pinkNoise, snr: 20))
        for band in ["low", "speech", "alert", "high"] {
            let values = Self.bandAzimuths(records, band)
            #expect(values.count > records.count / 2, "\(band): \(values.count) confident of \(records.count)")
            #expect(abs(median(values) - azimuth) <= (band == "low" ? 3 : 1), "\(band): \(median(values))°")
        }
    }

    @Test("band levels follow the source's spectrum and the loudest band is marked")
    func levelsAndLoudest() throws {
        let scene = Scene(duration: 1, sources: [Source(.bandNoise(low: 600, high: 2500), azimuth: 20, levelDBFS: -20)])
        let signal = scene.render()
        let records = try analyze(signal)
        // Every frame of the second is checked: an analysis that gave no records cannot pass.
        let configuration = AnalysisConfiguration(sampleRate: signal.sampleRate)
        let frames = (signal.left.count - configuration.frameLength) / configuration.hopLength + 1
        try #require(frames > 0 && records.count == frames, "\(records.count) records, \(frames) frames")
        for r in records {
            let speech = try #require(r.bands.first { $0.name == "speech" })
            #expect(speech.loudest)
            #expect(r.bands.filter(\.loudest).count == 1)
            #expect(abs(speech.levelDBFS - -20) < 2, "speech band level \(speech.levelDBFS)")
            // 12 dB/octave skirts: the 8–16 kHz band hears this 0.6–2.5 kHz source ≥ 15 dB down.
            #expect(r.bands.first { $0.name == "high" }!.levelDBFS < speech.levelDBFS - 15)
            #expect(r.dominantHz > 550 && r.dominantHz < 2600)
        }
    }

    @Test("bands above 0.45·fs are dropped; --bands syntax")
    func bandSelection() throws {
        #expect(AnalysisConfiguration(sampleRate: 32000).usableBands.map(\.name) == ["low", "speech", "alert"])
        #expect(AnalysisConfiguration(sampleRate: 16000).usableBands.map(\.name) == ["low", "speech"])
        #expect(AnalysisConfiguration(sampleRate: 44100).usableBands.count == 4)
        #expect(try BandSpec.parse("voice:300-3400,hum:50-70") == [
            BandSpec(name: "voice", low: 300, high: 3400), BandSpec(name: "hum", low: 50, high: 70),
        ])
        #expect(try BandSpec.parse("none").isEmpty)
        #expect(throws: BandSpecError.malformed("x:5")) { try BandSpec.parse("x:5") }
        #expect(throws: BandSpecError.duplicateName("a")) { try BandSpec.parse("a:1-2,a:3-4") }
    }

    @Test("dominant frequency of a tone within 2 Hz", arguments: [220.0, 1000, 3333])
    func dominantFrequency(frequency: Double) throws {
        let records = try analyze(stillSource(azimuth: 10, duration: 0.5, signal: .tone(frequency)))
        #expect(abs(median(records.map(\.dominantHz)) - frequency) < 2)
    }
}
