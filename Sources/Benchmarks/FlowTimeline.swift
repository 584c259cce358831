import Foundation
import HTTPCore
import Issuer
import Simulator

/// Where the time of one web flow goes, request by request: the app's own work before each
/// request (SDK, browser model, keychain), the round trip the device's network saw, and the
/// part of it the issuer spent answering. A diagnostic for the `web` row: what the flow adds to
/// its floor's loopback round trips and signatures, measured rather than guessed.
struct FlowTimeline {
    struct Step {
        /// `GET /authorize`, `POST /oauth/token (refresh_token)`, …
        var label: String
        var appWork: [Double] = []
        var roundTrip: [Double] = []
        var issuerWork: [Double] = []
    }

    var steps: [Step] = []
    var flows: [Double] = []
    /// Between the last response and the end of the flow.
    var trailingAppWork: [Double] = []

    /// Runs `flow` on `app` `count` times, one at a time, reading the phone's network log and
    /// the issuer's request log after each.
    static func measure(
        count: Int, app: SimulatedApp, issuer: Issuer, flow: @Sendable () async throws -> Void
    ) async throws -> FlowTimeline {
        let network = app.phone.device.network
        _ = network.drainLog()
        var timeline = FlowTimeline()
        let clock = ContinuousClock()
        var issuerMark = issuer.requestLog(since: 0).last?.sequence ?? 0
        for _ in 0..<count {
            let start = clock.now
            try await flow()
            let end = clock.now
            let exchanges = network.drainLog()
            let answered = issuer.requestLog(since: issuerMark)
            issuerMark = answered.last?.sequence ?? issuerMark
            timeline.flows.append((end - start).inSeconds * 1e6)
            var previousEnd = start
            for (index, exchange) in exchanges.enumerated() {
                let label = Self.label(exchange.request)
                if index == timeline.steps.count { timeline.steps.append(Step(label: label)) }
                guard timeline.steps[index].label == label else {
                    throw BenchmarkFailure("the flow's requests changed at \(label)")
                }
                let roundTrip = exchange.durationMilliseconds * 1000
                timeline.steps[index].appWork.append((exchange.sentAt - previousEnd).inSeconds * 1e6)
                timeline.steps[index].roundTrip.append(roundTrip)
                // One phone, one request at a time: the issuer answered them in the same order.
                if answered.count == exchanges.count,
                    answered[index].path == URLParts.path(of: exchange.request.url)
                {
                    timeline.steps[index].issuerWork.append(answered[index].durationMilliseconds * 1000)
                }
                previousEnd = exchange.sentAt + .nanoseconds(Int64(roundTrip * 1000))
            }
            timeline.trailingAppWork.append((end - previousEnd).inSeconds * 1e6)
        }
        return timeline
    }

    private static func label(_ request: HTTPRequest) -> String {
        var label = "\(request.method.rawValue) \(URLParts.path(of: request.url))"
        if let form = try? FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)),
            let grant = form["grant_type"]
        {
            label += " (\(grant))"
        }
        return label
    }

    /// The table, medians in microseconds, with the floor's trivial round trip for comparison.
    func report(trivialRoundTrip: Double) -> [String] {
        func cell(_ values: [Double]) -> String {
            values.isEmpty ? "     -" : String(format: "%6.0f", median(values))
        }
        var lines = [
            String(
                format:
                    "one web flow, step by step (median of %d flows, µs; a trivial round trip takes %.0f):",
                flows.count, trivialRoundTrip),
            "    app work   round trip   issuer   request",
        ]
        for step in steps {
            lines.append(
                "      \(cell(step.appWork))       \(cell(step.roundTrip))   \(cell(step.issuerWork))   \(step.label)"
            )
        }
        lines.append("      \(cell(trailingAppWork))                          (after the last response)")
        let appWork = steps.map { median($0.appWork) }.reduce(median(trailingAppWork), +)
        let roundTrips = steps.map { median($0.roundTrip) }.reduce(0, +)
        let issuerWork = steps.filter { !$0.issuerWork.isEmpty }.map { median($0.issuerWork) }.reduce(0, +)
        lines.append(
            String(
                format:
                    "    whole flow %.0f µs: app work %.0f, round trips %.0f (issuer %.0f, the rest %.0f; "
                    + "%d trivial round trips would take %.0f)",
                median(flows), appWork, roundTrips, issuerWork, roundTrips - issuerWork, steps.count,
                Double(steps.count) * trivialRoundTrip))
        return lines
    }
}
