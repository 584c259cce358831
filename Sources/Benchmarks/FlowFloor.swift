import HTTPClient
import HTTPCore
import HTTPServer

/// What one full flow costs at least: its requests at the loopback round-trip rate and its
/// signatures at `openssl speed`'s rates (one core), measured in the same run.
struct FlowFloor {
    var requests: Double
    var ecSigns: Double
    var ecVerifies: Double
    var rsaSigns: Double = 0
    var rsaVerifies: Double = 0

    func flowsPerSecond(requestsPerSecond: Double, rates: OpenSSLRates) -> Double {
        flowsPerSecond(replayedPerSecond: requestsPerSecond / requests, rates: rates)
    }

    /// The CPU time one flow needs at least: its requests at what a floor request cost the
    /// process (both ends, kernel included), its signatures at one core's `openssl speed` rates.
    /// Unlike the rate, it is blind to waiting: set against a flow's CPU time, it says how much
    /// work the flow adds, wherever the wall time goes.
    func cpuSeconds(perRequest: Double, oneCoreRates: OpenSSLRates) -> Double {
        cpuSeconds(perReplay: requests * perRequest, oneCoreRates: oneCoreRates)
    }

    /// The flow's rate with all its requests made `replayedPerSecond` times a second (a whole
    /// flow's worth, as `FlowReplay` sends them) and its signatures at `openssl speed`'s rates.
    func flowsPerSecond(replayedPerSecond: Double, rates: OpenSSLRates) -> Double {
        1 / (1 / replayedPerSecond + signatureSeconds(rates: rates))
    }

    /// `cpuSeconds` with the requests at what a whole replayed flow's requests cost.
    func cpuSeconds(perReplay: Double, oneCoreRates: OpenSSLRates) -> Double {
        perReplay + signatureSeconds(rates: oneCoreRates)
    }

    private func signatureSeconds(rates: OpenSSLRates) -> Double {
        ecSigns / rates.ecdsaSign + ecVerifies / rates.ecdsaVerify + rsaSigns / rates.rsaSign
            + rsaVerifies / rates.rsaVerify
    }

    var summary: String {
        var parts = [
            "\(Int(requests)) loopback requests", "\(Int(ecSigns)) ES256 sign",
            "\(Int(ecVerifies)) ES256 verify",
        ]
        if rsaSigns > 0 { parts.append("\(Int(rsaSigns)) RS256 sign") }
        if rsaVerifies > 0 { parts.append("\(Int(rsaVerifies)) RS256 verify") }
        return parts.joined(separator: ", ")
    }
}

/// Loopback round trips through the same libcurl transport the phones use, against a handler
/// that answers at once on the server's IO thread, as the issuer's endpoints do: the cheapest
/// request the flows could make. `concurrency` senders share the transport and run on its
/// thread, as the phones of one world share theirs and run on it. The server and transport
/// stay up across measurements.
final class LoopbackFloor: Sendable {
    private let server: MicroHTTPServer
    private let transport = CurlTransport(cookieJar: nil)
    private let request: HTTPRequest

    init() async throws {
        let ok = HTTPResponse.json(["ok": true])
        server = MicroHTTPServer(immediate: { _ in .response(ok) }, handler: { _ in ok })
        try server.start()
        request = HTTPRequest.form(url: server.baseURL + "/token", parameters: ["grant_type": "x"])
        for _ in 0..<50 { _ = try await transport.send(request) }
    }

    /// Round trips made by `concurrency` senders in `seconds`, and the time they took.
    func measure(seconds: Double, concurrency: Int = 1) async throws -> Tally {
        let transport = transport
        let request = request
        return try await InheritedExecutor.run(on: transport.executor) {
            try await timedLoops(seconds: seconds, concurrency: concurrency) { _ in
                _ = try await transport.send(request)
            }
        }
    }

    func shutdown() async { await server.shutdown() }
}
