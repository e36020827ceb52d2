// Times YAMNet's forward pass: milliseconds per patch on one core (the network runs on the
// calling thread only), for each instruction set this machine supports (best first; the first is
// what the tool uses), and the model's load time. Prints figures; not a test.
//
//   swift run -c release ClassifierBenchmark [patches]
import SoundCompassClassifier
import SoundCompassEngine

#if canImport(Glibc)
import Glibc
#endif

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func cpu() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 400 : 400
let classifier: SoundClassifier
let loadStart = cpu()
do { classifier = try SoundClassifier(directory: YAMNetWeights.defaultDirectory(environment: { getenv($0).map { String(cString: $0) } }), maximumBatch: 3) } catch {
    print("ClassifierBenchmark: \(error)")
    exit(66)
}
print("model load (read, check, pack): \(format3((cpu() - loadStart) * 1000)) ms CPU")
// A patch of a real signal (seeded noise through the front end) so that ReLUs see realistic data.
var state: UInt64 = 33
let noise: [Float] = (0..<15600).map { _ in
    state = state &* 6364136223846793005 &+ 1442695040888963407
    return Float(Int64(bitPattern: state >> 11) % 1000) / 10000
}
let patch = LogMelFrontEnd().logMelFrames(noise)
var logits = [Float](repeating: 0, count: 3 * YAMNet.classCount)
let batch3 = patch + patch + patch
// The 8-bit products (where the CPU has AVX-512 VNNI: what the tool uses there).
if YAMNet.fastestArithmetic == .int8 {
    let network = YAMNet(weights: classifier.network.weights, maximumBatch: 3, arithmetic: .int8)
    for batch in 1...3 {
        for _ in 0..<10 { network.logits(patches: batch3, count: batch, into: &logits) }
        let cpuStart = cpu()
        for _ in 0..<count { network.logits(patches: batch3, count: batch, into: &logits) }
        let perPatchCPU = (cpu() - cpuStart) / Double(count * batch) * 1000
        print("YAMNet forward pass (int8, AVX-512 VNNI), batches of \(batch): per patch \(format3(perPatchCPU)) ms CPU")
    }
}
for isa in YAMNet.supportedInstructionSets {
    YAMNet.useInstructionSet(isa)
    for batch in 1...3 {
        for _ in 0..<10 { classifier.network.logits(patches: batch3, count: batch, into: &logits) }
        var times: [Double] = []
        let cpuStart = cpu()
        for _ in 0..<count {
            let t0 = now()
            classifier.network.logits(patches: batch3, count: batch, into: &logits)
            times.append(now() - t0)
        }
        let cpuSeconds = cpu() - cpuStart
        times.sort()
        let median = times[times.count / 2] * 1000 / Double(batch)
        let perPatchCPU = cpuSeconds / Double(count * batch) * 1000
        print("YAMNet forward pass (\(isa)), batches of \(batch) (\(count) batches): per patch median \(String(format3(median))) ms wall, \(String(format3(perPatchCPU))) ms CPU; \(String(format3(2 * 69.2e6 / (perPatchCPU / 1000) / 1e9))) GFLOP/s")
    }
}

func format3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
