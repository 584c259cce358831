public import Clocks
public import Cryptography
import Foundation
public import HTTPCore
import JOSE
import JSON
import Locking
import OAuthCore

/// An OAuth 2.0 / OpenID Connect provider with Auth0-compatible endpoints, usable in process
/// (`respond(to:)` is an `HTTPHandler`) and over HTTP (hand `respond` to a server).
///
/// Time and randomness are injected; all protocol state sits behind one lock (the request log has
/// its own), taken briefly and never across an `await` or a signature, so that single-use rules
/// hold under concurrency.
public final class Issuer: Sendable {
    /// The issuer identifier (`iss`), e.g. `http://127.0.0.1:8080`, without a trailing slash.
    public let identifier: String
    public let tenant: Tenant
    let clock: any WallClock
    let random: any RandomSource
    let state: Mutex<IssuerState>
    /// The most recent requests, under a lock of their own: every request is logged after its
    /// endpoint ran, and taking the state's lock a second time for that made the token
    /// endpoint's threads wait on each other.
    let recentRequests: Mutex<RequestLog>
    /// RFC 8693 subject token types that other components verify (the Apple connection).
    let subjectTokenResolvers = SubjectTokenResolverTable()
    /// The issuer's public keys, decoded once per key ring (access token checks).
    let verificationKeys = VerificationKeyCache()
    /// The `userinfo` endpoint's URL, an audience of every access token with `openid`.
    let userInfoURL: String
    /// Under the `django-oauth-toolkit` profile, a refresh token's successors are derived from
    /// it with this key, so that a rotated token presented again within the grace period gets
    /// the same successor without the issuer storing any token in the clear. `nil` for other
    /// profiles (no random bytes drawn for it).
    let successorKey: HMACSHA256Key?
    /// Who may use the admin API: programs on this machine, never a web page.
    let adminPolicy: LocalAdminPolicy
    /// How much of what clients create the issuer keeps.
    public let limits: IssuerLimits

    /// Creates an issuer serving `tenant` at `baseURL`.
    public init(
        baseURL: String, tenant: Tenant = .default, clock: any WallClock = SystemWallClock(),
        random: any RandomSource = SystemRandom(), keySource: SigningKeySource = .generated,
        limits: IssuerLimits = .default
    ) throws(IssuerError) {
        var identifier = baseURL
        while identifier.hasSuffix("/") { identifier.removeLast() }
        self.identifier = identifier
        userInfoURL = identifier + Path.userInfo
        adminPolicy = LocalAdminPolicy(serviceURL: identifier)
        self.tenant = tenant
        self.clock = clock
        self.random = random
        self.limits = limits
        recentRequests = Mutex(
            RequestLog(capacity: limits.requestLogEntries, byteBudget: limits.requestLogBytes))
        successorKey =
            tenant.refreshRotation.profile.name == .djangoOAuthToolkit
            ? HMACSHA256Key(random.bytes(count: 32)) : nil
        let keys: SigningKeyRing
        do {
            keys = try SigningKeyRing(algorithm: tenant.signingAlgorithm, source: keySource)
        } catch {
            throw IssuerError("cannot create the signing key: \(error.message)")
        }
        state = Mutex(IssuerState(tenant: tenant, keys: keys, limits: limits))
    }

    /// Largest request body accepted, in process as over HTTP (the server's own limit).
    public static let maximumBodySize = 4 << 20

    /// Answers one request: injected transport faults first, then the endpoint, then the log.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await respondImmediately(to: request).response()
    }

    /// `respond(to:)` as a server's IO thread takes it: what can be answered on the spot is,
    /// and what has to wait (a delay fault, a token exchange, which may call Apple) is decided
    /// here and left for later. Transport faults are taken here, so "the next N requests" are
    /// the next N to arrive, whatever the order their handlers would run in.
    ///
    /// The admin API answers on the spot too, `POST /_admin/tokens` included: minting many
    /// tokens holds one IO thread for a while, but puts the tokens in that thread's memory
    /// arena, where the refreshes that use them will free them (minted on another thread, they
    /// doubled the memory a load test ends with).
    public func respondImmediately(to request: HTTPRequest) -> ImmediateAnswer {
        let started = ContinuousClock.now
        @Sendable func logged(_ response: HTTPResponse) -> HTTPResponse {
            let response = dated(response)
            log(request, response: response, started: started)
            return response
        }
        guard request.body.count <= Issuer.maximumBodySize else {
            return .response(
                logged(
                    OAuthError(
                        OAuthErrorCode.invalidRequest, "request body exceeds \(Issuer.maximumBodySize) bytes",
                        status: 413
                    ).response))
        }
        let path = request.path
        var fault: FaultInjection?
        if path.hasPrefix("/_admin/") {
            // Before the route is looked up: a page learns nothing, not even which routes exist.
            if let refusal = adminPolicy.refusal(of: request) {
                return .response(
                    logged(OAuthError(refusal.error, refusal.description, status: refusal.status).response))
            }
        } else {
            fault = state.withLock { state in
                state.faults.take { $0.fault.isTransportFault && ($0.path == nil || $0.path == path) }
            }
        }
        if let fault, let response = Issuer.transportFaultResponse(fault) {
            return .response(logged(response))
        }
        let endpoint: Endpoint
        switch self.endpoint(for: request, path: path) {
        case .failure(let refusal): return .response(logged(refusal.response))
        case .success(let found): endpoint = found
        }
        switch fault {
        case .some(let delayed) where delayed.fault == .delay:
            let delay = delayed.delayMilliseconds
            return .later {
                try? await Task.sleep(for: .milliseconds(delay))
                return logged(await endpoint(self, request).response())
            }
        case .some(let dropped) where dropped.fault == .dropConnection:
            // Processed, then the answer is lost.
            return endpoint(self, request).map { _ in logged(.droppedConnection) }
        default:
            return endpoint(self, request).map(logged)
        }
    }

    /// The answer a transport fault puts in place of the endpoint's; `nil` for the faults that
    /// let the endpoint run (a delay, a dropped connection).
    private static func transportFaultResponse(_ fault: FaultInjection) -> HTTPResponse? {
        switch fault.fault {
        case .internalServerError:
            return OAuthError(
                OAuthErrorCode.serverError, "injected fault: internal server error", status: 500
            ).response
        case .serviceUnavailable:
            return OAuthError(
                OAuthErrorCode.temporarilyUnavailable, "injected fault: service unavailable", status: 503
            )
            .response
        case .rateLimited:
            var error = OAuthError("too_many_requests", "injected fault: rate limited", status: 429)
            error.headers["Retry-After"] = String(fault.retryAfterSeconds)
            return error.response
        case .htmlErrorPage:
            let status = fault.status ?? 502
            let reason = HTTPStatusText.reasonPhrase(for: status)
            return .html(
                "<!DOCTYPE html><html><head><title>\(status) \(reason)</title></head><body><h1>\(reason)</h1>"
                    + "<p>The server could not answer (injected fault).</p></body></html>",
                status: status)
        case .oauthError:
            return OAuthError(
                fault.error ?? OAuthErrorCode.serverError, fault.errorDescription ?? "injected fault",
                status: fault.status ?? 400
            ).response
        default:
            return nil
        }
    }

    /// The endpoint at `path` for the request's method (`HEAD` as `GET`), or why there is none.
    private func endpoint(for request: HTTPRequest, path: String) -> Result<Endpoint, OAuthError> {
        guard let methods = Issuer.endpoints[path] else {
            return .failure(OAuthError("not_found", "no endpoint at \(path.prefix(200))", status: 404))
        }
        let method = request.method == .head ? HTTPMethod.get : request.method
        guard let endpoint = methods[method] else {
            var error = OAuthError(
                OAuthErrorCode.invalidRequest, "\(request.method) is not allowed on \(path)", status: 405)
            error.headers["Allow"] = methods.keys.map(\.rawValue).sorted().joined(separator: ", ")
            return .failure(error)
        }
        return .success(endpoint)
    }

    /// The answer with a `Date` header of the issuer's own clock: an origin server with a clock
    /// must send one on every 2xx, 3xx and 4xx answer, and may on the others (RFC 9110 §6.6.1).
    /// It is how a client learns the server's time, for instance to stamp DPoP proofs that
    /// were refused for the device's skew (RFC 9449 §11.1). An endpoint's own `Date` is kept.
    private func dated(_ response: HTTPResponse) -> HTTPResponse {
        guard !response.dropsConnection, !response.headers.contains("Date") else { return response }
        var response = response
        response.headers.add(name: "Date", value: HTTPDate.format(clock.now()))
        return response
    }

    private func log(_ request: HTTPRequest, response: HTTPResponse, started: ContinuousClock.Instant) {
        let entry = RequestLogEntry(
            request, status: response.dropsConnection ? 0 : response.status, time: clock.now(),
            durationMilliseconds: (ContinuousClock.now - started).inMilliseconds)
        recentRequests.withLock { $0.append(entry) }
    }

    // MARK: - Helpers for the endpoints

    /// A fresh random value for codes, tokens, ids: 32 bytes, base64url (256 bits).
    func randomValue(byteCount: Int = 32) -> String { Base64URL.encode(random.bytes(count: byteCount)) }

    /// How secrets are stored: SHA-256, base64url.
    static func hash(_ secret: String) -> String { Base64URL.encode(SHA256.hash(secret)) }

    /// Sweeps expired state at most once a second of issuer time.
    func sweepIfDue(_ state: inout IssuerState, now: Int64) {
        if now - state.lastSweep >= 1 || state.lastSweep > now { state.sweep(now: now) }
    }

    /// The lifetimes that apply to a client.
    func lifetimes(for client: ClientRegistration) -> TokenLifetimes { client.lifetimes ?? tenant.lifetimes }

    /// The refresh token rotation that applies to a client: its own, or the tenant's.
    func refreshRotation(for client: ClientRegistration) -> RefreshRotationSettings {
        client.refreshRotation ?? tenant.refreshRotation
    }
}

/// A problem that stops the issuer from starting (a bad tenant, no key).
public struct IssuerError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
