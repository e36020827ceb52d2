import SoundCompassEngine
import CALSA

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every call SoundCompass makes into ALSA lives in this file: raw handles and return codes do
/// not leave it.
enum ALSACalls {
    /// Keeps ALSA's own "ALSA lib …" lines off the user's terminal. Idempotent.
    static func silenceLibraryMessages() {
        soundcompass_alsa_silence_errors()
    }

    /// ALSA's message for a negative error code. The corresponding C function is `snd_strerror`.
    static func message(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }

    /// The ALSA format of an encoding.
    static func format(_ encoding: PCMEncoding) -> snd_pcm_format_t {
        switch encoding {
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .int32: SND_PCM_FORMAT_S32_LE
        case .int24In32: SND_PCM_FORMAT_S24_LE
        case .int24Packed: SND_PCM_FORMAT_S24_3LE
        case .int16: SND_PCM_FORMAT_S16_LE
        }
    }
}

/// What a capture PCM accepts.
package struct ALSACapabilities: Sendable, Equatable {
    /// Channel counts the device accepts.
    package var channels: ClosedRange<Int>
    /// Sample rates the device accepts, Hz.
    package var rates: ClosedRange<Int>
    /// The encodings SoundCompass reads that the device offers, in ``PCMEncoding/preference`` order.
    package var encodings: [PCMEncoding]
}

/// An open ALSA capture PCM, closed on deinit.
final class ALSAPCM {
    let name: String
    private var handle: OpaquePointer?
    /// The configuration tree the PCM was opened from, which must outlive it.
    private var configuration: OpaquePointer?

    /// Opens `name` for capture, blocking mode.
    /// - Parameters:
    ///   - name: an ALSA PCM name (`default`, `hw:1,0`, `plughw:CARD=USB`), as `arecord -D` takes.
    ///   - configurationText: ALSA configuration to define `name` in, instead of the system's
    ///     (for example a `file` PCM that replays a recording).
    ///   - nonBlocking: leave the PCM in non-blocking mode (for listing). Either way the open
    ///     itself never waits for a busy device: it fails with ``ALSAError/busy(device:)``.
    /// The corresponding C functions are `snd_pcm_open`, `snd_pcm_open_lconf` and `snd_pcm_nonblock`.
    init(name: String, configurationText: String? = nil, nonBlocking: Bool = false) throws(ALSAError) {
        ALSACalls.silenceLibraryMessages()
        self.name = name
        // Open non-blocking so a busy device fails at once instead of waiting for its holder.
        let mode = Int32(SND_PCM_NONBLOCK)
        var pcm: OpaquePointer?
        let result: Int32
        if let configurationText {
            var top: OpaquePointer?
            guard snd_config_top(&top) == 0, let top else {
                throw .failed(device: name, operation: "creating a configuration", code: -ENOMEM)
            }
            var input: OpaquePointer?
            let bytes = Array(configurationText.utf8)
            let opened = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { snd_input_buffer_open(&input, $0.baseAddress, bytes.count) }
            }
            guard opened == 0, let input else {
                snd_config_delete(top)
                throw .failed(device: name, operation: "reading the configuration", code: opened)
            }
            let loaded = snd_config_load(top, input)
            snd_input_close(input)
            guard loaded == 0 else {
                snd_config_delete(top)
                throw .unsupported(device: name, problem: "the ALSA configuration does not parse (\(ALSACalls.message(loaded)))")
            }
            configuration = top
            result = snd_pcm_open_lconf(&pcm, name, SND_PCM_STREAM_CAPTURE, mode, top)
        } else {
            // snd_pcm_open loads the global configuration: refuse files it would read for ever.
            try ALSAConfigurationFiles.check()
            result = snd_pcm_open(&pcm, name, SND_PCM_STREAM_CAPTURE, mode)
        }
        guard result == 0, let pcm else {
            if let configuration { snd_config_delete(configuration) }
            configuration = nil
            switch -result {
            case ENOENT, ENODEV, ENXIO: throw .noSuchDevice(device: name)
            case EBUSY, EAGAIN: throw .busy(device: name)
            case EACCES, EPERM: throw .permissionDenied(device: name)
            default: throw .failed(device: name, operation: "opening the device", code: result)
            }
        }
        handle = pcm
        if !nonBlocking { snd_pcm_nonblock(pcm, 0) }
    }

    deinit {
        if let handle { snd_pcm_close(handle) }
        if let configuration { snd_config_delete(configuration) }
    }

    /// True when the PCM is ALSA's `file` plugin, which replays a file as capture and never
    /// signals the end of it. The corresponding C function is `snd_pcm_type`.
    var isFilePlugin: Bool { snd_pcm_type(handle) == SND_PCM_TYPE_FILE }

    /// What the device accepts. The corresponding C functions are `snd_pcm_hw_params_any` and
    /// the `snd_pcm_hw_params_get_*_min/max` and `snd_pcm_hw_params_test_format` family.
    func capabilities() throws(ALSAError) -> ALSACapabilities {
        try withHardwareParameters { params in capabilities(params) }
    }

    /// Runs `body` with a fresh hardware-parameter space holding everything the device
    /// accepts, freed afterwards. The corresponding C functions are `snd_pcm_hw_params_malloc`,
    /// `snd_pcm_hw_params_any` and `snd_pcm_hw_params_free`.
    private func withHardwareParameters<T>(_ body: (OpaquePointer) throws(ALSAError) -> T) throws(ALSAError) -> T {
        var params: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&params) == 0, let params else {
            throw .failed(device: name, operation: "allocating hardware parameters", code: -ENOMEM)
        }
        defer { snd_pcm_hw_params_free(params) }
        let any = snd_pcm_hw_params_any(handle, params)
        guard any >= 0 else { throw .failed(device: name, operation: "querying the device", code: any) }
        return try body(params)
    }

    private func capabilities(_ params: OpaquePointer) -> ALSACapabilities {
        var channelMin: UInt32 = 0, channelMax: UInt32 = 0, rateMin: UInt32 = 0, rateMax: UInt32 = 0
        var direction: Int32 = 0
        snd_pcm_hw_params_get_channels_min(params, &channelMin)
        snd_pcm_hw_params_get_channels_max(params, &channelMax)
        snd_pcm_hw_params_get_rate_min(params, &rateMin, &direction)
        snd_pcm_hw_params_get_rate_max(params, &rateMax, &direction)
        let encodings = PCMEncoding.preference.filter {
            snd_pcm_hw_params_test_format(handle, params, ALSACalls.format($0)) == 0
        }
        // Plugins report "any" as huge ranges; keep them printable.
        let cMax = Int(min(channelMax, 1024)), rMax = Int(min(rateMax, 10_000_000))
        return ALSACapabilities(
            channels: min(Int(channelMin), cMax)...cMax, rates: min(Int(rateMin), rMax)...rMax, encodings: encodings)
    }

    /// The negotiated stream.
    struct StreamParameters {
        var encoding: PCMEncoding
        var channels: Int
        var rate: Int
        var periodFrames: Int
        var bufferFrames: Int
    }

    /// Sets interleaved read access, the encoding, the channel count, the rate (nearest the
    /// device offers) and the period and buffer sizes (nearest), then prepares the stream.
    /// The corresponding C functions are `snd_pcm_hw_params_set_*`, `snd_pcm_hw_params`
    /// and `snd_pcm_prepare`.
    func configure(
        encoding: PCMEncoding, channels: Int, rate: Int, periodFrames: Int, periodsPerBuffer: Int
    ) throws(ALSAError) -> StreamParameters {
        try withHardwareParameters { params throws(ALSAError) in
            try configure(params, encoding: encoding, channels: channels, rate: rate, periodFrames: periodFrames,
                          periodsPerBuffer: periodsPerBuffer)
        }
    }

    private func configure(
        _ params: OpaquePointer, encoding: PCMEncoding, channels: Int, rate: Int, periodFrames: Int, periodsPerBuffer: Int
    ) throws(ALSAError) -> StreamParameters {
        var code = snd_pcm_hw_params_set_access(handle, params, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard code == 0 else { throw .unsupported(device: name, problem: "the device cannot be read interleaved") }
        code = snd_pcm_hw_params_set_format(handle, params, ALSACalls.format(encoding))
        guard code == 0 else { throw .unsupported(device: name, problem: "the device does not offer \(encoding.alsaName)") }
        code = snd_pcm_hw_params_set_channels(handle, params, UInt32(channels))
        guard code == 0 else { throw .unsupported(device: name, problem: "the device cannot capture \(channels) channels") }
        var actualRate = UInt32(rate)
        var direction: Int32 = 0
        code = snd_pcm_hw_params_set_rate_near(handle, params, &actualRate, &direction)
        guard code == 0 else { throw .unsupported(device: name, problem: "the device cannot capture near \(rate) Hz") }
        var period = snd_pcm_uframes_t(periodFrames)
        code = snd_pcm_hw_params_set_period_size_near(handle, params, &period, &direction)
        guard code == 0 else {
            throw .unsupported(device: name, problem: "the device cannot use a period near \(periodFrames) frames")
        }
        var buffer = snd_pcm_uframes_t(Int(period) * periodsPerBuffer)
        code = snd_pcm_hw_params_set_buffer_size_near(handle, params, &buffer)
        guard code == 0 else {
            throw .unsupported(device: name, problem: "the device cannot use a buffer near \(Int(period) * periodsPerBuffer) frames")
        }
        code = snd_pcm_hw_params(handle, params)
        guard code == 0 else { throw .failed(device: name, operation: "setting the stream parameters", code: code) }
        var bufferSize: snd_pcm_uframes_t = 0, periodSize: snd_pcm_uframes_t = 0
        guard snd_pcm_hw_params_get_period_size(params, &periodSize, &direction) == 0, periodSize > 0,
            snd_pcm_hw_params_get_buffer_size(params, &bufferSize) == 0, bufferSize >= periodSize
        else {
            throw .unsupported(device: name, problem: "the device did not report its period and buffer sizes")
        }
        code = snd_pcm_prepare(handle)
        guard code == 0 else { throw .failed(device: name, operation: "preparing the stream", code: code) }
        return StreamParameters(
            encoding: encoding, channels: channels, rate: Int(actualRate), periodFrames: Int(periodSize),
            bufferFrames: Int(bufferSize))
    }

    /// Reads up to `frames` interleaved frames; blocks until they are there.
    /// - Returns: frames read, or a negative errno (`-EPIPE` overrun, `-ESTRPIPE` suspend, …).
    /// The corresponding C function is `snd_pcm_readi`.
    func readInterleaved(into buffer: UnsafeMutableRawPointer, frames: Int) -> Int {
        snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames))
    }

    /// Brings the stream back after an overrun or a suspend, quietly.
    /// - Returns: 0, or the negative errno that could not be recovered from.
    /// The corresponding C function is `snd_pcm_recover`.
    func recover(from code: Int32) -> Int32 {
        snd_pcm_recover(handle, code, 1)
    }
}

// MARK: - Listing devices

extension ALSACalls {
    /// A PCM that ALSA's configuration defines and that can capture.
    struct NamedPCM { var name: String; var description: String }

    /// PCMs from ALSA's configuration hints that can capture (input or both directions).
    /// The corresponding C functions are `snd_device_name_hint` and `snd_device_name_get_hint`.
    /// - Throws: ``ALSAError/unusableConfiguration(file:origin:problem:)`` when a configuration
    ///   file could not be read in bounded time and memory.
    static func capturePCMHints() throws(ALSAError) -> [NamedPCM] {
        try ALSAConfigurationFiles.check()
        silenceLibraryMessages()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func field(_ hint: UnsafeMutableRawPointer, _ key: String) -> String? {
            guard let value = snd_device_name_get_hint(hint, key) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var result: [NamedPCM] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = field(hint, "NAME") else { continue }
            let direction = field(hint, "IOID")
            guard direction == nil || direction == "Input" else { continue }
            let description = (field(hint, "DESC") ?? "").split(whereSeparator: \.isNewline).joined(separator: " — ")
            result.append(NamedPCM(name: name, description: description))
        }
        return result
    }

    /// True when ALSA sees at least one sound card. The corresponding C function is `snd_card_next`.
    static func hasSoundCard() -> Bool {
        var card: Int32 = -1
        return snd_card_next(&card) == 0 && card >= 0
    }

    /// A card's capture device (`hw:CARD,DEV`).
    struct CardDevice { var card: Int; var device: Int; var cardID: String; var cardName: String; var deviceName: String }

    /// The sound cards ALSA sees (their indices and names), and each card's capture devices.
    /// The corresponding C functions are `snd_card_next`, `snd_ctl_open`, `snd_ctl_card_info`,
    /// `snd_ctl_pcm_next_device` and `snd_ctl_pcm_info`.
    /// - Throws: ``ALSAError/unusableConfiguration(file:origin:problem:)`` when a configuration
    ///   file could not be read in bounded time and memory (`snd_ctl_open` loads it).
    static func cards() throws(ALSAError) -> (cards: [(index: Int, name: String)], captureDevices: [CardDevice]) {
        try ALSAConfigurationFiles.check()
        silenceLibraryMessages()
        var cards: [(Int, String)] = []
        var devices: [CardDevice] = []
        var card: Int32 = -1
        while snd_card_next(&card) == 0, card >= 0 {
            var control: OpaquePointer?
            guard snd_ctl_open(&control, "hw:\(card)", 0) == 0, let control else {
                cards.append((Int(card), "card \(card) (cannot be opened)"))
                continue
            }
            defer { snd_ctl_close(control) }
            var info: OpaquePointer?
            snd_ctl_card_info_malloc(&info)
            defer { snd_ctl_card_info_free(info) }
            var cardID = "\(card)", cardName = "card \(card)"
            if snd_ctl_card_info(control, info) == 0 {
                cardID = String(cString: snd_ctl_card_info_get_id(info))
                cardName = String(cString: snd_ctl_card_info_get_name(info))
            }
            cards.append((Int(card), cardName))
            var pcmInfo: OpaquePointer?
            snd_pcm_info_malloc(&pcmInfo)
            defer { snd_pcm_info_free(pcmInfo) }
            var device: Int32 = -1
            while snd_ctl_pcm_next_device(control, &device) == 0, device >= 0 {
                snd_pcm_info_set_device(pcmInfo, UInt32(device))
                snd_pcm_info_set_subdevice(pcmInfo, 0)
                snd_pcm_info_set_stream(pcmInfo, SND_PCM_STREAM_CAPTURE)
                guard snd_ctl_pcm_info(control, pcmInfo) == 0 else { continue }
                devices.append(CardDevice(
                    card: Int(card), device: Int(device), cardID: cardID, cardName: cardName,
                    deviceName: String(cString: snd_pcm_info_get_name(pcmInfo))))
            }
        }
        return (cards, devices)
    }
}
