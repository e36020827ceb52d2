// Built with the Serve trait only (Package.swift).
#if Serve
/// The `/status` document, written by hand (a few dozen fields, no Foundation needed).
enum ServeStatus {
    /// - Parameters:
    ///   - session: the session's description.
    ///   - figures: the broadcast's figures.
    ///   - limit: streaming clients allowed at once.
    ///   - uptimeSeconds: since the server started, s.
    ///   - connections: connections open now, the cap on them, and those closed at the cap.
    /// - Returns: one JSON object and a newline.
    static func json(
        session: ServedSession, figures: RecordBroadcast.Figures, limit: Int, uptimeSeconds: Double,
        connections: (open: Int, cap: Int, closedAtCap: Int)
    ) -> String {
        func string(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
        func number(_ value: Double) -> String {
            guard value.isFinite else { return "null" }
            return String(Double((value * 1000).rounded()) / 1000)
        }
        func client(_ c: RecordBroadcast.ClientFigures) -> String {
            "{\"id\":\(c.id),\"endpoint\":\(string("/" + c.stream.rawValue)),\"address\":\(string(c.address)),"
                + "\"connected_s\":\(number(c.connectedSeconds)),\"records_sent\":\(c.recordsSent),"
                + "\"records_dropped\":\(c.recordsDropped)}"
        }
        let f = figures
        return "{\"input\":\(string(session.input)),\"sample_rate\":\(number(session.sampleRate)),"
            + "\"frame\":\(session.frameLength),\"hop\":\(session.hopLength),\"array\":\(string(session.array)),"
            + "\"bands\":[\(session.bandNames.map(string).joined(separator: ","))],\"paced\":\(session.paced),"
            + "\"uptime_s\":\(number(uptimeSeconds)),\"records\":\(f.records),\"overruns\":\(f.overruns),"
            + "\"clients\":\(f.clients.count),\"client_limit\":\(limit),\"clients_total\":\(f.clientsConnected),"
            + "\"clients_refused_full\":\(f.clientsRefusedFull),\"requests_unauthorized\":\(f.clientsRefusedUnauthorized),"
            + "\"clients_dropped\":\(f.clientsDropped),\"connections\":\(connections.open),"
            + "\"connection_limit\":\(connections.cap),\"connections_closed_at_cap\":\(connections.closedAtCap),"
            + "\"streams\":[\(f.clients.map(client).joined(separator: ","))],"
            + "\"dropped_clients\":[\(f.droppedClients.map(client).joined(separator: ","))],"
            + "\"records_dropped_by_closed_streams\":\(f.recordsDroppedByGoneClients)}\n"
    }
}
#endif
