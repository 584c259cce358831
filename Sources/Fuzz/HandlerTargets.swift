import AppleID
import Clocks
import Cryptography
import Dispatch
import Foundation
import HTTPCore
import Issuer
import JSON
import WebAuthSession

/// The request handlers, in process: the issuer (default tenant with pushed authorization
/// requests allowed, so that `/par` is fuzzed too, its Apple connection wired to the simulated
/// Apple through a `ClosureTransport`) and the simulated Apple alone. No socket is
/// opened. A 5xx answer that no fault injected is a finding: issue 27 allows none.
enum HandlerTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(
            "issuer", "the issuer's endpoints, /_admin included, and Apple's through absolute URLs",
            prepare: { _ = FuzzWorld.shared }, run: issuer),
        FuzzTarget(
            "apple", "the simulated Apple's endpoints, /_admin included",
            prepare: { _ = FuzzWorld.shared }, run: apple),
    ]

    static func issuer(_ input: [UInt8]) {
        let world = FuzzWorld.shared
        world.resetIssuer()
        exchange(input, baseURL: world.issuerURL, world: world)
    }

    static func apple(_ input: [UInt8]) {
        let world = FuzzWorld.shared
        exchange(input, baseURL: world.appleURL, world: world)
    }

    /// Runs the input's requests in order, each with the cookies and values the earlier ones
    /// answered, and traps on a 5xx that no fault of this input explains.
    @discardableResult
    static func exchange(_ input: [UInt8], baseURL: String, world: FuzzWorld) -> [HTTPResponse] {
        var answers: [HTTPResponse] = []
        var session = FuzzSession()
        var faultsInjected = false
        for part in FuzzRequest.split(input).prefix(FuzzRequest.maximumRequests) {
            guard var parsed = FuzzRequest.request(session.substituted(part), baseURL: baseURL),
                isBounded(parsed)
            else { continue }
            session.addCookies(to: &parsed)
            let request = parsed
            let toApple = request.url.hasPrefix(world.appleURL)
            let response =
                toApple
                ? wait { await world.apple.respond(to: request) }
                : wait { await world.issuer.respond(to: request) }
            if !toApple, request.method == .post, request.path == "/_admin/faults",
                (200..<300).contains(response.status)
            {
                faultsInjected = true
            }
            if response.status >= 500 && !faultsInjected {
                fatalError(
                    "\(toApple ? "Apple" : "the issuer") answered \(response.status) to:\n"
                        + FuzzRequest.text(request, baseURL: baseURL) + "\n\nwith:\n"
                        + String(decoding: response.body.prefix(2000), as: UTF8.self))
            }
            session.remember(response, url: request.url)
            answers.append(response)
        }
        return answers
    }

    /// Whether a request finishes within the fuzzer's time limit: the harness leaves out the
    /// `http-delay` fault (a sleep of up to ten minutes, nothing to find) and admin requests for
    /// thousands of tokens (each one signed: seconds under AddressSanitizer).
    static func isBounded(_ request: HTTPRequest) -> Bool {
        guard request.path.hasPrefix("/_admin/") else { return true }
        guard let body = try? JSONValue.parse(request.body), case .object(let members) = body else {
            return true
        }
        if case .string(let fault)? = members["fault"], fault.contains("delay") { return false }
        if let count = members["count"]?.int64Value, count > 64 { return false }
        return true
    }

    /// The answer of an async handler, for libFuzzer's synchronous callback.
    static func wait(_ body: @escaping @Sendable () async -> HTTPResponse) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let slot = ResponseSlot()
        Task {
            slot.response = await body()
            done.signal()
        }
        done.wait()
        guard let response = slot.response else { fatalError("the handler's task ended without an answer") }
        return response
    }
}

/// Where a handler's task leaves its answer; written before the semaphore is signalled and
/// read after it is waited for, so never at the same time.
private final class ResponseSlot: @unchecked Sendable {
    var response: HTTPResponse?
}

/// The issuer and Apple every handler input talks to, built once: key generation is too slow
/// to repeat per input. Each `issuer` input starts from a reset issuer (`resetIssuer()`);
/// Apple's state accumulates between inputs, as on a long-running server.
final class FuzzWorld: Sendable {
    let issuerURL = "https://issuer.test"
    let appleURL = "https://appleid.test"
    let clock = ManualWallClock(now: 1_700_000_000)
    let issuer: Issuer
    let apple: AppleIDProvider
    /// The key of the issuer's Apple connection, which signs its client secrets.
    let developerKey: P256PrivateKey

    static let shared: FuzzWorld = {
        do {
            return try FuzzWorld()
        } catch {
            fatalError("cannot build the issuer and Apple: \(error)")
        }
    }()

    /// Puts the issuer back as it was built, keys apart: users, transactions, tokens, faults
    /// and the request log as `POST /_admin/reset` leaves them, and the clock at its start.
    ///
    /// An input then behaves the same whichever inputs ran before it, so that a crash found
    /// reproduces from its file alone, and the cost of an input does not grow with the run: with
    /// the log kept between inputs, each `GET /_admin/requests` wrote and read back up to
    /// 10,000 entries, and the target ran at about 80 executions a second instead of
    /// several hundred (`perf record` on `scripts/fuzz issuer`).
    func resetIssuer() {
        clock.setOffset(0)
        let reset = HTTPRequest.json(url: issuerURL + "/_admin/reset", body: .object([:]))
        let answer = HandlerTargets.wait { [issuer] in await issuer.respond(to: reset) }
        guard answer.status == 200 else {
            fatalError("the issuer refused to reset between inputs: \(answer.status)")
        }
    }

    /// The team, key id and key of the issuer's Apple connection (fixed, as in the tests).
    static let teamID = "TEAMFUZZ01"
    static let keyID = "KEYFUZZ001"

    private init() throws {
        let developerKey = try P256PrivateKey(random: SeededRandom(seed: 0xF022))
        self.developerKey = developerKey
        var tenant = Tenant.default
        tenant.pushedAuthorizationRequests = .allowed
        for index in tenant.connections.indices where tenant.connections[index].name == "apple" {
            tenant.connections[index].apple = AppleConnectionSettings(
                appleURL: appleURL, teamID: Self.teamID, keyID: Self.keyID,
                privateKeyPEM: developerKey.pemRepresentation())
        }
        issuer = try Issuer(baseURL: issuerURL, tenant: tenant, clock: clock, random: SeededRandom(seed: 1))
        var configuration = AppleConfiguration()
        configuration.defaultTeamID = Self.teamID
        let apple = AppleIDProvider(
            baseURL: appleURL, clock: clock, random: SeededRandom(seed: 7),
            keySet: AppleKeySet.fixed(seed: 3),
            configuration: configuration)
        apple.registerDeveloperKey(teamID: Self.teamID, keyID: Self.keyID, publicKey: developerKey.publicKey)
        self.apple = apple
        try issuer.connectApple(
            transport: ClosureTransport { request throws(HTTPError) in await apple.respond(to: request) })
    }
}

/// What the requests of one input learned from the answers: cookies (a browser's, minus its
/// rules) and values that later requests name as `{{name}}`: query parameters of a `Location`,
/// string members of a JSON answer, fields of the forms of an HTML page (`state`, `code`,
/// `access_token`, `refresh_token`…). It lets the fuzzer reach a token exchange, which needs
/// values no input can guess.
struct FuzzSession {
    var cookies: [String: String] = [:]
    var values: [String: String] = [:]

    func substituted(_ part: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard !values.isEmpty, part.contains(UInt8(ascii: "{")) else { return part }
        var text = String(decoding: part, as: UTF8.self)
        for (name, value) in values where text.contains("{{\(name)}}") {
            text = text.replacingOccurrences(of: "{{\(name)}}", with: value)
        }
        return Array(text.utf8)[...]
    }

    func addCookies(to request: inout HTTPRequest) {
        guard !cookies.isEmpty, !request.headers.contains("Cookie") else { return }
        let header = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
            separator: "; ")
        request.headers.add(name: "Cookie", value: header)
    }

    mutating func remember(_ response: HTTPResponse, url: String) {
        for setCookie in response.headers.values(for: "Set-Cookie") {
            let pair = setCookie.split(separator: ";", maxSplits: 1).first ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            cookies[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        if let location = response.headers["Location"],
            let query = try? URLParts.queryParameters(of: location)
        {
            for pair in query { values[pair.name] = pair.value }
        }
        let contentType = response.headers["Content-Type"] ?? ""
        if MediaType.isJSON(MediaType.essence(contentType)),
            case .object(let members)? = try? JSONValue.parse(response.body)
        {
            for (name, value) in members {
                switch value {
                case .string(let text): values[name] = text
                // `{"refresh_tokens": [...]}` names its first one `{{refresh_token}}`.
                case .array(let items) where name.hasSuffix("s"):
                    if case .string(let text)? = items.first { values[String(name.dropLast())] = text }
                default: break
                }
            }
        } else if contentType.hasPrefix("text/html"),
            let page = try? HTMLDocument(bytes: response.body, contentType: contentType, url: url)
        {
            for form in page.forms { for field in form.fields { values[field.name] = field.value } }
        }
    }
}
