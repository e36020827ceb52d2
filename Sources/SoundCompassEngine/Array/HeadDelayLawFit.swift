// Written by Benchmarks/accuracy/headlaw.py --write: the default binaural delay law's
// coefficients (see HeadDelayLaw.measuredHeads), fitted on all four measured heads
// (units of r/c; the leave-one-head-out folds are in Benchmarks/accuracy/headlaw.json).
enum HeadDelayLawFit {
    static let highLinear = 1.8236
    static let highSine = 0.0924
    static let lowLinear = 0.0000
    static let lowSine = 3.2677
}
