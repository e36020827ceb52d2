// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SoundCompass",
    products: [
        .library(name: "SoundCompass", targets: ["SoundCompass"]),
        .library(name: "SoundCompassEngine", targets: ["SoundCompassEngine"]),
        .library(name: "SoundCompassIO", targets: ["SoundCompassIO"]),
        .library(name: "SoundCompassClassifier", targets: ["SoundCompassClassifier"]),
        .library(name: "TestSignals", targets: ["TestSignals"]),
        .executable(name: "soundcompass", targets: ["SoundCompassCLI"]),
        // The engine for C and other languages (Python: python/, Docs/Python.md): libSoundCompassC.so,
        // with the header Sources/CSoundCompass/include/soundcompass.h.
        .library(name: "SoundCompassC", type: .dynamic, targets: ["SoundCompassC"]),
    ],
    // The tool's optional features. Both are on by default; a build without them
    // (`--disable-default-traits`, or `--traits Classifier`) says so when asked for one:
    // `scripts/demo` builds its first bearing that way (seconds instead of minutes), and the
    // AddressSanitizer stage of CI and the fuzz targets, which never serve, leave Serve out.
    traits: [
        .trait(
            name: "Serve",
            description: "`live --serve`: records and a compass page over HTTP (Hummingbird, SwiftNIO: minutes of a first build on 2 cores)"),
        .trait(
            name: "Classifier",
            description: "`--classify`, `--labels`, `--alert`: what each source is (YAMNet; Docs/Classification.md)"),
        .default(enabledTraits: ["Serve", "Classifier"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The server's packages: resolved always, built only with the Serve trait. Hummingbird's
        // default traits (swift-configuration support, full Foundation) are not needed; the others
        // are named because SoundCompassServe imports them itself.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // MARK: - C libraries from Debian packages
        .systemLibrary(
            name: "CFFTW",
            path: "Sources/CFFTW",
            pkgConfig: "fftw3f",
            providers: [.apt(["libfftw3-dev"])]
        ),
        .systemLibrary(
            name: "CSndFile",
            path: "Sources/CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        .systemLibrary(
            name: "CMySofa",
            path: "Sources/CMySofa",
            pkgConfig: "libmysofa",
            providers: [.apt(["libmysofa-dev"])]
        ),
        .systemLibrary(
            name: "CALSA",
            path: "Sources/CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        .systemLibrary(
            name: "CSoxr",
            path: "Sources/CSoxr",
            pkgConfig: "soxr",
            providers: [.apt(["libsoxr-dev"])]
        ),

        // MARK: - Engine (pure DSP), I/O, and the umbrella that re-exports both
        .target(
            name: "SoundCompassEngine",
            dependencies: ["CFFTW"],
            path: "Sources/SoundCompassEngine"
        ),
        .target(
            name: "SoundCompassIO",
            dependencies: [
                "SoundCompassEngine", "CSndFile", "CALSA", "CMySofa",
            ],
            path: "Sources/SoundCompassIO"
        ),
        .target(
            name: "SoundCompass",
            dependencies: ["SoundCompassEngine", "SoundCompassIO"],
            path: "Sources/SoundCompass"
        ),

        // MARK: - Sound classification (YAMNet, Docs/Classification.md): beside the engine, which
        // knows nothing of it (it depends on the engine alone: RecordLabeler is the engine's)
        .target(
            name: "SoundCompassClassifier",
            dependencies: ["SoundCompassEngine", "CGemm", "CSoxr"],
            path: "Sources/SoundCompassClassifier"
        ),
        // The classifier's matrix product and depthwise convolution in C (our own code): AVX-512,
        // AVX2+FMA and portable versions chosen at run time (Docs/Classification.md#speed).
        .target(
            name: "CGemm",
            path: "Sources/CGemm"
        ),

        // MARK: - Serving records over HTTP (`live --serve`): a target of its own that only the CLI
        // uses, so that a library user does not build a web server. Without the Serve trait its
        // sources compile to nothing and its packages are not built.
        .target(
            name: "SoundCompassServe",
            dependencies: [
                "SoundCompassIO", "SoundCompassEngine",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Serve"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Serve"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Serve"])),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras", condition: .when(traits: ["Serve"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Serve"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Serve"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Serve"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Serve"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Serve"])),
            ],
            path: "Sources/SoundCompassServe"
        ),

        // MARK: - Deterministic test signals (pure Swift, independent of the engine)
        .target(
            name: "TestSignals",
            path: "TestSignals"
        ),

        // MARK: - The analysis options, shared by the command-line tool and the C interface (the same
        // names, defaults, checks and messages)
        .target(
            name: "SoundCompassOptions",
            dependencies: [
                "SoundCompass",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/SoundCompassOptions"
        ),

        // MARK: - The C interface: a versioned header (CSoundCompass) and its Swift implementation
        .target(
            name: "CSoundCompass",
            path: "Sources/CSoundCompass"
        ),
        .target(
            name: "SoundCompassC",
            dependencies: ["SoundCompass", "SoundCompassOptions", "CSoundCompass"],
            path: "Sources/SoundCompassC"
        ),

        // MARK: - Command-line tool
        .executableTarget(
            name: "SoundCompassCLI",
            dependencies: [
                "SoundCompass",
                "SoundCompassOptions",
                "TestSignals",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .target(name: "SoundCompassClassifier", condition: .when(traits: ["Classifier"])),
                .target(name: "SoundCompassServe", condition: .when(traits: ["Serve"])),
            ],
            path: "Sources/SoundCompassCLI"
        ),

        // MARK: - Library examples (the code of Docs/Library.md and README.md, run by the tests)
        .executableTarget(
            name: "LocalizeExample",
            dependencies: ["SoundCompassEngine", "TestSignals"],
            path: "Examples/Localize"
        ),
        .executableTarget(
            name: "ChunksExample",
            dependencies: ["SoundCompassEngine", "TestSignals"],
            path: "Examples/Chunks"
        ),
        .executableTarget(
            name: "SessionExample",
            dependencies: ["SoundCompass"],
            path: "Examples/Session"
        ),
        .executableTarget(
            name: "ReadFileExample",
            dependencies: ["SoundCompass"],
            path: "Examples/ReadFile"
        ),

        // MARK: - The classifier's speed (Benchmarks/classify.sh)
        .executableTarget(
            name: "ClassifierBenchmark",
            dependencies: ["SoundCompassClassifier", "SoundCompassEngine"],
            path: "Benchmarks/Classifier"
        ),

        // MARK: - Tests
        .target(
            name: "TestSupport",
            dependencies: ["SoundCompassEngine", "TestSignals"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "SoundCompassEngineTests",
            dependencies: ["SoundCompassEngine", "TestSignals", "TestSupport"]
        ),
        .testTarget(
            name: "SoundCompassIOTests",
            dependencies: ["SoundCompassIO", "SoundCompassEngine", "TestSignals", "TestSupport"]
        ),
        .testTarget(
            name: "SoundCompassClassifierTests",
            dependencies: ["SoundCompassClassifier", "CGemm", "SoundCompassIO", "SoundCompassEngine", "TestSignals", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SoundCompassServeTests",
            dependencies: ["SoundCompassServe", "SoundCompassIO", "SoundCompassEngine", "TestSupport"]
        ),
        .testTarget(
            name: "SoundCompassCTests",
            dependencies: ["SoundCompassC", "CSoundCompass"]
        ),
        .testTarget(
            name: "TestSignalsTests",
            dependencies: ["TestSignals"]
        ),
        .testTarget(
            name: "SoundCompassCLITests",
            dependencies: [
                "SoundCompassCLI", "SoundCompass", "TestSignals", "TestSupport",
                "LocalizeExample", "ChunksExample", "ReadFileExample", "SessionExample",
                // sc_gemm8_has_vnni: which arithmetic `--classifier-arithmetic fast` runs here.
                "CGemm",
            ]
        ),

        // MARK: - Allocation counting: a malloc replacement for the tests, and the test that the
        // per-frame path allocates nothing
        .target(
            name: "CMallocCounter",
            path: "Tests/CMallocCounter"
        ),
        .testTarget(
            name: "SoundCompassAllocationTests",
            dependencies: [
                "SoundCompassEngine", "SoundCompassIO", "SoundCompassClassifier", "TestSignals", "TestSupport",
                "CMallocCounter", "SoundCompassC", "CSoundCompass",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: - Fuzz targets (Fuzz/, run by scripts/fuzz): declared only when SOUNDCOMPASS_FUZZ=1, so the
// everyday build and test never see them. They need `-sanitize=fuzzer` to link (libFuzzer's driver),
// so a plain `swift build` of every target would fail on them: a trait can gate a dependency or a
// block of code, not whether a target exists, hence a switch rather than a trait. scripts/fuzz
// builds them with `--traits Classifier` (no server: no target of theirs serves).
if Context.environment["SOUNDCOMPASS_FUZZ"] == "1" {
    package.targets += [
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"], path: "Fuzz/Support"),
        .executableTarget(name: "FuzzSoundFile", dependencies: ["FuzzSupport", "SoundCompass"], path: "Fuzz/SoundFile"),
        .executableTarget(name: "FuzzRawPCM", dependencies: ["FuzzSupport", "SoundCompass"], path: "Fuzz/RawPCM"),
        .executableTarget(name: "FuzzIMU", dependencies: ["FuzzSupport", "SoundCompass"], path: "Fuzz/IMU"),
        .executableTarget(name: "FuzzProfile", dependencies: ["FuzzSupport", "SoundCompass"], path: "Fuzz/Profile"),
        .executableTarget(name: "FuzzTruth", dependencies: ["FuzzSupport", "SoundCompass"], path: "Fuzz/Truth"),
        // SwiftPM links no executable target's code into another executable: scripts/fuzz compiles
        // the CLI first and names its object files in SOUNDCOMPASS_FUZZ_CLI_OBJECTS.
        .executableTarget(
            name: "FuzzOptions",
            dependencies: ["FuzzSupport", "SoundCompass", "SoundCompassClassifier", "SoundCompassOptions", "SoundCompassCLI"],
            path: "Fuzz/Options",
            linkerSettings: [.unsafeFlags(
                (Context.environment["SOUNDCOMPASS_FUZZ_CLI_OBJECTS"] ?? "").split(separator: " ").map(String.init))]),
    ]
}

// MARK: - Per-stage micro-benchmarks (Benchmarks/Stages, run by scripts/stage-benchmarks): declared
// only when SOUNDCOMPASS_BENCHMARKS=1, so the everyday build and test never fetch or build
// package-benchmark. A trait cannot express it: a package dependency is resolved (fetched) whatever
// the traits, and a target's build plugin (BenchmarkPlugin) takes no trait condition. Its "MallocInterposer" trait counts allocations (and needs tools 6.1).
if Context.environment["SOUNDCOMPASS_BENCHMARKS"] == "1" {
    package.dependencies += [
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ]
    package.targets += [
        .executableTarget(
            name: "StageBenchmarks",
            dependencies: [
                "SoundCompassEngine", "SoundCompassIO", "TestSignals",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Stages",
            // package-benchmark's closures capture each benchmark's (non-Sendable) engine state.
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
}
