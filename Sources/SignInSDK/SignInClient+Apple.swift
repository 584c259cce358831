import Cryptography
import HTTPCore
import JSON
import OAuthCore

extension SignInClient {
    /// The Auth0 "native social" grant for Apple (RFC 8693; docs/sdk.md).
    public static let tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    public static let appleCodeTokenType = "http://auth0.com/oauth/token-type/apple-authz-code"

    /// Native Sign in with Apple, then the token exchange at the issuer with `user_profile`
    /// built from the name Apple gave (the request shape of Auth0's Swift SDK).
    ///
    /// Apple gives the name only on the first authorization (field bug 10), so the name is kept
    /// in storage until an exchange succeeds. A lost response is retried with a fresh Apple
    /// code, because a code is single-use (field bug 12).
    public func signInWithApple(
        scopes: [AppleAuthorizationScope] = [.fullName, .email], nonce: String? = nil
    ) async throws(SignInError) -> Session {
        let options = try configuredOptions()
        let profile = options.profile
        flushDeferredWrite()
        var requestNonce = nonce
        if requestNonce == nil, profile.has(.nonceOnAppleExchange) {
            requestNonce = SHA256.hash(randomToken()).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        }
        // The nonce binds Apple's identity token; Auth0's native exchange takes none, and a
        // connection may refuse one (field bug 11), so only the faulty profile sends it on.
        let exchangeNonce = profile.has(.nonceOnAppleExchange) ? requestNonce : nil
        var credential = try await authorizeWithApple(scopes: scopes, nonce: requestNonce)
        do {
            return try await exchangeAppleCredential(credential, nonce: exchangeNonce)
        } catch  where error.code == .transport {
            if profile.has(.retryAppleCode) {
                return try await exchangeAppleCredential(credential, nonce: exchangeNonce)
            }
            credential = try await authorizeWithApple(scopes: scopes, nonce: requestNonce)
            return try await exchangeAppleCredential(credential, nonce: exchangeNonce)
        }
    }

    private func authorizeWithApple(scopes: [AppleAuthorizationScope], nonce: String?)
        async throws(SignInError)
        -> AppleAuthorization
    {
        guard let provider = environment.appleAuthorization else {
            throw SignInError(.invalidConfiguration, "Sign in with Apple is not available on this device")
        }
        do {
            return try await provider.authorize(scopes: scopes, nonce: nonce)
        } catch {
            switch error.kind {
            case .canceled: throw SignInError(.canceledLogin, "the user canceled Sign in with Apple")
            case .failed: throw SignInError(.appleAuthorizationFailed, error.message)
            }
        }
    }

    private func exchangeAppleCredential(_ credential: AppleAuthorization, nonce: String?)
        async throws(SignInError) -> Session
    {
        let options = try configuredOptions()
        let profile = options.profile
        let name = try appleName(for: credential, profile: profile)
        var parameters: FormParameters = [
            OAuthParameter.grantType: Self.tokenExchangeGrant,
            OAuthParameter.subjectToken: credential.authorizationCode,
            OAuthParameter.subjectTokenType: Self.appleCodeTokenType,
            OAuthParameter.clientID: options.clientID,
            "scope": options.scopes.joined(separator: " "),
        ]
        if let audience = options.audience { parameters.append(OAuthParameter.audience, audience) }
        if let nonce { parameters.append(OAuthParameter.nonce, nonce) }
        if let name, !profile.has(.neverSendUserProfile) {
            parameters.append(
                "user_profile", Self.userProfile(givenName: name.given, familyName: name.family))
        }
        let response: TokenResponse
        do {
            response = try await tokenRequest(parameters, endpoint: "token:token_exchange")
        } catch  where profile.has(.opaqueExchangeErrors) && error.code == .tokenRequestFailed {
            throw SignInError(.appleAuthorizationFailed, "Sign in with Apple failed")
        }
        guard let idToken = response.idToken else {
            throw SignInError(.invalidTokenResponse, "the token exchange returned no id_token")
        }
        let claims = try await verifyIDToken(idToken, nonce: nil, accessToken: response.accessToken)
        var session = makeSession(
            response, idToken: idToken, previous: nil, claims: claims, scopes: options.scopes,
            profile: profile)
        // Kept with the session: the user id is what `getCredentialState()` asks Apple about.
        session.appleUserID = credential.user
        try store(session)
        try? environment.storage.delete(key: Self.appleNameKey)
        return session
    }

    /// The name to send: Apple's, or one kept from an earlier authorization of the same user
    /// whose exchange failed.
    private func appleName(for credential: AppleAuthorization, profile: BehaviorProfile) throws(SignInError)
        -> (given: String?, family: String?)?
    {
        let keeps = !profile.has(.forgetAppleName)
        if credential.hasName {
            if keeps {
                let kept: JSONValue = [
                    "user": .string(credential.user),
                    "given_name": credential.givenName.map(JSONValue.string) ?? .null,
                    "family_name": credential.familyName.map(JSONValue.string) ?? .null,
                ]
                do {
                    try environment.storage.save(key: Self.appleNameKey, value: kept.serialized())
                } catch {
                    throw SignInError(.storage, "could not keep the name Apple gave: \(error)")
                }
            }
            return (credential.givenName, credential.familyName)
        }
        guard keeps, let bytes = try? environment.storage.load(key: Self.appleNameKey),
            let kept = try? JSONValue.parseObject(bytes), kept["user"]?.stringValue == credential.user
        else { return nil }
        return (kept["given_name"]?.stringValue, kept["family_name"]?.stringValue)
    }

    /// `user_profile`: `{"name":{"firstName":…,"lastName":…}}`, parts left out when missing.
    static func userProfile(givenName: String?, familyName: String?) -> String {
        var name: [String: JSONValue] = [:]
        if let givenName { name["firstName"] = .string(givenName) }
        if let familyName { name["lastName"] = .string(familyName) }
        return JSONValue.object(["name": .object(name)]).serializedString()
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
