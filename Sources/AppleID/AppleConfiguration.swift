/// How a simulated Apple ID provider behaves where the real one varies, or where a test needs a say.
///
/// The defaults are Apple's observed values (docs/issuer.md, "The simulated Apple"): identity
/// tokens live 600 s, codes 5 minutes, access tokens 3600 s, client secrets at most
/// 15,777,000 s.
public struct AppleConfiguration: Sendable, Hashable {
    /// How `email_verified` and `is_private_email` are written into identity tokens.
    ///
    /// Apple has sent both over the years, and relying parties meet both today, so a simulator
    /// must be able to produce either.
    public enum BooleanEncoding: String, Sendable, Hashable, CaseIterable {
        /// JSON booleans, `true` and `false` (recent tokens).
        case jsonBoolean
        /// The strings `"true"` and `"false"` (older tokens; breaks parsers that expect booleans).
        case string
    }

    /// How boolean claims are encoded; `nonce_supported` is always a JSON boolean.
    public var booleanEncoding: BooleanEncoding = .jsonBoolean
    /// The developer team of native requests that name none and of apps not yet seen.
    public var defaultTeamID: String = "SIMTEAM001"
    /// `exp` − `iat` of identity tokens, in seconds.
    public var identityTokenLifetime: Int64 = 600
    /// How long an authorization code can be redeemed, in seconds.
    public var authorizationCodeLifetime: Int64 = 300
    /// `expires_in` of access tokens, in seconds.
    public var accessTokenLifetime: Int64 = 3600
    /// Largest `exp` − `iat` of a client secret, in seconds (Apple: 15,777,000, about six months).
    public var clientSecretMaximumLifetime: Int64 = 15_777_000
    /// How far in the future a client secret's `iat` may lie, in seconds (clock skew of the caller).
    public var clientSecretLeeway: Int64 = 60
    /// How long a key stays in `/auth/keys` after `rotateKeys()` replaced it, in seconds; tokens it
    /// signed live 600 s, so anything longer keeps them verifiable.
    public var retiredKeyPublicationPeriod: Int64 = 86_400
    /// The credential state after the user stops using Apple ID with an app.
    ///
    /// `notFound` by default; set `revoked` to reproduce devices that report that instead. Either
    /// way the next authorization is a first one again (name and email are returned).
    public var stateAfterStopUsing: AppleCredentialState = .notFound
    /// Largest request body accepted, in bytes; a larger one is a 400 `invalid_request`.
    public var maximumBodySize: Int = 64 * 1024

    public init() {}
}
