import JOSE
import OAuthCore

extension SignInOptions {
    /// The checks `configure(options:)` makes of the client registration beyond the issuer and
    /// the client id, for hosts that want to refuse a configuration before launching an app:
    /// the authentication method has what it needs and nothing it would ignore, `max_age` is
    /// not negative, and no extra authorization parameter takes a name the SDK owns.
    /// - Throws: `invalid_configuration` naming the problem.
    public func checkClientRegistration() throws(SignInError) {
        let options = self
        let hasSecret = !(options.clientSecret ?? "").isEmpty
        let hasKey = options.clientKey != nil
        if let key = options.clientKey {
            guard key.isPrivate else {
                throw SignInError(
                    .invalidConfiguration,
                    "the client key is a public key; private_key_jwt signs with the private key")
            }
            do {
                _ = try JWSSigner(jwk: key)
            } catch {
                throw SignInError(.invalidConfiguration, "the client key cannot sign: \(error.message)")
            }
        }
        switch options.clientAuthentication {
        case .clientSecretBasic?:
            try Self.checkSecretOnly(.clientSecretBasic, hasSecret: hasSecret, hasKey: hasKey)
        case .clientSecretPost?:
            try Self.checkSecretOnly(.clientSecretPost, hasSecret: hasSecret, hasKey: hasKey)
        case .privateKeyJWT?:
            guard hasKey else {
                throw SignInError(.invalidConfiguration, "private_key_jwt needs the client's private key")
            }
            guard !hasSecret else {
                throw SignInError(
                    .invalidConfiguration,
                    "private_key_jwt signs with the key; the client secret would not be used")
            }
        case .publicClient?:
            guard !hasSecret, !hasKey else {
                throw SignInError(
                    .invalidConfiguration,
                    "client authentication none sends no credential; remove the client secret or key")
            }
        case nil:
            guard !(hasSecret && hasKey) else {
                throw SignInError(
                    .invalidConfiguration,
                    "the client has both a secret and a key: choose the authentication method")
            }
        }
        if let secret = options.clientSecret, secret.isEmpty {
            throw SignInError(.invalidConfiguration, "the client secret is empty")
        }
        if case .values(let values) = options.prompt, values.contains(Prompt.omitKeyword) {
            throw SignInError(
                .invalidConfiguration, "prompt \"\(options.prompt)\": omit sends no prompt and stands alone")
        }
        if let maxAge = options.maxAge, maxAge < 0 {
            throw SignInError(.invalidConfiguration, "max_age must not be negative, found \(maxAge)")
        }
        try Self.checkAuthorizationParameters(options.authorizationParameters)
    }

    /// A method that sends the client secret (RFC 6749 §2.3.1) needs one, and no key beside it.
    private static func checkSecretOnly(_ method: TokenEndpointAuthMethod, hasSecret: Bool, hasKey: Bool)
        throws(SignInError)
    {
        guard hasSecret else {
            throw SignInError(.invalidConfiguration, "\(method.rawValue) needs a client secret")
        }
        guard !hasKey else {
            throw SignInError(
                .invalidConfiguration, "\(method.rawValue) sends the secret; the client key would not be used"
            )
        }
    }

    /// Refuses extra authorization parameters whose names the SDK owns or has an option for.
    static func checkAuthorizationParameters(_ parameters: [String: String]) throws(SignInError) {
        for name in parameters.keys.sorted() {
            if let problem = reservedParameterProblem(name) {
                throw SignInError(.invalidConfiguration, problem)
            }
        }
    }
}
