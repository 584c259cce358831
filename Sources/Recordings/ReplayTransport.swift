public import HTTPCore
public import Scenario
import Synchronization

/// Serves a capture's recorded responses to the simulated app, the way VCR, Betamax and
/// OkReplay replay cassettes, adapted to OAuth: every token call is a `POST` to one URL, so
/// requests are told apart by their form parameters too.
///
/// A request matches a recorded exchange on method, scheme, host, port, path, and query and
/// form parameters in any order, leaving out the volatile ones (`ReplayMatching.volatile`:
/// codes, verifiers, state, nonce, DPoP proofs…). Identical requests are served in recorded
/// order. Every decision is logged for the divergence report.
public final class ReplayTransport: HTTPTransport, Sendable {
    /// What to do with a request no recorded exchange matches.
    public enum Mode: String, Sendable, CaseIterable {
        /// An unmatched request fails (`connectionFailed`) and is reported.
        case strict
        /// An unmatched request goes to `fallback` (the embedded issuer) and is reported.
        case newEpisodes = "new-episodes"
        /// Requests are served in recorded order whatever they carry; a method or path that
        /// differs from the next recorded exchange is reported.
        case sequential
    }

    /// One request the app sent and what it was given.
    public struct Served: Sendable, Hashable {
        public var method: String
        public var url: String
        /// The capture entry served (index in `exchanges`), or nil when none matched.
        public var entry: Int?
        /// Sent to the fallback (new-episodes), refused (strict), or the sequential entry's
        /// method or path differed.
        public var note: String?
    }

    /// The note of a request strict mode refused because no entry matches it.
    public static let refusedNote = "not in the capture"

    public let exchanges: [RecordedExchange]
    public let mode: Mode
    public let matching: ReplayMatching
    /// Entries that `sequential` mode serves by matching, wherever they come: fetches whose
    /// moment depends on caches (discovery, the key set) rather than on the app's calls.
    public let unsequenced: Set<Int>
    private let fallback: (any HTTPTransport)?
    /// Each entry's place in the order the issuer handled the capture's requests (its index,
    /// but for a race's identical requests: see `answeredInProcessingOrder`).
    private let rank: [Int]
    private let state: Mutex<State>

    private struct State {
        /// Unserved entry indices per match key, in recorded order.
        var queues: [ReplayMatching.Key: [Int]]
        var nextSequential = 0
        var servedUnsequenced = Set<Int>()
        var served: [Served] = []
    }

    public init(
        exchanges: [RecordedExchange], mode: Mode = .strict, matching: ReplayMatching = ReplayMatching(),
        fallback: (any HTTPTransport)? = nil, unsequenced: Set<Int> = []
    ) {
        self.exchanges = exchanges
        self.mode = mode
        self.matching = matching
        self.fallback = fallback
        self.unsequenced = unsequenced
        var queues: [ReplayMatching.Key: [Int]] = [:]
        for (index, exchange) in exchanges.enumerated() {
            queues[
                matching.key(method: exchange.method, url: exchange.url, body: exchange.requestBody),
                default: []
            ]
            .append(index)
        }
        var rank = Array(exchanges.indices)
        for (key, queue) in queues where queue.count > 1 {
            let ordered = Self.answeredInProcessingOrder(queue, exchanges)
            queues[key] = ordered
            // An entry served in processing order is in order: it takes the place it has there.
            for (place, entry) in zip(queue, ordered) { rank[entry] = place }
        }
        self.rank = rank
        state = Mutex(State(queues: queues))
    }

    /// Identical requests in flight together (a race: one refresh token presented twice) are
    /// served successful answer first, whatever order the capture lists them in: an issuer
    /// accepts a refresh token or a code once, so the one it accepted is the one it handled
    /// first, and the refusals came after (RFC 9700 §4.14.2). A HAR file may list a race in
    /// the order the requests left (browsers, signinsim) or the order the answers came
    /// (mitmproxy), which for a race says nothing about the issuer's order. Requests that did
    /// not overlap keep their recorded order (a retry after a failure is a later request).
    static func answeredInProcessingOrder(_ queue: [Int], _ exchanges: [RecordedExchange]) -> [Int] {
        var ordered: [Int] = []
        ordered.reserveCapacity(queue.count)
        var burst: [Int] = []
        var burstEnd = Double(-Int64.max)
        func flush() {
            let succeeded = burst.filter { (200..<300).contains(exchanges[$0].status ?? 0) }
            ordered += succeeded + burst.filter { !(200..<300).contains(exchanges[$0].status ?? 0) }
            burst = []
        }
        for index in queue {
            let exchange = exchanges[index]
            let start = Double(exchange.startedAtMilliseconds)
            if !burst.isEmpty, start > burstEnd { flush() }
            burst.append(index)
            burstEnd = max(burstEnd, start + exchange.timeMilliseconds)
        }
        flush()
        return ordered
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let method = request.method.rawValue
        let decision: (entry: Int?, note: String?) = state.withLock { state in
            if mode == .sequential {
                if !unsequenced.isEmpty,
                    let index = state.queues[
                        matching.key(method: method, url: request.url, body: request.body)]?
                        .first(where: { unsequenced.contains($0) && !state.servedUnsequenced.contains($0) })
                {
                    state.servedUnsequenced.insert(index)
                    return (index, nil)
                }
                while unsequenced.contains(state.nextSequential) { state.nextSequential += 1 }
                guard state.nextSequential < exchanges.count else {
                    return (nil, "the capture has no more entries")
                }
                let index = state.nextSequential
                state.nextSequential += 1
                let recorded = exchanges[index]
                let same =
                    recorded.method == method
                    && URLParts.stripQueryAndFragment(recorded.url)
                        == URLParts.stripQueryAndFragment(request.url)
                return (
                    index,
                    same ? nil : "recorded \(recorded.method) \(URLParts.stripQueryAndFragment(recorded.url))"
                )
            }
            let key = matching.key(method: method, url: request.url, body: request.body)
            guard var queue = state.queues[key], !queue.isEmpty else { return (nil, nil) }
            let index = queue.removeFirst()
            state.queues[key] = queue
            return (index, nil)
        }
        if let entry = decision.entry {
            log(Served(method: method, url: request.url, entry: entry, note: decision.note))
            let recorded = exchanges[entry]
            guard let status = recorded.status else {
                throw HTTPError(
                    .connectionLost,
                    "\(method) \(request.urlWithoutQuery): recorded without a response (\(recorded.error ?? "no response"))"
                )
            }
            return HTTPResponse(
                status: status,
                headers: HTTPHeaders(
                    recorded.responseHeaders.map { HTTPField(name: $0.name, value: $0.value) }),
                body: recorded.responseBody)
        }
        if mode == .newEpisodes, let fallback {
            log(
                Served(
                    method: method, url: request.url, entry: nil,
                    note: "not in the capture: sent to the issuer"))
            return try await fallback.send(request)
        }
        log(Served(method: method, url: request.url, entry: nil, note: decision.note ?? Self.refusedNote))
        throw HTTPError(
            .connectionFailed, "\(method) \(request.urlWithoutQuery) is not in the capture (strict replay)")
    }

    private func log(_ served: Served) { state.withLock { $0.served.append(served) } }

    /// In `sequential` mode, serves `entry` next: the entries before it (a sign-in the replay
    /// does not repeat) are passed over, unless they were served already.
    public func continueSequence(from entry: Int) {
        state.withLock { $0.nextSequential = max($0.nextSequential, entry) }
    }

    /// Every request the app sent, in order, with the entry it was served.
    public var served: [Served] { state.withLock { $0.served } }

    /// Entries of the capture no request used, in recorded order.
    public var unused: [Int] {
        let used = Set(served.compactMap(\.entry))
        return exchanges.indices.filter { !used.contains($0) }
    }

    /// Served entries that came out of recorded order: each is an entry served after one
    /// recorded later (a race's identical requests count in the order the issuer handled them).
    public var reordered: [Int] {
        var latest = -1
        var out: [Int] = []
        for entry in served.compactMap(\.entry) {
            if rank[entry] < latest { out.append(entry) } else { latest = rank[entry] }
        }
        return out
    }
}

/// How requests are compared with recorded ones.
public struct ReplayMatching: Sendable {
    /// Parameters whose values change on every run and so never decide a match (their
    /// presence still counts): authorization codes and PKCE verifiers, state, nonce, DPoP
    /// proofs and token identifiers, timestamps.
    public static let volatile: Set<String> = [
        "code", "code_verifier", "code_challenge", "state", "nonce", "jti", "dpop", "iat", "exp", "timestamp",
        "client_assertion", "_", "id_token_hint",
    ]

    /// Parameters compared by presence only.
    public var ignoredValues: Set<String>

    public init(ignoredValues: Set<String> = ReplayMatching.volatile) {
        self.ignoredValues = ignoredValues
    }

    /// What a request is matched on.
    ///
    /// Credentials the app supplies itself (a password, `client_secret`) are kept apart: a
    /// recorded one that redaction replaced by a placeholder (`<REDACTED:password:1>`) matches
    /// any value, as Betamax's placeholders do, since the capture no longer says what was sent;
    /// a recorded real value must be sent again. Equality is therefore not transitive across
    /// a capture that mixes hidden and real values of one credential, which redaction never
    /// writes (it hides a kind everywhere or nowhere). Hashing leaves credential values out.
    public struct Key: Hashable, Sendable {
        var method: String
        var origin: String
        var path: String
        /// `name=value`, or `name=*` for volatile parameters, sorted.
        var parameters: [String]
        /// Sorted by name; usually empty (a public client sends no credential).
        var credentials: [Credential]

        struct Credential: Sendable {
            var name: String
            /// Nil for a placeholder: any value matches.
            var value: String?
        }

        public static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.method == rhs.method, lhs.origin == rhs.origin, lhs.path == rhs.path,
                lhs.parameters == rhs.parameters, lhs.credentials.count == rhs.credentials.count
            else { return false }
            for (left, right) in zip(lhs.credentials, rhs.credentials) {
                guard left.name == right.name else { return false }
                if let leftValue = left.value, let rightValue = right.value, leftValue != rightValue {
                    return false
                }
            }
            return true
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(method)
            hasher.combine(origin)
            hasher.combine(path)
            hasher.combine(parameters)
            hasher.combine(credentials.count)
            for credential in credentials { hasher.combine(credential.name) }
        }
    }

    public func key(method: String, url: String, body: [UInt8]) -> Key {
        var parameters: [String] = []
        var credentials: [Key.Credential] = []
        if let pairs = try? URLParts.queryParameters(of: url) {
            for pair in pairs { add(pair.name, pair.value, to: &parameters, &credentials) }
        }
        if body.contains(UInt8(ascii: "=")), body.first != UInt8(ascii: "{"),
            let text = String(validating: body, as: UTF8.self),
            let pairs = try? FormURLEncoding.decode(text)
        {
            for pair in pairs { add(pair.name, pair.value, to: &parameters, &credentials) }
        }
        if credentials.count > 1 {
            credentials.sort { ($0.name, $0.value ?? "") < ($1.name, $1.value ?? "") }
        }
        return Key(
            method: method.uppercased(), origin: URLParts.origin(of: url) ?? "", path: URLParts.path(of: url),
            parameters: parameters.sorted(), credentials: credentials)
    }

    private func add(
        _ name: String, _ value: String, to parameters: inout [String], _ credentials: inout [Key.Credential]
    ) {
        let lowercased = name.lowercased()
        if ignoredValues.contains(lowercased) {
            parameters.append(name + "=*")
        } else if Self.isAppCredential(lowercasedName: lowercased) {
            credentials.append(Key.Credential(name: name, value: Self.isPlaceholder(value) ? nil : value))
        } else {
            parameters.append(name + "=" + value)
        }
    }
}
