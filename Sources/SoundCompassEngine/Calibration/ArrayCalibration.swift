#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A quantity of an ``ArrayModel`` that ``ArrayCalibration`` can fit.
public enum CalibrationParameter: String, Sendable, CaseIterable {
    /// The aperture: microphone spacing (spaced, coincident) or head radius (binaural), metres.
    case spacing
    /// The hardware's inter-channel delay, ``ArrayModel/delayOffset``, seconds.
    case delay
    /// The hardware's inter-channel gain, ``ArrayModel/gainOffsetDecibels``, dB.
    case gain
    /// The binaural level-cue gain, ``ArrayModel/ildGain``, dB at 90°.
    case ildGain = "ild-gain"
    /// A coincident pair's pattern coefficient and included angle, ``ArrayModel/coincidentPair``
    /// (fitted together).
    case pattern

    /// True for the parameters that scale a cue with the angle, which only a truth covering a
    /// range of angles can fit (a still source fixes the offsets only).
    public var needsAngleRange: Bool { self == .spacing || self == .ildGain || self == .pattern }
}

/// One analysis frame's cues as measured (no profile offset removed), with the true azimuth.
public struct CalibrationObservation: Sendable, Equatable {
    /// Frame time, seconds.
    public var time: Double
    /// True azimuth, degrees (only its lateral part, `sin θ`, is used).
    public var truthAzimuth: Double
    /// Measured delay, arrival at right minus arrival at left, seconds.
    public var delay: Double
    /// Measured broadband level difference, right minus left, dB.
    public var ildDecibels: Double
    /// Measured level difference above 1.5 kHz, right minus left, dB.
    public var highFrequencyILD: Double
    /// How much the frame counts, 0…1: its fused confidence.
    public var weight: Double
    /// Mean of `L²` over the frame (linear; what a coincident pattern fit reads).
    public var leftPower: Double
    /// Mean of `R²` over the frame.
    public var rightPower: Double
    /// Mean of `L·R` over the frame.
    public var crossPower: Double
    /// Binaural: the low-frequency share the delay was measured at
    /// (``ArrayModel/lowFrequencyShare(frequencyHz:)``), 0 otherwise.
    public var lowFrequencyShare: Double = 0

    public init(
        time: Double, truthAzimuth: Double, delay: Double, ildDecibels: Double, highFrequencyILD: Double,
        weight: Double, leftPower: Double = 0, rightPower: Double = 0, crossPower: Double = 0
    ) {
        self.leftPower = leftPower
        self.rightPower = rightPower
        self.crossPower = crossPower
        self.time = time
        self.truthAzimuth = truthAzimuth
        self.delay = delay
        self.ildDecibels = ildDecibels
        self.highFrequencyILD = highFrequencyILD
        self.weight = weight
    }
}

/// The result of a fit: the corrected model and how well the data pinned it down.
public struct CalibrationFit: Sendable, Equatable {
    /// The nominal model with the fitted parameters replaced.
    public var array: ArrayModel
    /// The parameters that were fitted (the others kept their nominal values).
    public var fitted: [CalibrationParameter]
    /// Standard error of each fitted parameter in its own unit (m, s, dB, gain), assuming
    /// independent frames (overlapping frames are not: read them as lower bounds).
    public var standardErrors: [CalibrationParameter: Double]
    /// Confident frames the fit used.
    public var frameCount: Int
    /// The true azimuths the fit saw, 5th to 95th percentile of `sin θ`, as degrees.
    public var lateralRange: ClosedRange<Double>
    /// RMS residual of the delays after the fit, seconds (robust weights applied).
    public var delayResidual: Double
    /// Standard error of the fitted included angle, degrees (``CalibrationParameter/pattern``;
    /// ``standardErrors`` holds the pattern coefficient's).
    public var includedAngleStandardError: Double?
}

/// Why a recording cannot support a calibration. Each description is one line.
public enum CalibrationError: Error, Equatable, CustomStringConvertible {
    /// The recording is shorter than one analysis frame of `frameLength` samples.
    case shorterThanOneFrame(frameLength: Int)
    /// No frame was active: silence, or nothing above the noise floor.
    case noActiveFrames(frames: Int)
    /// Too few active, confident frames where the truth says where the source is.
    case tooFewFrames(confident: Int, needed: Int, active: Int)
    /// The truth covers too narrow a range of angles to fit `parameter` for this aperture.
    case narrowTruth(parameter: CalibrationParameter, low: Double, high: Double, neededSpan: Double)
    /// The fit came out unphysical or too uncertain.
    case cannotFit(parameter: CalibrationParameter, reason: String)

    public var description: String {
        switch self {
        case .shorterThanOneFrame(let n):
            "shorter than one analysis frame (\(n) samples): nothing to calibrate on; give a smaller --frame or a longer recording"
        case .noActiveFrames(let n):
            "no sound above the noise floor in any of its \(n) frames: nothing to calibrate on"
        case .tooFewFrames(let confident, let needed, let active):
            "only \(confident) confident frames where the truth knows the source (of \(active) active); a fit needs at least \(needed) — record a longer or louder known sound"
        case .narrowTruth(let parameter, let low, let high, let span):
            "the truth covers only \(formatDegrees(low))…\(formatDegrees(high))° (sin θ span \(formatFixed(sin(high * .pi / 180) - sin(low * .pi / 180), 2))); fitting the \(parameter.noun) needs a span of at least \(formatFixed(span, 2)) — sweep the source further across, or fit the offsets only"
        case .cannotFit(let parameter, let reason):
            "cannot fit the \(parameter.noun): \(reason)"
        }
    }
}

extension CalibrationParameter {
    /// What the parameter is called in messages.
    var noun: String {
        switch self {
        case .spacing: "spacing"
        case .delay: "delay offset"
        case .gain: "gain offset"
        case .ildGain: "ILD gain"
        case .pattern: "pattern and angle"
        }
    }
}

/// Fits an ``ArrayModel`` to frames of a recording whose true directions are known.
///
/// The time cue is linear in the aperture and the offset:
/// spaced and coincident `τ = −(d/c)·sin θ + τ₀`; binaural (Woodworth)
/// `τ = −(r/c)·(φ + sin φ) + τ₀` with `φ = asin(sin θ)`. Both are fitted by weighted least
/// squares with Huber weights (robust to the odd reflection). The level cue: spaced,
/// `ILD = g₀` (a free-field pair hears no level difference); binaural, high-frequency
/// `ILD = G·sin θ + g₀` (linear again); coincident, the pair's pattern and included angle and
/// `g₀` from the frames' principal angles (``CoincidentPairFit``; the capsules' delay is 0, so
/// only the delay offset `τ₀` is fitted to the time cue).
public enum ArrayCalibration {
    /// Frames with a smaller fused confidence are not used (the engine's threshold for a
    /// confident frame, as for the tracker and segment summaries).
    public static let minimumConfidence = ConfidenceMapping.confident
    /// Fewest confident frames a fit accepts.
    public static let minimumFrames = 30
    /// Smallest span of `sin θ` (5th to 95th percentile) that fits a scale (spacing, ILD gain).
    public static let minimumLateralSpan = 0.3
    /// The delays across the truth's span must cover at least this many samples to fit a spacing.
    public static let minimumDelaySpanSamples = 3.0
    /// Largest relative standard error accepted for a fitted scale.
    public static let maximumRelativeError = 0.02

    /// The parameters a model can have fitted, in order.
    public static func parameters(for kind: ArrayModel.Kind) -> [CalibrationParameter] {
        switch kind {
        case .spaced: [.spacing, .delay, .gain]
        case .binaural: [.spacing, .delay, .gain, .ildGain]
        case .coincident: [.delay, .gain, .pattern]
        }
    }

    /// The smallest span of `sin θ` that fits the aperture of `model` at `sampleRate` Hz: at
    /// least ``minimumLateralSpan``, more when the pair is so small that the span's delays
    /// cover fewer than ``minimumDelaySpanSamples`` samples.
    public static func neededLateralSpan(for model: ArrayModel, sampleRate: Double) -> Double {
        let fullSpanSamples = 2 * model.maximumDelaySeconds * sampleRate
        return max(minimumLateralSpan, 2 * minimumDelaySpanSamples / max(fullSpanSamples, 1e-9))
    }

    /// Fits `parameters` of `nominal` to `observations`.
    /// - Parameters:
    ///   - observations: active frames with a truth (weights below ``minimumConfidence`` are dropped).
    ///   - nominal: the model the recording was analysed with; unfitted parameters keep its values.
    ///   - parameters: what to fit (see ``parameters(for:)``).
    ///   - sampleRate: Hz, for the span a spacing needs.
    ///   - activeFrames: active frames in the recording, for the message when too few are confident.
    /// - Throws: ``CalibrationError``.
    public static func fit(
        _ observations: [CalibrationObservation], nominal: ArrayModel, parameters: [CalibrationParameter],
        sampleRate: Double, activeFrames: Int
    ) throws(CalibrationError) -> CalibrationFit {
        let used = observations.filter { $0.weight >= minimumConfidence && $0.weight.isFinite }
        guard used.count >= minimumFrames else {
            throw .tooFewFrames(confident: used.count, needed: minimumFrames, active: activeFrames)
        }
        let frames = Frames(used)
        let low = Quantile.weighted(frames.lateral, weights: frames.weights, 0.05)
        let high = Quantile.weighted(frames.lateral, weights: frames.weights, 0.95)
        try checkSpan(low...high, nominal: nominal, parameters: parameters, sampleRate: sampleRate)
        var fit = CalibrationFit(
            array: nominal, fitted: parameters, standardErrors: [:], frameCount: used.count,
            lateralRange: ArrayModel.azimuthDegrees(lateral: low)...ArrayModel.azimuthDegrees(lateral: high), delayResidual: 0)
        try fitTimeCue(frames, parameters: parameters, into: &fit)
        if parameters.contains(.gain) || parameters.contains(.ildGain) || parameters.contains(.pattern) {
            try fitLevelCue(frames, parameters: parameters, into: &fit)
        }
        return fit
    }

    // MARK: - Steps of `fit`

    /// The confident frames a fit uses, as columns.
    private struct Frames {
        let observations: [CalibrationObservation]
        /// Each frame's weight, its fused confidence.
        let weights: [Double]
        /// Each frame's true lateral position `sin θ`.
        let lateral: [Double]

        init(_ observations: [CalibrationObservation]) {
            self.observations = observations
            weights = observations.map(\.weight)
            lateral = observations.map { sin($0.truthAzimuth * .pi / 180) }
        }
    }


    /// Throws when the truth's span of `sin θ` (5th to 95th percentile) is too narrow for a
    /// parameter that scales a cue with the angle.
    private static func checkSpan(
        _ span: ClosedRange<Double>, nominal: ArrayModel, parameters: [CalibrationParameter], sampleRate: Double
    ) throws(CalibrationError) {
        for parameter in parameters where parameter.needsAngleRange {
            let needed = parameter == .spacing
                ? neededLateralSpan(for: nominal, sampleRate: sampleRate) : minimumLateralSpan
            if span.upperBound - span.lowerBound < needed {
                throw .narrowTruth(
                    parameter: parameter, low: ArrayModel.azimuthDegrees(lateral: span.lowerBound), high: ArrayModel.azimuthDegrees(lateral: span.upperBound), neededSpan: needed)
            }
        }
    }

    /// Fits the time cue, `τ = aperture·x + τ₀` with `x` the model's delay per unit aperture,
    /// into `fit` (the aperture for `.spacingMeters`, `τ₀` for `.delay`, and the delay residual).
    private static func fitTimeCue(
        _ frames: Frames, parameters: [CalibrationParameter], into fit: inout CalibrationFit
    ) throws(CalibrationError) {
        let nominal = fit.array
        let c = nominal.speedOfSoundMetersPerSecond
        let x: [Double] = frames.lateral.map { s in
            switch nominal.kind {
            case .spaced, .coincident: return -s / c
            case .binaural: return 0  // per observation, below
            }
        }.enumerated().map { i, value in
            // Binaural: the delay law at the frame's own low-frequency share, per unit radius.
            guard nominal.kind == .binaural else { return value }
            return -nominal.headLaw.path(theta: asin(max(-1, min(1, frames.lateral[i]))), share: frames.observations[i].lowFrequencyShare) / c
        }
        // A coincident pair's delay is 0 for every direction: its slope is 0.
        let aperture = switch nominal.kind {
        case .binaural: nominal.headRadiusMeters
        case .spaced: nominal.spacingMeters
        case .coincident: 0.0
        }
        let time = RobustLine.fit(
            x: x, y: frames.observations.map(\.delay), weights: frames.weights,
            slope: parameters.contains(.spacing) ? nil : aperture,
            intercept: parameters.contains(.delay) ? nil : nominal.delayOffsetSeconds)
        if parameters.contains(.spacing) {
            guard time.slope > 0 else {
                throw .cannotFit(parameter: .spacing, reason: time.slope < 0
                    ? "the delay falls as the source moves right, the opposite of a left/right pair — are the channels swapped?"
                    : "the delay does not change with the angle")
            }
            let relative = time.slopeError / time.slope
            guard relative <= maximumRelativeError else {
                throw .cannotFit(parameter: .spacing, reason: "the delays scatter too much (±\(formatFixed(100 * relative, 1)) %, at most \(formatFixed(100 * maximumRelativeError, 0)) % accepted) — record in a quieter, less reverberant place")
            }
            guard time.slope <= 10 else {
                throw .cannotFit(parameter: .spacing, reason: "the fitted aperture \(formatFixed(time.slope, 3)) m is not a microphone pair")
            }
            if nominal.kind == .binaural { fit.array.headRadiusMeters = time.slope } else { fit.array.spacingMeters = time.slope }
            fit.standardErrors[.spacing] = time.slopeError
        }
        if parameters.contains(.delay) {
            fit.array.delayOffsetSeconds = time.intercept
            fit.standardErrors[.delay] = time.interceptError
        }
        fit.delayResidual = time.residual
    }

    /// Fits the level cue into `fit` (`.gain`, `.ildGain`): spaced, a constant level difference;
    /// binaural, a line in `sin θ`; coincident, the pair's patterns by search (and `.pattern`).
    private static func fitLevelCue(
        _ frames: Frames, parameters: [CalibrationParameter], into fit: inout CalibrationFit
    ) throws(CalibrationError) {
        let nominal = fit.array
        let wantsGain = parameters.contains(.gain), wantsILDGain = parameters.contains(.ildGain)
        let level: (slope: Double, slopeError: Double, intercept: Double, interceptError: Double)
        switch nominal.kind {
        case .spaced:
            let line = RobustLine.fit(
                x: frames.lateral, y: frames.observations.map(\.ildDecibels), weights: frames.weights, slope: 0,
                intercept: wantsGain ? nil : nominal.gainOffsetDecibels)
            level = (nominal.ildGain, 0, line.intercept, line.interceptError)
            guard wantsGain else { return }
        case .binaural:
            let line = RobustLine.fit(
                x: frames.lateral, y: frames.observations.map(\.highFrequencyILD), weights: frames.weights,
                slope: wantsILDGain ? nil : nominal.ildGain, intercept: wantsGain ? nil : nominal.gainOffsetDecibels)
            if wantsILDGain && !(line.slope >= ArrayModel.ildGainRange.lowerBound) {
                throw .cannotFit(parameter: .ildGain, reason: "the level difference does not grow towards the louder side (\(formatFixed(line.slope, 2)) dB at 90°)")
            }
            if wantsILDGain && !(line.slope <= ArrayModel.ildGainRange.upperBound) {
                throw .cannotFit(
                    parameter: .ildGain,
                    reason: "it comes out at \(formatFixed(line.slope, 1)) dB at 90°, beyond the \(formatFixed(ArrayModel.ildGainRange.upperBound, 0)) a head can have")
            }
            level = (line.slope, line.slopeError, line.intercept, line.interceptError)
        case .coincident:
            let pairFrames = frames.observations.enumerated().map { i, o in
                CoincidentPairFit.Frame(
                    leftPower: o.leftPower, rightPower: o.rightPower, crossPower: o.crossPower,
                    cosine: cos(o.truthAzimuth * .pi / 180), sine: sin(o.truthAzimuth * .pi / 180),
                    weight: frames.weights[i])
            }
            let wantsPattern = parameters.contains(.pattern)
            let pairFit = CoincidentPairFit.fit(
                pairFrames, pair: wantsPattern ? nil : nominal.coincidentPair, offset: wantsGain ? nil : nominal.gainOffsetDecibels)
            if wantsPattern {
                guard pairFit.pair.pattern < 0.95 else {
                    throw .cannotFit(parameter: .pattern, reason: "the channels' levels hardly change with the angle (pattern \(formatFixed(pairFit.pair.pattern, 2)), nearly omni): a coincident pair needs directional capsules")
                }
                fit.array.coincidentPair = pairFit.pair
                fit.standardErrors[.pattern] = pairFit.patternError
                fit.includedAngleStandardError = pairFit.angleError
            }
            level = (nominal.ildGain, 0, pairFit.offset, pairFit.offsetError)
        }
        if wantsILDGain && nominal.kind == .binaural {
            fit.array.ildGain = level.slope
            fit.standardErrors[.ildGain] = level.slopeError
        }
        if wantsGain {
            // A profile must load back: an offset beyond the range (from a nominal ILD gain far
            // from the recording's) is refused here rather than written.
            guard ArrayModel.gainOffsetRange.contains(level.intercept) else {
                let r = ArrayModel.gainOffsetRange
                throw .cannotFit(
                    parameter: .gain,
                    reason: "it comes out at \(formatFixed(level.intercept, 1)) dB, beyond \(formatFixed(r.lowerBound, 0))…+\(formatFixed(r.upperBound, 0)) dB; is the nominal model (--array, --ild-gain) the recording's?")
            }
            fit.array.gainOffsetDecibels = level.intercept
            fit.standardErrors[.gain] = level.interceptError
        }
    }

}

/// A straight line `y = slope·x + intercept` fitted by iteratively reweighted least squares
/// with Huber weights; either coefficient may be held fixed.
struct RobustLine {
    var slope: Double
    var intercept: Double
    /// Standard errors (0 for a held coefficient).
    var slopeError: Double
    var interceptError: Double
    /// Weighted RMS residual.
    var residual: Double

    /// Huber's tuning constant, in robust standard deviations.
    static let huber = 1.5

    static func fit(x: [Double], y: [Double], weights: [Double], slope fixedSlope: Double?, intercept fixedIntercept: Double?)
        -> RobustLine
    {
        let n = x.count
        var robust = [Double](repeating: 1, count: n)
        var line = RobustLine(slope: fixedSlope ?? 0, intercept: fixedIntercept ?? 0, slopeError: 0, interceptError: 0, residual: 0)
        for iteration in 0..<8 {
            let w = (0..<n).map { weights[$0] * robust[$0] }
            let sw = w.reduce(0, +)
            guard sw > 0 else { break }
            let mx = zip(w, x).reduce(0) { $0 + $1.0 * $1.1 } / sw
            let my = zip(w, y).reduce(0) { $0 + $1.0 * $1.1 } / sw
            var sxx = 0.0, sxy = 0.0
            for i in 0..<n {
                sxx += w[i] * (x[i] - mx) * (x[i] - mx)
                sxy += w[i] * (x[i] - mx) * (y[i] - my)
            }
            switch (fixedSlope, fixedIntercept) {
            case (nil, nil):
                line.slope = sxx > 0 ? sxy / sxx : 0
                line.intercept = my - line.slope * mx
            case (nil, let b?):
                var sxx0 = 0.0, sxy0 = 0.0
                for i in 0..<n { sxx0 += w[i] * x[i] * x[i]; sxy0 += w[i] * x[i] * (y[i] - b) }
                line.slope = sxx0 > 0 ? sxy0 / sxx0 : 0
            case (let a?, nil):
                line.intercept = my - a * mx
            case (_?, _?):
                break
            }
            let residuals = (0..<n).map { y[$0] - line.slope * x[$0] - line.intercept }
            // Robust scale: 1.4826 × the median absolute residual.
            let scale = 1.4826 * Quantile.interpolated(sorted: residuals.map(abs).sorted(), 0.5)
            // Errors from the final weights.
            let variance = zip(w, residuals).reduce(0) { $0 + $1.0 * $1.1 * $1.1 } / sw
            let effective = sw * sw / w.reduce(0) { $0 + $1 * $1 }
            line.residual = variance.squareRoot()
            let spread = sxx / sw
            line.slopeError = fixedSlope == nil && spread > 0 ? (variance / (effective * spread)).squareRoot() : 0
            line.interceptError = fixedIntercept != nil ? 0
                : fixedSlope != nil || spread == 0 ? (variance / effective).squareRoot()
                : (variance / effective * (1 + mx * mx / spread)).squareRoot()
            guard scale > 0, iteration < 7 else { break }
            for i in 0..<n {
                let r = abs(residuals[i])
                robust[i] = r <= huber * scale ? 1 : huber * scale / r
            }
        }
        return line
    }
}
