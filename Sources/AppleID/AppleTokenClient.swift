public import Clocks
public import Cryptography
public import HTTPCore
import JOSE
public import JSON
import OAuthCore

/// Apple's answer to a successful `/auth/token` request.
public struct AppleTokenResponse: Sendable, Hashable {
    public var accessToken: String
    /// `Bearer`.
    public var tokenType: String
    public var expiresIn: Int64
    /// Present when a code was redeemed; a refresh gives none (Apple's refresh tokens do not rotate).
    public var refreshToken: String?
    /// The identity token of the authorization; verify it (`AppleIdentityToken.verify`).
    public var idToken: String
    /// The whole JSON body, members the simulator does not model included.
    public var json: JSONValue

    /// Reads a token response body; `nil` when a required member is missing or mistyped.
    public init?(json: JSONValue) {
        guard let accessToken = json[OAuthParameter.accessToken]?.stringValue,
            let idToken = json[OAuthParameter.idToken]?.stringValue,
            let tokenType = json[OAuthParameter.tokenType]?.stringValue,
            let expiresIn = json[OAuthParameter.expiresIn]?.int64Value
        else { return nil }
        if let refresh = json[OAuthParameter.refreshToken], refresh.stringValue == nil { return nil }
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = json[OAuthParameter.refreshToken]?.stringValue
        self.idToken = idToken
        self.json = json
    }
}

/// `token_type_hint` of `/auth/revoke` (RFC 7009 §2.1).
public enum AppleTokenTypeHint: String, Sendable, Hashable {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
}

/// What a developer's server (or an issuer that accepts Apple codes) uses to talk to Apple's
/// token endpoints: every call carries a freshly signed client secret.
///
/// The integration seam for an issuer: with the Apple base URL (the simulator's, or
/// `https://appleid.apple.com`), the team id, the developer key id and its private key, it
/// redeems a native app's authorization code (`redeem`), refreshes (`refresh`) and revokes
/// (`revoke`); Apple's errors come back typed (`AppleTokenError.rejected` with Apple's `error`
/// and `error_description`). Verify the returned `idToken` with `AppleKeyFetcher.verify` or
/// `AppleIdentityToken.verify`.
public struct AppleTokenClient: Sendable {
    public let baseURL: String
    public let teamID: String
    public let keyID: String
    /// `exp` − `iat` of the client secrets it signs.
    public var clientSecretLifetime: Int64
    private let privateKey: P256PrivateKey
    private let transport: any HTTPTransport
    private let clock: any WallClock

    /// - Parameters:
    ///   - baseURL: where Apple's endpoints are, without `/auth/…` (e.g. `http://127.0.0.1:8080/apple`).
    ///   - clock: the time of the client secrets' `iat`.
    public init(
        transport: any HTTPTransport, baseURL: String, teamID: String, keyID: String,
        privateKey: P256PrivateKey,
        clock: any WallClock, clientSecretLifetime: Int64 = 300
    ) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
        self.transport = transport
        self.clock = clock
        self.clientSecretLifetime = clientSecretLifetime
    }

    /// A client secret for `clientID`, issued now.
    public func clientSecret(for clientID: String) throws(AppleTokenError) -> String {
        do {
            return try AppleClientSecret.make(
                teamID: teamID, keyID: keyID, clientID: clientID, privateKey: privateKey,
                issuedAt: clock.now(),
                lifetime: clientSecretLifetime)
        } catch {
            throw AppleTokenError(
                .clientSecretFailed, "cannot sign the client secret: \(error.message)", tokenError: error)
        }
    }

    /// Redeems an authorization code (`grant_type=authorization_code`); `redirectURI` only when
    /// the authorization used one (native codes do not).
    public func redeem(code: String, clientID: String, redirectURI: String? = nil)
        async throws(AppleTokenError)
        -> AppleTokenResponse
    {
        var form: FormParameters = [
            OAuthParameter.grantType: GrantType.authorizationCode, OAuthParameter.code: code,
            OAuthParameter.clientID: clientID,
            OAuthParameter.clientSecret: try clientSecret(for: clientID),
        ]
        if let redirectURI { form[OAuthParameter.redirectURI] = redirectURI }
        return try await tokenRequest(form)
    }

    /// A new access token and identity token for a refresh token.
    public func refresh(refreshToken: String, clientID: String) async throws(AppleTokenError)
        -> AppleTokenResponse
    {
        try await tokenRequest([
            OAuthParameter.grantType: GrantType.refreshToken, OAuthParameter.refreshToken: refreshToken,
            OAuthParameter.clientID: clientID,
            OAuthParameter.clientSecret: try clientSecret(for: clientID),
        ])
    }

    /// Revokes a refresh or access token, and with it the user's authorization of the app.
    public func revoke(token: String, clientID: String, hint: AppleTokenTypeHint? = nil)
        async throws(AppleTokenError)
    {
        var form: FormParameters = [
            OAuthParameter.token: token, OAuthParameter.clientID: clientID,
            OAuthParameter.clientSecret: try clientSecret(for: clientID),
        ]
        if let hint { form[OAuthParameter.tokenTypeHint] = hint.rawValue }
        let response = try await send(form, to: "/auth/revoke")
        guard response.status == 200 else { throw Self.rejection(response) }
    }

    private func tokenRequest(_ form: FormParameters) async throws(AppleTokenError) -> AppleTokenResponse {
        let response = try await send(form, to: "/auth/token")
        guard response.status == 200 else { throw Self.rejection(response) }
        guard let json = try? response.jsonBody(), let parsed = AppleTokenResponse(json: json) else {
            throw AppleTokenError(
                .invalidResponse, "the token response lacks access_token, token_type, expires_in or id_token",
                status: response.status)
        }
        return parsed
    }

    private func send(_ form: FormParameters, to path: String) async throws(AppleTokenError) -> HTTPResponse {
        do {
            return try await transport.send(.form(url: baseURL + path, parameters: form))
        } catch {
            throw AppleTokenError(
                .transportFailed, "\(path) did not answer: \(error.message)", transportError: error)
        }
    }

    /// An error answer: Apple's `error` and `error_description` when the body has them.
    static func rejection(_ response: HTTPResponse) -> AppleTokenError {
        guard let body = try? response.jsonBody(), let error = body[OAuthParameter.error]?.stringValue else {
            return AppleTokenError(
                .invalidResponse, "Apple answered \(response.status) without an OAuth error",
                status: response.status)
        }
        let description = body[OAuthParameter.errorDescription]?.stringValue
        return AppleTokenError(
            .rejected, "Apple answered \(response.status) \(error)" + (description.map { ": \($0)" } ?? ""),
            status: response.status, appleError: error, appleErrorDescription: description)
    }
}
