import Foundation
import HTTPCore
import JOSE
import JSON
import Locking
import OAuthCore
import Recordings
import Scenario
import ScenarioRunner

/// How a replay answers requests the capture has no answer for, and in which order it serves.
public enum ReplayMode: String, Sendable, CaseIterable {
    /// A request no recorded exchange matches fails (the app sees a connection failure) and is
    /// reported as one the capture has no answer for.
    case strict
    /// A request no recorded exchange matches goes to an issuer (VCR's new episodes), to the
    /// endpoint of the same role there, and is reported with what it answered.
    case newEpisodes = "new-episodes"
    /// Recorded exchanges are served in recorded order whatever the request carries (discovery
    /// and key sets, which an app fetches when its caches say, by matching); a request that
    /// differs from the entry it is given is reported with how.
    case sequential
}

/// Answers a replayed phone (its app, its browser sheets and its Apple ID sheet) from a capture.
///
/// Requests are matched with recorded exchanges (`ReplayMatching`) after the replayed app's
/// random values are put back to the recorded ones; identical requests are served in the order
/// the issuer handled them. Answers are served as recorded but for what binds the recorded
/// app's random values: the `state` and other correlated values are put to the replayed app's
/// (`ReplayCorrelation`), ID tokens whose `nonce` changes are signed again and key sets served
/// with the replay keys (`ReplayKeys`). A race (identical requests in flight together) is held
/// until all its requests have arrived, then answered one call at a time in the issuer's
/// order (`BurstGate`). Every request is logged with what it was given.
final class ReplayServer: HTTPTransport, Sendable {
    /// One request the replayed phone sent and what became of it.
    struct Served: Sendable {
        enum Disposition: Hashable, Sendable {
            /// Given a recorded exchange's answer.
            case recorded
            /// A cache fetch (discovery, key set) given an answer served before, because the
            /// replayed app fetched more often than the recorded one.
            case servedAgain
            /// No recorded exchange fits: refused.
            case notInCapture
            /// Sent to the new-episodes issuer at this URL.
            case newEpisode(String)
            /// Sequential mode ran out of entries.
            case noMoreEntries
            /// A document the capture lacks, made for the replay (`what` it is).
            case synthesized(String)
        }

        /// Its place among the requests, from 0.
        var sequence: Int
        var sender: CaptureAnalysis.Sender
        var method: String
        /// As the replayed phone sent it.
        var url: String
        var entry: Int?
        var disposition: Disposition
        /// How the request differs from the entry it was given (sequential mode, token-bearing
        /// values).
        var differences: [String]
        /// The status given, nil for a transport failure.
        var status: Int?
        /// The SDK call that sent it, when known.
        var call: UInt64?
    }

    let capture: HARCapture
    let analysis: CaptureAnalysis
    let mode: ReplayMode
    let matching: ReplayMatching
    let keys: ReplayKeys
    private let fallback: (any HTTPTransport)?
    /// Redirects to the app's callback served with their recorded `state` rather than the
    /// replayed app's (`ReplayStory.callbacksKeepingRecordedState`).
    private let keepsRecordedState: Set<Int>
    /// Documents the capture lacks, by URL (without query): a discovery document built from
    /// the endpoints the traffic shows, a key set of replay keys.
    private let synthesized: [String: (what: String, body: [UInt8])]
    /// Each servable entry's key.
    private let entryKeys: [Int: ReplayMatching.Key]
    /// Each entry's place in the order the issuer handled the phone's requests.
    private let rank: [Int: Int]
    /// The entries sequential mode serves in order (cache fetches left out).
    private let sequence: [Int]
    /// Each burst's members in the issuer's order, and each member's burst.
    private let bursts: [[Int]]
    private let burstOf: [Int: Int]
    private let gate: BurstGate
    private let state: Mutex<State>

    private struct State {
        /// Unserved entries per key, in the issuer's order.
        var queues: [ReplayMatching.Key: [Int]]
        /// The last entry served per key, for cache fetches made again.
        var lastServed: [ReplayMatching.Key: Int] = [:]
        var nextInSequence = 0
        var servedEntries = Set<Int>()
        var correlation = ReplayCorrelation()
        /// The `code_challenge` values the replayed app sent.
        var challengesSent = Set<String>()
        var served: [Served] = []
        /// Requests decided so far.
        var arrivals = 0
    }

    init(
        analysis: CaptureAnalysis, mode: ReplayMode, matching: ReplayMatching, keys: ReplayKeys,
        fallback: (any HTTPTransport)?, issuerURL: String, keepsRecordedState: Set<Int> = []
    ) {
        capture = analysis.capture
        self.analysis = analysis
        self.keepsRecordedState = keepsRecordedState
        self.mode = mode
        self.matching = matching
        self.keys = keys
        self.fallback = fallback
        synthesized = Self.synthesizedDocuments(analysis, keys: keys, issuerURL: issuerURL)
        let exchanges = analysis.capture.exchanges
        let servable = analysis.timeline.filter { analysis.entries[$0].sender.isPhone }
        var entryKeys: [Int: ReplayMatching.Key] = [:]
        var queues: [ReplayMatching.Key: [Int]] = [:]
        for index in servable {
            let exchange = exchanges[index]
            let key = matching.key(
                method: exchange.method, url: exchange.url,
                parameters: ReplayMatching.parameters(url: exchange.url, body: exchange.requestBody))
            entryKeys[index] = key
            queues[key, default: []].append(index)
        }
        // Identical requests in flight together (a race) are served in the order the issuer
        // handled them: an issuer accepts a refresh token or a code once, so the one it
        // accepted came first and the refusals after (RFC 9700 §4.14.2). A HAR lists a race in
        // the order the requests left (browsers, signinsim) or the answers came (mitmproxy),
        // which says nothing of the issuer's order; requests that did not overlap keep theirs.
        var bursts: [[Int]] = []
        var burstOf: [Int: Int] = [:]
        for (key, queue) in queues where queue.count > 1 {
            var ordered: [Int] = []
            var group: [Int] = []
            var groupEnd = Double(-Int64.max)
            func flush() {
                // Only the app's calls race for a token; the browser's pages keep their order.
                guard group.count > 1, group.allSatisfy({ analysis.entries[$0].sender == .app }) else {
                    ordered += group
                    group = []
                    return
                }
                let answered = group.filter { (200..<300).contains(exchanges[$0].status ?? 0) }
                let members = answered + group.filter { !(200..<300).contains(exchanges[$0].status ?? 0) }
                for member in members { burstOf[member] = bursts.count }
                bursts.append(members)
                ordered += members
                group = []
            }
            for index in queue.sorted(by: { exchanges[$0].sendingMoment < exchanges[$1].sendingMoment }) {
                let start = exchanges[index].sendingMoment
                if !group.isEmpty, start >= groupEnd { flush() }
                group.append(index)
                groupEnd = max(groupEnd, start + exchanges[index].timeMilliseconds)
            }
            flush()
            queues[key] = ordered
        }
        var processing = servable
        for burst in bursts {
            let places = burst.compactMap { processing.firstIndex(of: $0) }.sorted()
            for (place, member) in zip(places, burst) { processing[place] = member }
        }
        rank = Dictionary(uniqueKeysWithValues: processing.enumerated().map { ($1, $0) })
        sequence = processing.filter { !Self.isCacheFetch(analysis.entries[$0].role) }
        self.entryKeys = entryKeys
        self.bursts = bursts
        self.burstOf = burstOf
        gate = BurstGate()
        state = Mutex(State(queues: queues))
    }

    static func isCacheFetch(_ role: CaptureAnalysis.Role) -> Bool { role == .discovery || role == .jwks }

    /// What the replay serves where the capture has no discovery document or no key set.
    static func synthesizedDocuments(_ analysis: CaptureAnalysis, keys: ReplayKeys, issuerURL: String)
        -> [String: (what: String, body: [UInt8])]
    {
        var documents: [String: (what: String, body: [UInt8])] = [:]
        var issuer = issuerURL
        while issuer.hasSuffix("/") { issuer.removeLast() }
        let jwksURI = analysis.endpoints[.jwks] ?? issuer + "/.well-known/jwks.json"
        if analysis.discovery == nil {
            var document: [String: JSONValue] = [
                "issuer": .string(analysis.issuer ?? issuer), "jwks_uri": .string(jwksURI),
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256", "ES256", "PS256"],
                "code_challenge_methods_supported": ["S256"],
            ]
            let members: [(CaptureAnalysis.Role, String)] = [
                (.authorization, "authorization_endpoint"), (.token, "token_endpoint"),
                (.userinfo, "userinfo_endpoint"), (.revocation, "revocation_endpoint"),
                (.endSession, "end_session_endpoint"),
            ]
            for (role, member) in members {
                if let url = analysis.endpoints[role] { document[member] = .string(url) }
            }
            // The endpoints an SDK cannot configure without (Discovery 1.0 §3), at their usual
            // paths when the traffic never reached them: a request there is one the capture
            // lacks, and the report says so.
            for (member, path) in [("authorization_endpoint", "/authorize"), ("token_endpoint", "/token")]
            where document[member] == nil {
                document[member] = .string(issuer + path)
            }
            documents[issuer + "/.well-known/openid-configuration"] = (
                "a discovery document built from the endpoints the traffic shows (the capture has none)",
                JSONValue.object(document).serialized()
            )
        }
        if let set = keys.synthesizedKeySet {
            documents[URLParts.stripQueryAndFragment(jwksURI)] = (
                "a key set of replay keys (the capture has none; every ID token was signed again)",
                set.json.serialized()
            )
        } else if analysis.endpoints[.jwks] == nil {
            documents[URLParts.stripQueryAndFragment(jwksURI)] = (
                "an empty key set (the capture has neither key sets nor ID tokens)",
                JWKSet(keys: []).json.serialized()
            )
        }
        return documents
    }

    /// The transport the phone's Apple ID sheet uses.
    var appleSide: any HTTPTransport { AppleSide(server: self) }

    private struct AppleSide: HTTPTransport {
        let server: ReplayServer
        func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
            try await server.answer(request, sender: .apple)
        }
    }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let sender: CaptureAnalysis.Sender = RequestInitiator.current?.agent == .browser ? .browser : .app
        return try await answer(request, sender: sender)
    }

    /// An SDK call of the replay returned: the next held answer of its race may go.
    func callFinished(_ call: UInt64) { gate.callFinished(call) }

    /// Every request so far, in the order they arrived.
    var served: [Served] { state.withLock { $0.served } }

    /// Each entry's place in the issuer's order of the phone's requests.
    func rank(of entry: Int) -> Int? { rank[entry] }

    // MARK: Answering

    private struct Decision {
        var entry: Int?
        var disposition: Served.Disposition
        var differences: [String]
        var sequence: Int
        var burst: (id: Int, slot: Int)?
    }

    private func answer(_ request: HTTPRequest, sender: CaptureAnalysis.Sender) async throws(HTTPError)
        -> HTTPResponse
    {
        let call = ReplayCall.current
        let sent = ReplayMatching.parameters(url: request.url, body: request.body)
        let decision = state.withLock { state in decide(request, parameters: sent, state: &state) }
        if let burst = decision.burst {
            await gate.wait(burst: burst.id, slot: burst.slot, size: bursts[burst.id].count, call: call)
        }
        var record = Served(
            sequence: decision.sequence, sender: sender, method: request.method.rawValue, url: request.url,
            entry: decision.entry, disposition: decision.disposition, differences: decision.differences,
            status: nil, call: call)
        guard let entry = decision.entry else {
            if let document = synthesized[URLParts.stripQueryAndFragment(request.url)], request.method == .get
            {
                record.disposition = .synthesized(document.what)
                record.status = 200
                log(record)
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": MediaType.json], body: document.body)
            }
            if mode == .newEpisodes, let fallback {
                do {
                    let response = try await fallback.send(request)
                    record.status = response.status
                    record.disposition = .newEpisode(
                        (fallback as? RoleMappingTransport)?.mapped(request.url) ?? request.url)
                    log(record)
                    return response
                } catch {
                    log(record)
                    throw error
                }
            }
            log(record)
            throw HTTPError(
                .connectionFailed,
                "\(request.method) \(request.urlWithoutQuery): the capture has no answer for this request")
        }
        let recorded = capture.exchanges[entry]
        guard let status = recorded.status else {
            log(record)
            if recorded.error.map(Self.isCancellation) == true {
                // The recorded request was still in flight when its caller went away (the app
                // was killed): it is held the same way, until the replayed caller goes too.
                try? await Task.sleep(for: Self.longestHold)
                throw HTTPError(
                    .cancelled, "\(request.method) \(request.urlWithoutQuery): the request was cancelled")
            }
            throw HTTPError(
                .connectionLost,
                "\(request.method) \(request.urlWithoutQuery): recorded without an answer "
                    + "(\(recorded.error ?? "no response"))")
        }
        record.status = status
        let response = state.withLock { state in rewrittenAnswer(entry, status: status, state: &state) }
        if let hold = Self.hold(recorded) {
            // The issuer held this request; so does the replay, so that calls overlap as then.
            try? await Task.sleep(for: hold)
        }
        log(record)
        return response
    }

    private func log(_ record: Served) {
        state.withLock { $0.served.append(record) }
    }

    /// Which entry a request gets, with what it learns and how it differs. Under the lock.
    private func decide(_ request: HTTPRequest, parameters sent: FormParameters, state: inout State)
        -> Decision
    {
        let number = state.arrivals
        state.arrivals += 1
        var translated = FormParameters()
        for pair in sent { translated.append(pair.name, state.correlation.toRecorded(pair.value)) }
        let url = state.correlation.toRecorded(request.url)
        let key = matching.key(method: request.method.rawValue, url: url, parameters: translated)
        var decision = Decision(entry: nil, disposition: .notInCapture, differences: [], sequence: number)
        var entry: Int?
        if mode == .sequential {
            if var queue = state.queues[key], let first = queue.first,
                Self.isCacheFetch(analysis.entries[first].role)
            {
                queue.removeFirst()
                state.queues[key] = queue
                entry = first
            } else {
                while state.nextInSequence < sequence.count,
                    state.servedEntries.contains(sequence[state.nextInSequence])
                {
                    state.nextInSequence += 1
                }
                if state.nextInSequence < sequence.count {
                    let next = sequence[state.nextInSequence]
                    state.nextInSequence += 1
                    entry = next
                    if let position = state.queues[entryKeys[next] ?? key]?.firstIndex(of: next) {
                        state.queues[entryKeys[next] ?? key]?.remove(at: position)
                    }
                    let recorded = capture.exchanges[next]
                    if recorded.method != request.method.rawValue
                        || URLParts.stripQueryAndFragment(recorded.url) != URLParts.stripQueryAndFragment(url)
                    {
                        decision.differences.append(
                            "the entry is \(recorded.method) \(URLParts.path(of: recorded.url))")
                    }
                } else {
                    decision.disposition = .noMoreEntries
                }
            }
        } else if var queue = state.queues[key], !queue.isEmpty {
            entry = queue.removeFirst()
            state.queues[key] = queue
        } else if let again = state.lastServed[key], Self.isCacheFetch(analysis.entries[again].role) {
            entry = again
            decision.disposition = .servedAgain
        }
        guard let entry else {
            decision.differences = nearestDifferences(request, url: url, parameters: translated, state: state)
            return decision
        }
        if decision.disposition == .notInCapture { decision.disposition = .recorded }
        decision.entry = entry
        state.servedEntries.insert(entry)
        state.lastServed[entryKeys[entry] ?? key] = entry
        let recorded = capture.exchanges[entry]
        let recordedParameters = ReplayMatching.parameters(url: recorded.url, body: recorded.requestBody)
        // The replayed app's random values stand for the recorded ones from now on.
        for name in ["state", "nonce", "code_challenge"] {
            if let mine = sent[name], let theirs = recordedParameters[name] {
                state.correlation.learn(recorded: theirs, replayed: mine)
            }
        }
        if let challenge = sent["code_challenge"] { state.challengesSent.insert(challenge) }
        decision.differences += tokenDifferences(
            sent: translated, recorded: recordedParameters, original: sent, state: state)
        if let burst = burstOf[entry], let slot = bursts[burst].firstIndex(of: entry) {
            decision.burst = (burst, slot)
        }
        return decision
    }

    /// Token-bearing values the request carries that are not the recorded ones (after
    /// correlation), and a `code_verifier` that answers none of the app's challenges.
    private func tokenDifferences(
        sent: FormParameters, recorded: FormParameters, original: FormParameters, state: State
    ) -> [String] {
        var differences: [String] = []
        for name in ReplayMatching.tokenBearing
        where name == "code_verifier" || !matching.ignoredValues.contains(name) {
            let mine = sent[name]
            let theirs = recorded[name]
            if name == "code_verifier" {
                guard let verifier = original[name] else {
                    if theirs != nil { differences.append("no code_verifier, where the recording sent one") }
                    continue
                }
                if !state.challengesSent.isEmpty,
                    !state.challengesSent.contains(PKCE.challenge(for: verifier))
                {
                    differences.append("a code_verifier that answers none of the app's code_challenge values")
                }
                continue
            }
            switch (mine, theirs) {
            case (nil, nil): continue
            case (let value?, nil):
                differences.append("\(name) \(Self.brief(value)), where the recording sent none")
            case (nil, _?): differences.append("no \(name), where the recording sent one")
            case (let value?, let other?) where value != other && !Self.isPlaceholder(other):
                differences.append(
                    "\(name) \(Self.brief(value)), where the recording sent \(Self.brief(other))")
            default: continue
            }
        }
        return differences
    }

    /// For a request no entry answers: how it differs from the first unserved recorded request
    /// to the same endpoint, so the report can say why it found no answer.
    private func nearestDifferences(
        _ request: HTTPRequest, url: String, parameters: FormParameters, state: State
    ) -> [String] {
        let path = URLParts.path(of: url)
        guard
            let nearest = sequence.first(where: { index in
                !state.servedEntries.contains(index)
                    && capture.exchanges[index].method == request.method.rawValue
                    && URLParts.path(of: capture.exchanges[index].url) == path
            })
        else { return [] }
        let recorded = capture.exchanges[nearest]
        let theirs = ReplayMatching.parameters(url: recorded.url, body: recorded.requestBody)
        var differences: [String] = []
        for pair in parameters {
            // Volatile values are matched by presence only: their absence still tells.
            guard let other = theirs[pair.name] else {
                differences.append("\(pair.name) is not in it")
                continue
            }
            if other != pair.value, !Self.isPlaceholder(other),
                !matching.ignoredValues.contains(pair.name.lowercased())
            {
                differences.append(
                    "\(pair.name) \(Self.brief(pair.value)) where it has \(Self.brief(other))")
            }
        }
        for pair in theirs where parameters[pair.name] == nil {
            differences.append("\(pair.name) is missing")
        }
        guard !differences.isEmpty else { return [] }
        return [
            "unlike entry \(capture.entryNumber(of: nearest)), the next recorded \(recorded.method) \(path): "
                + differences.prefix(4).joined(separator: ", ")
        ]
    }

    static func isPlaceholder(_ value: String) -> Bool { value.hasPrefix("<REDACTED:") }

    /// Answers that took at least this long were held by the issuer (a slow endpoint, a delay
    /// fault), which decides which calls overlap: the replay holds them as long.
    static let heldFrom = 250.0
    /// Longest hold, in milliseconds.
    static let longestReplayedHold = 10_000.0

    /// How long to hold a recorded answer, when it was held.
    static func hold(_ exchange: RecordedExchange) -> Duration? {
        guard exchange.timeMilliseconds >= heldFrom else { return nil }
        return .milliseconds(Int64(min(exchange.timeMilliseconds, longestReplayedHold)))
    }

    /// Longest a request recorded as cancelled is held, in real time.
    static let longestHold = Duration.seconds(30)

    /// Whether a recorded transport error says the request was cancelled by its caller.
    static func isCancellation(_ error: String) -> Bool {
        let lower = error.lowercased()
        return lower.contains("cancelled") || lower.contains("canceled")
    }

    /// A token for a report: its first and last characters.
    static func brief(_ value: String) -> String {
        value.count <= 12 ? "\"\(value)\"" : "\"\(value.prefix(6))…\(value.suffix(4))\""
    }

    /// The recorded answer, with the replayed app's values put in. Under the lock.
    private func rewrittenAnswer(_ entry: Int, status: Int, state: inout State) -> HTTPResponse {
        let recorded = capture.exchanges[entry]
        var headers = HTTPHeaders()
        for field in recorded.responseHeaders {
            // The body is served decoded and framed anew: the recorded framing does not apply.
            switch field.name.lowercased() {
            case "content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive":
                continue
            case "location":
                // A callback the recorded app refused for a cause the capture does not show
                // keeps its recorded state, which the replayed app never stored.
                let kept =
                    keepsRecordedState.contains(entry)
                    ? (try? URLParts.queryParameters(of: field.value))?["state"] : nil
                headers.add(name: field.name, value: state.correlation.toReplayed(field.value, keeping: kept))
            default: headers.add(name: field.name, value: field.value)
            }
        }
        var body = recorded.responseBody
        if analysis.entries[entry].role == .jwks, let served = keys.servedKeySet(body) {
            body = served
        } else if let idToken = ReplayKeys.idToken(in: recorded),
            var object = try? JSONValue.parseObject(body),
            let resigned = keys.resign(
                idToken, exchange: entry,
                transform: { [correlation = state.correlation] claims in
                    var claims = claims
                    if let nonce = claims["nonce"]?.stringValue {
                        claims["nonce"] = .string(correlation.replayed(nonce))
                    }
                    return claims
                })
        {
            object["id_token"] = .string(resigned)
            state.correlation.learnToken(recorded: idToken, replayed: resigned)
            body = JSONValue.object(object).serialized()
        } else if !state.correlation.isEmpty, let text = String(validating: body, as: UTF8.self) {
            let translated = state.correlation.toReplayed(text)
            if translated != text { body = Array(translated.utf8) }
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}

/// Holds the requests of a recorded race until all of them have arrived (or a moment has
/// passed), then lets them through one call at a time in the order the issuer handled them:
/// the next when the SDK call that got the previous answer has returned (or a moment has
/// passed). So the replayed app handles the answers in the field's order on every run (the
/// winner's tokens stored, then the refusal that ends the session) rather than in whichever
/// order threads happen to run; an SDK that sends fewer requests (single flight) waits out the
/// moment and goes on.
final class BurstGate: Sendable {
    /// How long a request of an incomplete race waits for the others, and a held answer for
    /// the previous call to return.
    static let patience = Duration.milliseconds(500)

    private struct Waiter {
        var slot: Int
        var call: UInt64?
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct Burst {
        var size: Int
        var waiting: [Waiter] = []
        var arrived = 0
        /// Every request has arrived, or patience ran out waiting for them.
        var complete = false
        /// The slot let through next.
        var next = 0
        /// The call of the slot let through last.
        var current: UInt64?
        /// Bumped whenever something is let through, so that a stale timer does nothing.
        var generation = 0
    }

    private let bursts = Mutex<[Int: Burst]>([:])

    /// Waits until the request in `slot` of race `burst` may be answered.
    func wait(burst id: Int, slot: Int, size: Int, call: UInt64?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (released, timer) = bursts.withLock { bursts -> ([Waiter], Int?) in
                var burst = bursts[id] ?? Burst(size: size)
                burst.waiting.append(Waiter(slot: slot, call: call, continuation: continuation))
                burst.arrived += 1
                var timer: Int?
                if burst.arrived >= burst.size {
                    burst.complete = true
                } else if burst.arrived == 1 {
                    timer = burst.generation
                }
                let released = burst.complete ? Self.releaseNext(&burst) : []
                if !released.isEmpty, burst.next < burst.size { timer = burst.generation }
                bursts[id] = burst
                return (released, timer)
            }
            for waiter in released { waiter.continuation.resume() }
            if let timer { watch(id, generation: timer) }
        }
    }

    /// The call `call` returned: the next request of its race goes.
    func callFinished(_ call: UInt64) {
        let (released, timers) = bursts.withLock { bursts -> ([Waiter], [(Int, Int)]) in
            var released: [Waiter] = []
            var timers: [(Int, Int)] = []
            for (id, var burst) in bursts where burst.current == call {
                burst.current = nil
                let next = Self.releaseNext(&burst)
                released += next
                if !next.isEmpty, burst.next < burst.size { timers.append((id, burst.generation)) }
                bursts[id] = burst
            }
            return (released, timers)
        }
        for waiter in released { waiter.continuation.resume() }
        for (id, generation) in timers { watch(id, generation: generation) }
    }

    /// Lets the next slot through if it is waiting.
    private static func releaseNext(_ burst: inout Burst) -> [Waiter] {
        guard burst.current == nil, let position = burst.waiting.firstIndex(where: { $0.slot == burst.next })
        else { return [] }
        let waiter = burst.waiting.remove(at: position)
        burst.next += 1
        burst.current = waiter.call
        burst.generation += 1
        return [waiter]
    }

    /// After a moment without progress, lets the next one through whatever happened.
    private func watch(_ id: Int, generation: Int) {
        Task {
            try? await Task.sleep(for: Self.patience)
            let (released, again) = self.bursts.withLock { bursts -> ([Waiter], Int?) in
                guard var burst = bursts[id], burst.generation == generation else { return ([], nil) }
                burst.complete = true
                burst.current = nil
                // A slot that never came (an SDK that sent fewer requests) is passed over.
                if !burst.waiting.contains(where: { $0.slot == burst.next }),
                    let lowest = burst.waiting.map(\.slot).min()
                {
                    burst.next = lowest
                }
                let released = Self.releaseNext(&burst)
                if released.isEmpty { burst.generation += 1 }
                bursts[id] = burst
                return (released, !released.isEmpty && burst.next < burst.size ? burst.generation : nil)
            }
            for waiter in released { waiter.continuation.resume() }
            if let again { self.watch(id, generation: again) }
        }
    }
}
