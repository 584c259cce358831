import Cryptography

/// Everything an `AppleIDProvider` remembers, behind its one lock.
struct AppleProviderState: Sendable {
    var keys: AppleKeyRing
    /// Apple IDs by account key (lowercased email).
    var accounts: [String: AppleAccountRecord] = [:]
    /// Apps (bundle ids, which are the native client ids) and the team that owns each.
    var apps: [String: String] = [:]
    /// Developer keys that sign client secrets, per team and key id.
    var developerKeys: [DeveloperKeyID: P256PublicKey] = [:]
    /// One authorization per account and app.
    var authorizations: [AppAuthorizationKey: AppAuthorizationRecord] = [:]
    /// Codes, refresh tokens and access tokens by `AppleIdentifiers.storageKey`.
    var codes: [String: AuthorizationCodeRecord] = [:]
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    var lastSweep: Int64 = .min

    init(keys: AppleKeyRing) { self.keys = keys }

    /// Whether tokens issued under `grant` still stand: the authorization is still the one they
    /// were issued under (revoking, stopping or transferring starts a new generation).
    func isCurrent(_ grant: AppleGrant) -> Bool {
        guard let record = authorizations[grant.authorization] else { return false }
        return record.generation == grant.generation && record.state == .authorized
    }

    /// Ends every token of an authorization and sets its state.
    mutating func end(_ key: AppAuthorizationKey, state: AppleCredentialState) {
        guard var record = authorizations[key] else { return }
        record.state = state
        record.generation += 1
        authorizations[key] = record
    }

    /// Forgets expired codes and access tokens, at most once a second of provider time.
    ///
    /// A used code is kept until it expires so that a second use is told "already used".
    mutating func sweepIfDue(now: Int64) {
        // Time is in whole seconds: a different second (forward, or back after a clock reset).
        guard now != lastSweep else { return }
        lastSweep = now
        codes = codes.filter { now < $0.value.expiresAt }
        accessTokens = accessTokens.filter { now < $0.value.expiresAt }
    }
}

struct AppleAccountRecord: Sendable {
    var email: String
    var givenName: String?
    var familyName: String?
    var realUserStatus: AppleRealUserStatus
}

struct DeveloperKeyID: Hashable, Sendable {
    var teamID: String
    var keyID: String
}

struct AppAuthorizationKey: Hashable, Sendable {
    /// `AppleIdentifiers.accountKey` of the account.
    var account: String
    var bundleID: String
}

struct AppAuthorizationRecord: Sendable {
    var teamID: String
    var state: AppleCredentialState
    /// Bumped whenever the authorization ends, which kills everything issued before.
    var generation: Int
    /// Whether the user shared an email (the `email` scope on the first authorization).
    var sharesEmail: Bool
    /// Whether the user chose "Hide My Email" on the first authorization.
    var usesPrivateRelay: Bool
}

/// What codes and tokens of one authorization let the provider mint: an identity token's claims.
struct AppleGrant: Sendable {
    var authorization: AppAuthorizationKey
    var generation: Int
    var clientID: String
    var teamID: String
    var subject: String
    var email: String?
    var isPrivateEmail: Bool
    var realUserStatus: AppleRealUserStatus
    var authTime: Int64
    var nonce: String?
}

struct AuthorizationCodeRecord: Sendable {
    var grant: AppleGrant
    var expiresAt: Int64
    var used: Bool
}

struct RefreshTokenRecord: Sendable {
    var grant: AppleGrant
}

struct AccessTokenRecord: Sendable {
    var grant: AppleGrant
    var expiresAt: Int64
}
