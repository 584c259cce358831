import Cryptography
import Foundation
import HTTPCore
import JOSE
import JSON
import Locking
import OAuthCore
import Simulator
import WebAuthSession
import WorldVocabulary

/// Why the audit stopped before its end.
public struct AuditStop: Error, Sendable, Hashable {
    public var reason: String
}

/// A request the audit could not complete: no response came (the check says so, and states
/// nothing about the issuer).
struct ProbeFailure: Error, Sendable {
    var message: String
}

/// The native app the audit plays: it sends its requests through a simulated phone's network
/// (so each is logged, numbered and written to the HAR) and opens its sheets in the phone's
/// browser, as the test user. It keeps the audit's limits: a request budget, and a stop after
/// a streak of transport failures.
final class AuditProbe: Sendable {
    let phone: SimulatedPhone
    let target: AuditTarget
    /// The issuer's time, in Unix seconds: the world's clock.
    let now: @Sendable () -> Int64
    /// Waits `seconds` of the issuer's time, or says it may not (false).
    let wait: @Sendable (Int64) async -> Bool
    private let state = Mutex(State())

    private struct State {
        var failureStreak = 0
    }

    init(
        phone: SimulatedPhone, target: AuditTarget, now: @escaping @Sendable () -> Int64,
        wait: @escaping @Sendable (Int64) async -> Bool
    ) {
        self.phone = phone
        self.target = target
        self.now = now
        self.wait = wait
    }

    /// How many exchanges the phone has logged: the next one is numbered `sent + 1`.
    var sent: Int { phone.device.network.log.count }

    private var initiator: RequestInitiator { RequestInitiator(agent: .app, app: target.client.id) }

    // MARK: - Requests

    /// Sends a request as the app. A transport failure is a `ProbeFailure` for the check; the
    /// streak of them, or a request over the budget, stops the audit.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try checkBudget()
        let outcome: Result<HTTPResponse, HTTPError> = await RequestInitiator.$current.withValue(initiator) {
            do throws(HTTPError) {
                return .success(try await phone.device.network.send(request))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let response) where !response.dropsConnection:
            state.withLock { $0.failureStreak = 0 }
            return response
        case .success:
            try noteFailure()
            throw ProbeFailure(
                message: "\(request.method.rawValue) \(request.urlWithoutQuery): the connection dropped")
        case .failure(let error):
            try noteFailure()
            throw ProbeFailure(
                message: "\(request.method.rawValue) \(request.urlWithoutQuery): \(error.message)")
        }
    }

    private func checkBudget() throws {
        if sent >= target.maximumRequests {
            throw AuditStop(
                reason: "the audit reached its budget of \(target.maximumRequests) requests (--max-requests)")
        }
    }

    private func noteFailure() throws {
        let streak = state.withLock { state -> Int in
            state.failureStreak += 1
            return state.failureStreak
        }
        if streak >= target.maximumFailureStreak {
            throw AuditStop(
                reason: "\(streak) requests in a row got no response; the issuer looks unreachable")
        }
    }

    func get(_ url: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await send(HTTPRequest(method: .get, url: url, headers: headers))
    }

    // MARK: - The token endpoint

    /// A token endpoint answer, read as RFC 6749 §5.1 and §5.2 write it.
    struct TokenAnswer: Sendable {
        var status: Int
        var object: [String: JSONValue]
        var response: HTTPResponse

        var succeeded: Bool { status == 200 && object["access_token"]?.stringValue != nil }
        var error: String? { object["error"]?.stringValue }
        var accessToken: String? { object["access_token"]?.stringValue }
        var refreshToken: String? { object["refresh_token"]?.stringValue }
        var idToken: String? { object["id_token"]?.stringValue }
        var tokenType: String? { object["token_type"]?.stringValue }

        /// `200 with tokens`, or `400 invalid_grant`, for findings.
        var described: String {
            if succeeded { return "\(status) with tokens" }
            return "\(status)" + (error.map { " \($0)" } ?? (object.isEmpty ? " (no JSON error)" : ""))
        }
    }

    /// POSTs `form` to the token endpoint as `client`, with a DPoP proof of `dpop` when given
    /// (and once more with the issuer's nonce if it asks for one, RFC 9449 §8).
    ///
    /// - Parameters:
    ///   - tokenEndpoint: the token endpoint's URL, for a `private_key_jwt` assertion's `aud`
    ///     when `endpoint` is another one (the PAR endpoint); `endpoint` itself by default.
    ///   - nonce: the proof's nonce to start with; `followsNonce: false` sends only that one, for
    ///     the check that a nonce the issuer never issued is refused.
    func token(
        _ form: FormParameters, endpoint: String, tokenEndpoint: String? = nil, client: AuditClient,
        method: TokenEndpointAuthMethod, dpop: JWSSigner? = nil, nonce initialNonce: String? = nil,
        followsNonce: Bool = true
    ) async throws -> TokenAnswer {
        var form = form
        var headers = HTTPHeaders()
        try authenticate(
            client, method: method, tokenEndpoint: tokenEndpoint ?? endpoint, form: &form, headers: &headers)
        var nonce = initialNonce
        for _ in 0..<2 {
            var request = HTTPRequest.form(url: endpoint, parameters: form, headers: headers)
            if let dpop {
                request.headers.replaceOrAdd(
                    name: "DPoP", value: try proof(dpop, method: "POST", url: endpoint, nonce: nonce))
            }
            let response = try await send(request)
            let object = (try? response.jsonBody())?.objectValue ?? [:]
            let answer = TokenAnswer(status: response.status, object: object, response: response)
            if dpop != nil, followsNonce, nonce == nil, answer.error == "use_dpop_nonce",
                let issued = response.headers["DPoP-Nonce"]
            {
                nonce = issued
                continue
            }
            return answer
        }
        throw ProbeFailure(message: "the issuer asked for a DPoP nonce twice")
    }

    /// Adds `client`'s authentication to a token, revocation or pushed authorization request:
    /// `client_id` always (RFC 6749 §3.2.1), and the secret as `method` sends it (RFC 6749
    /// §2.3.1: Basic with the form-encoded id and secret, or in the body), or a fresh
    /// `private_key_jwt` assertion (RFC 7523 §2.2) whose `aud` is the issuer or `tokenEndpoint`.
    func authenticate(
        _ client: AuditClient, method: TokenEndpointAuthMethod, tokenEndpoint: String,
        form: inout FormParameters,
        headers: inout HTTPHeaders
    ) throws {
        form.append(OAuthParameter.clientID, client.id)
        switch method {
        case .clientSecretBasic:
            let credentials =
                FormURLEncoding.escape(client.id) + ":" + FormURLEncoding.escape(client.secret ?? "")
            headers.replaceOrAdd(
                name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        case .clientSecretPost:
            form.append(OAuthParameter.clientSecret, client.secret ?? "")
        case .privateKeyJWT:
            guard let key = client.key else {
                throw ProbeFailure(
                    message: "\(client.id) authenticates with private_key_jwt, but no key was given")
            }
            let audience =
                switch client.assertionAudience {
                case .issuer: target.issuer
                case .tokenEndpoint: tokenEndpoint
                }
            do {
                form.append(OAuthParameter.clientAssertionType, ClientAssertion.type)
                form.append(
                    OAuthParameter.clientAssertion,
                    try ClientAssertion.make(
                        signer: try JWSSigner(jwk: key), clientID: client.id, audience: audience,
                        issuedAt: now(),
                        id: randomString()))
            } catch {
                throw ProbeFailure(message: "the client assertion could not be signed: \(error.message)")
            }
        case .publicClient:
            break
        }
    }

    /// A DPoP proof (RFC 9449 §4.2) signed by `key`.
    func proof(
        _ key: JWSSigner, method: String, url: String, accessToken: String? = nil, nonce: String? = nil
    )
        throws -> String
    {
        try DPoPProof.make(
            signer: key, method: method, url: url, accessToken: accessToken, nonce: nonce, issuedAt: now(),
            id: randomString())
    }

    /// A fresh P-256 key for DPoP proofs.
    func newDPoPKey() throws -> JWSSigner {
        try JWSSigner(key: .p256(try P256PrivateKey(random: phone.device.random)), algorithm: .es256)
    }

    // MARK: - Randomness

    /// 32 random bytes, base64url: a `state`, a `nonce`, a `jti`.
    func randomString() -> String { Base64URL.encode(phone.device.random.bytes(count: 32)) }

    func newPKCE() -> PKCE { PKCE.generate(using: phone.device.random) }

    // MARK: - The sheet

    /// Opens the sheet at `url` with the test user in it; in the shared browser store unless
    /// `ephemeral`, so that one sign-in serves the audit's later flows.
    func sheet(
        _ url: String, redirectURI: String, ephemeral: Bool = false, person: WebUserScript? = nil,
        purpose: WebAuthenticationSession.Purpose = .signIn
    ) async throws -> SheetEnd {
        SheetEnd(
            try await sheetOutcome(
                url, redirectURI: redirectURI, ephemeral: ephemeral, person: person, purpose: purpose))
    }

    /// The sheet's outcome itself, for readers of its trace.
    func sheetOutcome(
        _ url: String, redirectURI: String, ephemeral: Bool = false, person: WebUserScript? = nil,
        purpose: WebAuthenticationSession.Purpose = .signIn
    ) async throws -> WebAuthenticationOutcome {
        try checkBudget()
        let opened: Result<WebAuthenticationOutcome, WebAuthenticationError> =
            await RequestInitiator.$current.withValue(initiator) {
                do throws(WebAuthenticationError) {
                    return .success(
                        try await phone.openSheet(
                            url: url, redirectURI: redirectURI, engine: target.engine, ephemeral: ephemeral,
                            person: person ?? target.person, purpose: purpose))
                } catch {
                    return .failure(error)
                }
            }
        switch opened {
        case .success(let outcome): return outcome
        case .failure(let error): throw ProbeFailure(message: "the sheet could not open: \(error.message)")
        }
    }
}

/// Where a sheet ended: at the app's callback, on a page the issuer showed, or in a failure of
/// its own.
enum SheetEnd: Sendable {
    /// The issuer sent the browser to the callback with these parameters: the query's, or the
    /// fragment's when the query carries no response (`inFragment`), as some issuers send an
    /// error for a response type they do not know.
    case callback(url: String, parameters: FormParameters, inFragment: Bool)
    /// The issuer showed a page and sent the browser nowhere: an error page or a page the person
    /// could not act on.
    case page(url: String?, status: Int?, message: String)
    /// The sheet failed otherwise (the person's login refused, a network error, a timeout).
    case failed(WebAuthenticationError)
    /// No sheet opened: the pushed request was refused (RFC 9126 §2.3), which the app hears
    /// directly.
    case pushRefused(status: Int, error: String?)

    init(_ outcome: WebAuthenticationOutcome) {
        switch outcome.result {
        case .success(let url):
            let query = (try? FormURLEncoding.decode(URLParts.query(of: url) ?? "")) ?? FormParameters()
            let responseNames = [OAuthParameter.code, OAuthParameter.error, OAuthParameter.state]
            if !responseNames.contains(where: { query[$0] != nil }), let hash = url.firstIndex(of: "#"),
                let fragment = try? FormURLEncoding.decode(String(url[url.index(after: hash)...])),
                responseNames.contains(where: { fragment[$0] != nil })
            {
                self = .callback(url: url, parameters: fragment, inFragment: true)
            } else {
                self = .callback(url: url, parameters: query, inFragment: false)
            }
        case .failure(let error) where [.errorPage, .unexpectedPage, .foreignScheme].contains(error.code):
            self = .page(
                url: error.url ?? outcome.trace.last?.url, status: error.status, message: error.message)
        case .failure(let error):
            self = .failed(error)
        }
    }

    var parameters: FormParameters? {
        if case .callback(_, let parameters, _) = self { parameters } else { nil }
    }

    var code: String? { parameters?[OAuthParameter.code] }
    var error: String? { parameters?[OAuthParameter.error] }
    var callbackURL: String? {
        if case .callback(let url, _, _) = self { url } else { nil }
    }

    /// How the sheet ended, for findings.
    var described: String {
        switch self {
        case .callback(_, let parameters, let inFragment):
            let place = inFragment ? " in the fragment" : ""
            if parameters[OAuthParameter.code] != nil { return "redirected back with a code\(place)" }
            if let error = parameters[OAuthParameter.error] {
                return "redirected back with error=\(error)\(place)"
            }
            return "redirected back with neither a code nor an error"
        case .page(let url, let status, _):
            return "the issuer showed a page" + (status.map { " (\($0))" } ?? "")
                + (url.map { " at \(URLParts.stripQueryAndFragment($0))" } ?? "") + " and redirected nowhere"
        case .failed(let error):
            return "the sheet ended in \(error.code.rawValue): \(error.message)"
        case .pushRefused(let status, let error):
            return "the push was refused with \(status)" + (error.map { " \($0)" } ?? " (no JSON error)")
        }
    }
}
