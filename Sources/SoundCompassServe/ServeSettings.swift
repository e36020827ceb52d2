// Built with the Serve trait only (Package.swift).
#if Serve
/// What `live --serve` was asked for.
package struct ServeSettings: Sendable {
    /// Where to listen.
    package var address: ServeAddress
    /// The bearer token every request must carry (`Authorization: Bearer T` or `?token=T`);
    /// `nil` for none.
    package var token: String?
    /// The origin allowed to read the endpoints from another site's page
    /// (`Access-Control-Allow-Origin`); `nil` sends no CORS headers.
    package var corsOrigin: String?
    /// Sizes and times of the broadcast.
    package var limits: RecordBroadcast.Limits

    /// - Parameters: see the properties.
    package init(address: ServeAddress, token: String? = nil, corsOrigin: String? = nil, limits: RecordBroadcast.Limits) {
        self.address = address
        self.token = token
        self.corsOrigin = corsOrigin
        self.limits = limits
    }
}

/// What `/status` says of the session besides the broadcast's figures.
package struct ServedSession: Sendable {
    /// The device or input.
    package var input: String
    /// Sample rate, Hz.
    package var sampleRate: Double
    /// Analysis frame and hop, samples.
    package var frameLength: Int
    package var hopLength: Int
    /// The array model in a few words ("spaced 0.15 m").
    package var array: String
    /// The band names every record carries.
    package var bandNames: [String]
    /// True when a recording is paced to real time.
    package var paced: Bool

    /// - Parameters: see the properties.
    package init(
        input: String, sampleRate: Double, frameLength: Int, hopLength: Int, array: String, bandNames: [String],
        paced: Bool
    ) {
        self.input = input
        self.sampleRate = sampleRate
        self.frameLength = frameLength
        self.hopLength = hopLength
        self.array = array
        self.bandNames = bandNames
        self.paced = paced
    }
}
#endif
