import AppleID
import Clocks
import Cryptography
public import HTTPCore
import JOSE
import Locking
import OAuthCore

/// The issuer's Sign in with Apple connection, as Auth0's native Apple flow works
/// (docs/issuer.md, "Sign in with Apple"): an app's Apple authorization code is redeemed at
/// Apple's `/auth/token` with a freshly signed ES256 client secret, the returned identity token
/// is verified against Apple's keys, and the user is `<connection>|<Apple sub>`.
///
/// Errors follow Auth0 on the native path:
/// - Apple's `invalid_grant` (a reused or expired code, a code of another app) and an identity
///   token that does not verify are 403 `invalid_grant` "Invalid authorization code".
/// - With `rejectNonce`, any `nonce` is 400 `invalid_request` "Error from Apple connection"
///   (field bug 11); Apple's other refusals (`invalid_client`: the developer key is wrong) are
///   400 `invalid_request` "Error from Apple connection" too.
/// - Apple unreachable, or answering 5xx, is 503 `temporarily_unavailable`; an answer that is
///   not Apple's shape is 502 `server_error`. Neither consumes anything at the issuer, so the
///   app may retry (with a new authorization: the code may have been spent).
final class AppleConnection: Sendable {
    let name: String
    let settings: AppleConnectionSettings
    let tokenClient: AppleTokenClient
    let keyFetcher: AppleKeyFetcher

    /// Leeway on identity token `exp` (the issuer's own `id_token` subjects get the same).
    static let leeway: Int64 = 60
    /// Auth0's words for a code Apple refused.
    static let invalidCode = "Invalid authorization code"
    /// Auth0's words for any other failure at Apple.
    static let connectionError = "Error from Apple connection"

    init(name: String, settings: AppleConnectionSettings, transport: any HTTPTransport, clock: any WallClock)
        throws(IssuerError)
    {
        guard let teamID = settings.teamID, let keyID = settings.keyID, let pem = settings.privateKeyPEM
        else {
            throw IssuerError(
                "the Apple connection \"\(name)\" needs team_id, key_id and a private key to redeem codes")
        }
        let privateKey: P256PrivateKey
        do {
            privateKey = try Self.developerKey(pem: pem)
        } catch {
            throw IssuerError(
                "the developer key of the Apple connection \"\(name)\" is not a P-256 key: \(error.message)")
        }
        self.name = name
        self.settings = settings
        tokenClient = AppleTokenClient(
            transport: transport, baseURL: settings.effectiveAppleURL, teamID: teamID, keyID: keyID,
            privateKey: privateKey, clock: clock)
        keyFetcher = AppleKeyFetcher(
            transport: transport, keysURL: tokenClient.baseURL + AppleIDProvider.Path.keys)
    }

    /// Developer keys already parsed, by PEM: every simulated world of a process shares one
    /// generated key, and OpenSSL's PEM decoder costs about a millisecond per parse.
    private static let parsedDeveloperKeys = Mutex<[String: P256PrivateKey]>([:])

    private static func developerKey(pem: String) throws(CryptoError) -> P256PrivateKey {
        if let known = parsedDeveloperKeys.withLock({ $0[pem] }) { return known }
        let key = try P256PrivateKey(pem: pem)
        parsedDeveloperKeys.withLock { keys in
            if keys.count >= 16 { keys.removeAll() }
            keys[pem] = key
        }
        return key
    }

    /// The bundle id the exchanging client stands for: its own id, which must be listed.
    private func bundleID(of subject: SubjectToken) throws(OAuthError) -> String {
        guard settings.bundleIDs.contains(subject.clientID) else {
            throw .unauthorizedClient(
                "client \(OAuthRequestParameters.quoted(subject.clientID)) is not an app of the Apple "
                    + "connection \(name) (its bundle_ids are \(settings.bundleIDs.joined(separator: ", ")))")
        }
        return subject.clientID
    }

    /// `SHA256(raw nonce)` when the exchange sent a raw `nonce`: the identity token must carry it.
    private func expectedNonceHash(_ subject: SubjectToken) -> String? {
        subject.parameters[OAuthParameter.nonce].map(AppleNonce.sha256Hex)
    }

    /// `http://auth0.com/oauth/token-type/apple-authz-code`: redeem the code, verify the token.
    func redeemAuthorizationCode(_ subject: SubjectToken) async throws(OAuthError) -> ExternalIdentity {
        if settings.rejectNonce, subject.parameters[OAuthParameter.nonce] != nil {
            throw OAuthError(
                OAuthErrorCode.invalidRequest,
                Self.connectionError + " (this tenant reproduces Auth0's refusal of a nonce on the native "
                    + "Apple exchange; send none)")
        }
        let bundleID = try bundleID(of: subject)
        let tokens: AppleTokenResponse
        do {
            tokens = try await tokenClient.redeem(code: subject.token, clientID: bundleID)
        } catch {
            throw Self.oauthError(error, subjectStatus: 403)
        }
        return try await verify(
            tokens.idToken, bundleID: bundleID, subject: subject, status: 403,
            what: "the identity token Apple returned for the code")
    }

    /// An RFC 8693 `id_token` subject whose `iss` is Apple: verified like a redeemed one.
    func verifyIdentityToken(_ subject: SubjectToken) async throws(OAuthError) -> ExternalIdentity {
        let bundleID = try bundleID(of: subject)
        return try await verify(
            subject.token, bundleID: bundleID, subject: subject, status: 400, what: "the Apple identity token"
        )
    }

    private func verify(
        _ token: String, bundleID: String, subject: SubjectToken, status: Int, what: String
    ) async throws(OAuthError) -> ExternalIdentity {
        let claims: AppleIdentityClaims
        do {
            claims = try await keyFetcher.verify(
                token, audience: bundleID, now: subject.now, expectedNonceHash: expectedNonceHash(subject),
                leeway: Self.leeway)
        } catch {
            guard error.code == .invalidIdentityToken else {
                throw Self.oauthError(error, subjectStatus: status)
            }
            let reason = error.tokenError?.message ?? error.message
            let prefix = status == 403 ? Self.invalidCode + ": " : ""
            throw Issuer.subjectTokenRejected(
                "\(prefix)\(what) does not verify for \(bundleID) at connection \(name): \(reason)",
                status: status)
        }
        return ExternalIdentity(
            connection: name, subject: claims.subject, email: claims.email,
            emailVerified: claims.email == nil ? nil : claims.emailVerified)
    }

    /// What the token endpoint answers for a failed call to Apple.
    static func oauthError(_ error: AppleTokenError, subjectStatus: Int) -> OAuthError {
        if let status = error.status, status >= 500 {
            return OAuthError(
                OAuthErrorCode.temporarilyUnavailable,
                "\(connectionError): Apple answered \(status); try again later",
                status: 503)
        }
        switch error.code {
        case .rejected where error.appleError == OAuthErrorCode.invalidGrant:
            let detail = error.appleErrorDescription.map { " (Apple: \($0.prefix(200)))" } ?? ""
            return Issuer.subjectTokenRejected(invalidCode + detail, status: subjectStatus)
        case .rejected:
            return OAuthError(
                OAuthErrorCode.invalidRequest,
                "\(connectionError): Apple answered \(error.appleError?.prefix(64) ?? "an error")"
                    + (error.appleError == OAuthErrorCode.invalidClient
                        ? " (check the connection's team_id, key_id and developer key)" : ""))
        case .transportFailed:
            return OAuthError(
                OAuthErrorCode.temporarilyUnavailable,
                "\(connectionError): Apple did not answer; try again later",
                status: 503)
        case .invalidResponse, .invalidIdentityToken:
            return OAuthError(
                OAuthErrorCode.serverError, "\(connectionError): \(error.message.prefix(300))", status: 502)
        case .clientSecretFailed:
            return OAuthError(
                OAuthErrorCode.serverError, "\(connectionError): \(error.message.prefix(300))", status: 500)
        }
    }
}

/// Apple authorization codes (`http://auth0.com/oauth/token-type/apple-authz-code`).
struct AppleAuthorizationCodeResolver: SubjectTokenResolver {
    let connection: AppleConnection

    func resolve(_ subject: SubjectToken) async throws(OAuthError) -> ExternalIdentity {
        try await connection.redeemAuthorizationCode(subject)
    }
}

/// An Apple connection that exchanges identity tokens only (`acceptsAuthorizationCodes` false).
struct RefusedAppleAuthorizationCodes: SubjectTokenResolver {
    func resolve(_ subject: SubjectToken) async throws(OAuthError) -> ExternalIdentity {
        throw .invalidRequest(
            "unsupported subject_token_type \(OAuthRequestParameters.quoted(subject.type)): the Apple "
                + "connection accepts Apple identity tokens only")
    }
}

/// RFC 8693 `id_token` subjects: Apple's (by `iss`) go to the Apple connection, the rest to the
/// issuer's own `.openIDProvider` verification.
struct AppleAwareIDTokenResolver: SubjectTokenResolver {
    let connection: AppleConnection
    /// The issuer that holds this resolver, and so outlives every call to it.
    unowned let issuer: Issuer

    func resolve(_ subject: SubjectToken) async throws(OAuthError) -> ExternalIdentity {
        let claimedIssuer = try? JWTClaims(json: try JWS.parse(subject.token).payloadObject()).issuer
        if let claimedIssuer,
            JWTValidation.normalizedIssuer(claimedIssuer)
                == JWTValidation.normalizedIssuer(AppleIDProvider.issuer)
        {
            return try await connection.verifyIdentityToken(subject)
        }
        return try issuer.verifyUpstreamIDToken(subject)
    }
}

extension Issuer {
    /// Connects the tenant's first connection of kind `.apple` to Apple through `transport`
    /// (a `CurlTransport`, or a `ClosureTransport` onto an in-process `AppleIDProvider`):
    /// native Apple authorization codes and Apple identity tokens become exchangeable.
    ///
    /// Client secrets are dated by the issuer's clock. Calling it again replaces the connection.
    /// - Throws: when the tenant has no Apple connection or it lacks the developer credentials.
    public func connectApple(transport: any HTTPTransport) throws(IssuerError) {
        guard
            let configuration = tenant.connections.first(where: {
                if case .apple = $0.kind { return true }
                return false
            })
        else { throw IssuerError("the tenant has no connection of kind apple") }
        let connection = try AppleConnection(
            name: configuration.name, settings: configuration.apple, transport: transport, clock: clock)
        let codes: any SubjectTokenResolver =
            configuration.apple.acceptsAuthorizationCodes
            ? AppleAuthorizationCodeResolver(connection: connection) : RefusedAppleAuthorizationCodes()
        register(codes, for: TokenTypeIdentifier.appleAuthorizationCode)
        register(
            AppleAwareIDTokenResolver(connection: connection, issuer: self), for: TokenTypeIdentifier.idToken)
    }
}
