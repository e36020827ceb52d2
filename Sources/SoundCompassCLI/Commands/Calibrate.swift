import ArgumentParser
import Foundation
import SoundCompass
import SoundCompassOptions

extension SoundCompassCommand {
    struct Calibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit an array profile from a recording of a sound whose direction is known.",
            discussion: """
                Give the truth as --truth DEG (a still source at that azimuth) or --truth FILE \
                (a time,azimuth CSV, as synth writes). Fits the effective spacing (head radius for \
                binaural), the channels' delay and gain offsets, for binaural the ILD gain and for \
                coincident the capsules' pattern and included angle; a still source fixes the offsets only. Prints the error before and \
                after on stderr and writes the profile (JSON) to --output, or to stdout. Use it with \
                analyze or live --profile FILE. Refuses, with exit code 65, a recording that cannot \
                support the fit. See Docs/Calibration.md.
                """)

        @Argument(help: "A recording of a sound whose direction is known, or - for standard input.")
        var file: String

        @OptionGroup(title: "Input")
        var input: InputOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("The true azimuth in degrees (a still source), or a CSV file with time,azimuth columns.", valueName: "deg|file"))
        var truth: String

        @Option(help: ArgumentHelp(
            "What to fit, comma-separated: spacing (head radius for binaural), delay, gain, ild-gain (binaural), pattern (coincident: pattern and angle) (default: all the array model has; delay,gain for a still source).",
            valueName: "list"))
        var fit: String?

        @OptionGroup(title: "Analysis (the nominal settings)")
        var analysis: AnalysisOptions

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the profile to this file instead of stdout.", valueName: "file"))
        var output: String?

        @OptionGroup
        var verbosity: QuietOption

        func validate() throws {
            if let fit {
                for name in fit.split(separator: ",", omittingEmptySubsequences: false) {
                    let trimmed = name.trimmingCharacters(in: .whitespaces)
                    guard CalibrationParameter(rawValue: trimmed) != nil else {
                        throw ValidationError("--fit: \"\(trimmed)\" is not one of spacing, delay, gain, ild-gain, pattern")
                    }
                }
            }
        }

        func run() throws {
            try Diagnostics.reportingFailures {
                if let output, LineSink.isSameFile(output, file) || output == truth {
                    throw CLIFailure("\(output): --output names an input file; refusing to overwrite it", status: .usage)
                }
                let truthTrack = try readTruth()
                let session = try input.openSession(file, analysis: analysis, rereadable: true)
                let config = session.configuration
                let parameters = try chooseParameters(config.array, still: truthTrack.stillAzimuth != nil)
                let calibration = try session.calibrate(truth: truthTrack, parameters: parameters)
                let (fitted, measurement, after, profile) =
                    (calibration.fit, calibration.measurement, calibration.after, calibration.profile)
                if !verbosity.quiet {
                    report(
                        fitted, nominal: config.array, before: measurement.before, after: after,
                        measurement: measurement, truth: truthTrack)
                }
                if let output {
                    try writeWholeFile(output, Array(profile.json.utf8))
                    if !verbosity.quiet { Diagnostics.note("wrote \(output)") }
                } else {
                    let sink = LineSink.standardOutput()
                    try sink.write(Array(profile.json.utf8))
                }
            }
        }

        /// `--truth` as a still azimuth or a file.
        private func readTruth() throws -> TruthTrack {
            if let degrees = Double(truth), !FileManager.default.fileExists(atPath: truth) {
                guard degrees.isFinite, abs(degrees) <= 180 else {
                    throw CLIFailure("--truth \(truth): an azimuth must be within ±180°", status: .usage)
                }
                return TruthTrack(stillAzimuth: degrees)
            }
            return try TruthTrack(path: truth)
        }

        /// The parameters to fit: `--fit`, or everything the model has (the offsets only for a still source).
        private func chooseParameters(_ model: ArrayModel, still: Bool) throws -> [CalibrationParameter] {
            let available = ArrayCalibration.parameters(for: model.kind)
            if let fit {
                let asked = fit.split(separator: ",").compactMap {
                    CalibrationParameter(rawValue: $0.trimmingCharacters(in: .whitespaces))
                }
                if let missing = asked.first(where: { !available.contains($0) }) {
                    throw CLIFailure(
                        "--fit \(missing.rawValue): the \(model.kind.rawValue) model has no such parameter (it has \(available.map(\.rawValue).joined(separator: ", ")))",
                        status: .usage)
                }
                return available.filter(asked.contains)
            }
            guard still else { return available }
            let held = available.filter(\.needsAngleRange)
            if !held.isEmpty && !verbosity.quiet {
                Diagnostics.note(
                    "a still source fixes the offsets only; \(held.map(\.rawValue).joined(separator: " and ")) kept as given (sweep a source across to fit \(held.count == 1 ? "it" : "them"))")
            }
            return available.filter { !$0.needsAngleRange }
        }

        /// The before/after table on stderr.
        private func report(
            _ fit: CalibrationFit, nominal: ArrayModel, before: AzimuthErrors, after: AzimuthErrors,
            measurement: Calibrator.Measurement, truth: TruthTrack
        ) {
            let binaural = nominal.kind == .binaural
            let hasILDGain = nominal.kind == .binaural, hasPattern = nominal.kind == .coincident
            let signed = { (x: Double) in x > 0.05 ? "+" + formatTrimmed(x, 0) : x < -0.05 ? "−" + formatTrimmed(-x, 0) : "0" }
            let range = truth.stillAzimuth.map { "a still source at \(signed($0))°" }
                ?? "truth \(signed(fit.lateralRange.lowerBound))…\(signed(fit.lateralRange.upperBound))° (lateral, 5–95 %)"
            Diagnostics.note(
                "calibrate \(file): \(fit.frameCount) confident frames of \(measurement.activeFrames) active (\(measurement.frames) in all); \(range)")
            // One row per parameter and one column per model (nominal, fitted, the fit's standard
            // error): four columns whatever the array, so the table fits an 80-column terminal.
            var names = [binaural ? "head radius" : "spacing", "delay offset", "gain offset"]
            if hasILDGain { names.append("ILD gain") }
            if hasPattern { names += ["pattern", "angle"] }
            names += ["median error", "90th pct", "frames"]
            func column(_ model: ArrayModel, _ errors: AzimuthErrors?) -> [String] {
                var cells = [
                    "\(formatFixedCLI(binaural ? model.headRadiusMeters : model.spacingMeters, 4)) m",
                    "\(formatFixedCLI(model.delayOffsetSeconds * 1e6, 1)) µs", "\(formatFixedCLI(model.gainOffsetDecibels, 2)) dB",
                ]
                if hasILDGain { cells.append(formatFixedCLI(model.ildGain, 2)) }
                if hasPattern {
                    cells += [formatFixedCLI(model.coincidentPair.pattern, 3), "\(formatFixedCLI(model.coincidentPair.includedAngleDegrees, 1))°"]
                }
                if let errors {
                    cells += ["\(formatFixedCLI(errors.median, 2))°", "\(formatFixedCLI(errors.percentile90, 2))°", "\(errors.count)"]
                } else {
                    cells += ["", "", ""]
                }
                return cells
            }
            func error(_ p: CalibrationParameter, _ scale: Double, _ places: Int, _ unit: String) -> String {
                guard let e = fit.standardErrors[p] else { return "held" }
                return "±\(formatSignificant(e * scale, 2))\(unit)"
            }
            var errors = [error(.spacing, 1, 4, " m"), error(.delay, 1e6, 1, " µs"), error(.gain, 1, 2, " dB")]
            if hasILDGain { errors.append(error(.ildGain, 1, 2, "")) }
            if hasPattern {
                errors.append(error(.pattern, 1, 3, ""))
                errors.append(fit.includedAngleStandardError.map { "±\(formatSignificant($0, 2))°" } ?? "held")
            }
            errors += ["", "", ""]
            let nominalColumn = column(nominal, before), fittedColumn = column(fit.array, after)
            let rows = [["", "nominal", "fitted", "std. error"]]
                + names.indices.map { [names[$0], nominalColumn[$0], fittedColumn[$0], errors[$0]] }
            for line in Table.render(rows) {
                // The std. error column is empty in the error rows: no trailing blanks.
                let trimmed = String(line.reversed().drop { $0 == " " }.reversed())
                Diagnostics.write("  " + Diagnostics.escaped(trimmed) + "\n")
            }
        }
    }
}
