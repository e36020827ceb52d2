import Foundation
import Testing
import SoundCompassEngine
import TestSignals
import TestSupport

/// Coincident pairs (XY, Blumlein, Mid-Side): the level cue inverts the capsules' patterns.
struct CoincidentTests {
    struct Condition: Sendable, CustomTestStringConvertible {
        var signal: SourceSignal
        var snr: Double?
        var tolerance: Double
        var testDescription: String { "\(signal == .speech ? "speech" : "pink noise"), \(snr.map { "\(Int($0)) dB SNR" } ?? "clean")" }
    }

    /// The median azimuth of the confident frames of a still source, degrees.
    static func reading(
        azimuth: Double, microphones: Microphones, model: ArrayModel, signal: SourceSignal, snr: Double?, seed: UInt64 = 7
    ) throws -> (azimuth: Double, confidence: Double) {
        let rendered = stillSource(
            azimuth: azimuth, microphones: microphones, duration: 1.2, signal: signal, snr: snr, seed: seed)
        let records = try analyze(rendered, configuration: AnalysisConfiguration(sampleRate: 48000, array: model))
        let confident = records.filter { $0.confidence >= 0.2 }
        guard !confident.isEmpty else { return (.nan, 0) }
        return (median(confident.map(\.azimuth)), median(records.filter(\.active).map(\.confidence)))
    }

    @Test("XY cardioids at 90°: every azimuth in −80…80° (5° steps) reads back", arguments: [
        Condition(signal: .pinkNoise, snr: nil, tolerance: 1), Condition(signal: .pinkNoise, snr: 20, tolerance: 3),
        Condition(signal: .speech, snr: nil, tolerance: 1), Condition(signal: .speech, snr: 20, tolerance: 3),
    ])
    func xyCardioids(condition: Condition) throws {
        var worst = 0.0
        var table: [String] = []
        for step in -16...16 {
            let azimuth = Double(step) * 5
            let read = try Self.reading(
                azimuth: azimuth, microphones: .coincident(halfAngle: 45), model: ArrayModel(kind: .coincident),
                signal: condition.signal, snr: condition.snr, seed: UInt64(100 + step))
            let error = abs(read.azimuth - azimuth)
            worst = max(worst, error.isNaN ? .infinity : error)
            table.append("\(Int(azimuth)):\(String(format: "%+.2f", read.azimuth - azimuth))/\(String(format: "%.2f", read.confidence))")
            #expect(error <= condition.tolerance, "\(condition.testDescription): \(azimuth)° reads \(read.azimuth)°")
        }
        print("XY cardioids, \(condition.testDescription): worst \(worst)°; \(table.joined(separator: " "))")
    }

    struct Pair: Sendable, CustomTestStringConvertible {
        var name: String
        var microphones: Microphones
        var model: ArrayModel
        var testDescription: String { name }
    }

    @Test("other pairs read back within 1° clean, 3° at 20 dB SNR", arguments: [
        Pair(name: "hypercardioids at 110°", microphones: .coincident(pattern: 0.25, includedAngle: 110),
             model: ArrayModel(kind: .coincident, coincidentPair: CoincidentPair(pattern: 0.25, includedAngleDegrees: 110))),
        Pair(name: "Blumlein figure-8s at 90°", microphones: .coincident(pattern: 0, includedAngle: 90),
             model: ArrayModel(kind: .coincident, coincidentPair: CoincidentPair(pattern: 0, includedAngleDegrees: 90))),
        Pair(name: "supercardioids at 120°", microphones: .coincident(pattern: 0.37, includedAngle: 120),
             model: ArrayModel(kind: .coincident, coincidentPair: CoincidentPair(pattern: 0.37, includedAngleDegrees: 120))),
        Pair(name: "Mid-Side, cardioid mid, side gain 1", microphones: .midSide(midPattern: 0.5, sideGain: 1),
             model: ArrayModel(kind: .coincident, coincidentPair: .midSide(midPattern: 0.5, sideGain: 1), channelsAreMidSide: true)),
        Pair(name: "Mid-Side, figure-8 mid, side gain 0.6", microphones: .midSide(midPattern: 0, sideGain: 0.6),
             model: ArrayModel(kind: .coincident, coincidentPair: .midSide(midPattern: 0, sideGain: 0.6), channelsAreMidSide: true)),
    ])
    func otherPairs(pair: Pair) throws {
        var table: [String] = []
        // Blumlein: ±90° give the same axis (the rear lobes are in antiphase), so stop at ±80°.
        for azimuth in stride(from: -80.0, through: 80, by: 20) {
            for snr in [nil, 20.0] {
                let read = try Self.reading(
                    azimuth: azimuth, microphones: pair.microphones, model: pair.model, signal: .pinkNoise, snr: snr,
                    seed: UInt64(300 + azimuth))
                let error = abs(read.azimuth - azimuth)
                table.append("\(Int(azimuth))\(snr == nil ? "" : "n"):\(String(format: "%+.2f", read.azimuth - azimuth))")
                #expect(error <= (snr == nil ? 1 : 3), "\(pair.name): \(azimuth)° reads \(read.azimuth)° (SNR \(snr ?? .infinity))")
            }
        }
        print("\(pair.name): \(table.joined(separator: " "))")
    }

    @Test("raw Mid-Side read as an XY pair without --mid-side is wrong: the decode matters")
    func midSideNeedsDecoding() throws {
        let model = ArrayModel(kind: .coincident, coincidentPair: .midSide(midPattern: 0.5, sideGain: 1))
        let read = try Self.reading(
            azimuth: 40, microphones: .midSide(midPattern: 0.5, sideGain: 1), model: model, signal: .pinkNoise, snr: nil)
        #expect(abs(read.azimuth - 40) > 20, "read \(read.azimuth)°")
    }

    @Test("the bands read the source too (the band filter bank's covariances)")
    func bands() throws {
        let rendered = stillSource(azimuth: -35, microphones: .coincident(halfAngle: 45), duration: 1.2, signal: .pinkNoise)
        let records = try analyze(rendered, configuration: AnalysisConfiguration(sampleRate: 48000, array: ArrayModel(kind: .coincident)))
        let later = Array(records.dropFirst(4))
        for band in later[0].bands.indices {
            let azimuths = later.map { $0.bands[band].azimuth }
            #expect(abs(median(azimuths) + 35) < 1, "band \(later[0].bands[band].name): \(median(azimuths))°")
            #expect(median(later.map { $0.bands[band].confidence }) > 0.8)
        }
    }

    @Test("an omni pair has no level information: no confidence")
    func omni() throws {
        let model = ArrayModel(kind: .coincident, coincidentPair: CoincidentPair(pattern: 1, includedAngleDegrees: 90))
        let read = try Self.reading(
            azimuth: 30, microphones: .coincident(pattern: 1, includedAngle: 90), model: model, signal: .pinkNoise, snr: nil)
        #expect(read.confidence == 0)
    }

    @Test("a hardware gain offset is removed before the inversion")
    func gainOffset() throws {
        let rendered = ChannelMismatch(gainDecibels: 4).apply(
            to: stillSource(azimuth: 25, microphones: .coincident(halfAngle: 45), duration: 1.2, signal: .pinkNoise))
        let model = ArrayModel(kind: .coincident, gainOffsetDecibels: 4)
        let records = try analyze(rendered, configuration: AnalysisConfiguration(sampleRate: 48000, array: model))
        #expect(abs(median(records.dropFirst(4).map(\.azimuth)) - 25) < 0.5)
    }
}

struct CoincidentPairTests {
    @Test("the inversion is exact on −90…90° for first-order pairs", arguments: [
        (0.5, 90.0), (0.5, 180.0), (0.25, 110.0), (0.37, 120.0), (0.0, 90.0), (0.7, 60.0), (0.1, 170.0),
    ])
    func inversion(pattern: Double, angle: Double) {
        let pair = CoincidentPair(pattern: pattern, includedAngleDegrees: angle)
        for azimuth in stride(from: -89.0, through: 89, by: 1) {
            let psi = pair.principalAngle(azimuthDegrees: azimuth)
            #expect(abs(pair.azimuth(principalAngle: psi) - azimuth) < 1e-6, "\(azimuth)°")
            // Either sign of the axis gives the same azimuth.
            #expect(abs(pair.azimuth(principalAngle: psi + .pi) - azimuth) < 1e-6)
            // The steepness is the derivative of ψ (central difference).
            let numeric = (pair.principalAngle(azimuthDegrees: azimuth + 0.01) - pair.principalAngle(azimuthDegrees: azimuth - 0.01))
            let wrapped = numeric > .pi / 2 ? numeric - .pi : numeric < -.pi / 2 ? numeric + .pi : numeric
            #expect(abs(wrapped / (0.02 * .pi / 180) - pair.steepness(azimuthDegrees: azimuth)) < 1e-4)
        }
    }

    @Test("a principal angle beyond the pair's range reads as the nearer end")
    func beyondRange() {
        let xy = CoincidentPair.xyCardioids  // ψ spans 9.7°…80.3°
        #expect(xy.azimuth(principalAngle: 5 * .pi / 180) == -90)
        #expect(xy.azimuth(principalAngle: 85 * .pi / 180) == 90)
        #expect(xy.azimuth(principalAngle: -10 * .pi / 180) == -90)
        #expect(xy.azimuth(principalAngle: 100 * .pi / 180) == 90)
        #expect(abs(xy.azimuth(principalAngle: .pi / 4)) < 1e-9)
    }

    @Test("Mid-Side decodes to the first-order pair of the same gains")
    func midSide() {
        for (a, w) in [(0.5, 1.0), (0.0, 1.0), (0.25, 0.5), (1.0, 1.0)] {
            let pair = CoincidentPair.midSide(midPattern: a, sideGain: w)
            let raw = Microphones.midSide(midPattern: a, sideGain: w)
            let scale = a + ((1 - a) * (1 - a) + w * w).squareRoot()
            for azimuth in stride(from: -180.0, through: 180, by: 15) {
                let g = raw.gains(azimuth: azimuth), p = pair.gains(azimuthDegrees: azimuth)
                #expect(abs((g.left + g.right) - scale * p.left) < 1e-12)
                #expect(abs((g.left - g.right) - scale * p.right) < 1e-12)
            }
        }
        // A figure-8 mid with an equal side is a Blumlein pair.
        let blumlein = CoincidentPair.midSide(midPattern: 0, sideGain: 1)
        #expect(abs(blumlein.pattern) < 1e-12 && abs(blumlein.includedAngleDegrees - 90) < 1e-9)
    }

    @Test("steepness and diffuse correlation of the usual pairs")
    func figures() {
        let xy = CoincidentPair.xyCardioids
        #expect(abs(xy.steepness(azimuthDegrees: 0) - 0.4142) < 1e-3)
        #expect(abs(xy.steepness(azimuthDegrees: 90) - 0.3333) < 1e-3)
        #expect(abs(xy.diffuseCorrelation - 0.75) < 1e-12)
        let blumlein = CoincidentPair(pattern: 0, includedAngleDegrees: 90)
        #expect(abs(blumlein.steepness(azimuthDegrees: 37) - 1) < 1e-12)
        #expect(abs(blumlein.diffuseCorrelation) < 1e-12)
        #expect(CoincidentPair(pattern: 1, includedAngleDegrees: 90).steepness(azimuthDegrees: 20) == 0)
    }

    @Test("equal uncorrelated noise does not move the principal axis")
    func noiseDoesNotBias() {
        // One source at gains (0.9, 0.3), power 1, plus noise of power 0.2 in each channel.
        let clean = CoincidentPair.principalAxis(leftPower: 0.81, rightPower: 0.09, crossPower: 0.27)
        let noisy = CoincidentPair.principalAxis(leftPower: 1.01, rightPower: 0.29, crossPower: 0.27)
        #expect(abs(clean.angle - atan2(0.3, 0.9)) < 1e-12)
        #expect(abs(noisy.angle - clean.angle) < 1e-12)
        #expect(abs(clean.directness - 1) < 1e-12)
        #expect(noisy.directness < 0.8)
    }
}
