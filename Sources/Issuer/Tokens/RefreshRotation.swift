/// How the issuer rotates refresh tokens and what it does when one it has already exchanged is
/// presented again: the behaviour of a real issuer, with that issuer's own settings.
///
/// Field bugs of refresh (two API calls refreshing at once, a response lost on the way back)
/// end differently at different issuers, so a tenant names the issuer it stands for. The tenant
/// file key is `refresh_rotation` (docs/issuer.md, "Refresh token rotation profiles"), on the
/// tenant and, for the issuers that set it per application, on a client.
///
/// In every profile an expired token, another client's token, one of a revoked family and an
/// unknown one are `invalid_grant`; the profiles differ only in what a rotated token gets.
public enum RefreshRotation: Sendable, Hashable {
    /// SignInSim's own model, the embedded issuer's behaviour before the other profiles existed.
    ///
    /// A rotated token presented again within `grace` seconds of its first rotation, while its
    /// successor has not been used, is taken to mean the successor's response was lost: the
    /// successor is revoked and a fresh one issued (so of two racers in the grace, the one whose
    /// successor was issued first holds a revoked token). Outside that, `onReuse` applies.
    case signinsim(grace: Int64, onReuse: RefreshTokenReuse)

    /// Auth0's refresh token rotation, set per application ("Refresh Token Rotation" in the
    /// application settings; `refresh_token.leeway` in the Management API).
    ///
    /// Within the reuse interval after a token was exchanged, that token (only the previous
    /// one: its successor must not have been exchanged in turn) may be exchanged again: "a new
    /// rotating refresh token is issued" and breach detection does not apply. Any other reuse
    /// is automatic reuse detection: the whole refresh token family is invalidated. Access
    /// tokens already issued stay valid (Auth0 revokes refresh tokens, not JWTs).
    ///
    /// Sources: auth0.com/docs/secure/tokens/refresh-tokens/configure-refresh-token-rotation
    /// ("Reuse Interval"; "Only the previous token can be reused"), auth0.com/docs/secure/tokens/
    /// refresh-tokens/refresh-token-rotation ("Automatic reuse detection"), and the Auth0
    /// community article "Failed token exchange occurs when reusing an older refresh token
    /// within reuse interval" (the second-to-last token triggers reuse detection).
    case auth0(reuseInterval: Int64)

    /// Okta's refresh token rotation, set per app integration ("Rotate token after every use",
    /// "Grace period for token rotation"; `settings.oauthClient.refresh_token.leeway`).
    ///
    /// After a token is rotated, it "remains valid" for the grace period (0 to 60 seconds,
    /// default 30) and is exchanged for new tokens like a live one. Okta documents no other
    /// condition, so a token two generations back is accepted too while its own grace lasts
    /// (a reading of the documentation, not a measurement). A reuse after the grace is reuse
    /// detection: Okta "invalidates the most recently issued refresh token and all access
    /// tokens issued since the user authenticated", so the family and its access tokens go.
    ///
    /// Sources: developer.okta.com/docs/guides/refresh-tokens/main ("Refresh token reuse
    /// detection", "Grace period for token rotation") and the Okta Apps API's
    /// `OpenIdConnectApplicationSettingsRefreshToken.leeway` (default 30).
    case okta(gracePeriod: Int64)

    /// Keycloak with the realm setting "Revoke Refresh Token" on and a "Refresh Token Max Reuse"
    /// count (realm settings, not per client).
    ///
    /// Keycloak remembers, per client session, the last refresh token presented and how often it
    /// was used (`TokenManager.validateTokenReuse` in keycloak/keycloak). A token other than the
    /// remembered one becomes the remembered one with a count of 0, unless it was issued before
    /// the newest refresh token (its `iat` earlier, in whole seconds): then it is refused as
    /// "Stale token". The remembered token is accepted while it was used at most `maxReuse`
    /// times; one more is refused "Maximum allowed refresh token reuse exceeded". A refusal
    /// detaches the client session, ending every token of this client's grant. Because the
    /// comparison is in whole seconds, an older token issued in the same second as the newest
    /// one is not stale, as with Keycloak.
    ///
    /// Sources: the Keycloak Server Administration Guide, "Session and token timeouts" ("Revoke
    /// Refresh Token", "Refresh Token Max Reuse"), and keycloak/keycloak
    /// `services/src/main/java/org/keycloak/protocol/oidc/TokenManager.java`
    /// (`validateTokenReuseForRefresh`, `validateTokenReuse`).
    case keycloak(maxReuse: Int)

    /// django-oauth-toolkit 3.x with `ROTATE_REFRESH_TOKEN` on (its default), a
    /// `REFRESH_TOKEN_GRACE_PERIOD_SECONDS` (default 0) and `REFRESH_TOKEN_REUSE_PROTECTION`
    /// (default off): settings of the whole server, not per application.
    ///
    /// Rotation marks the old token revoked (with the time) and issues a new pair. A revoked
    /// token is accepted again while it was revoked less than the grace period ago, of any
    /// generation (django-oauth-toolkit#1617): if the pair its rotation made is still live, the
    /// same refresh token is answered again; otherwise a fresh pair is issued. Past the grace,
    /// it is `invalid_grant` and the newer tokens stay valid, unless reuse protection is on,
    /// which revokes the whole family first.
    ///
    /// Sources: django-oauth-toolkit's settings documentation (`REFRESH_TOKEN_GRACE_PERIOD_SECONDS`,
    /// `REFRESH_TOKEN_REUSE_PROTECTION`), `oauth2_provider/oauth2_validators.py`
    /// (`validate_refresh_token`, `_save_bearer_token`), and issue django-oauth-toolkit#1617.
    case djangoOAuthToolkit(gracePeriod: Int64, reuseProtection: Bool)

    /// No rotation: a refresh answers no `refresh_token` and the one presented stays valid
    /// (RFC 6749 §6 makes a new one optional), as Auth0 and Okta do for applications without
    /// rotation. Field bug 3 needs it.
    case none

    /// The tenant's profile when the file names none: SignInSim's model with no grace and
    /// reuse detection (RFC 9700 §4.14.2).
    public static let `default` = RefreshRotation.signinsim(grace: 0, onReuse: .revokeFamily)

    /// The profile's name in tenant files.
    public var name: Name {
        switch self {
        case .signinsim: .signinsim
        case .auth0: .auth0
        case .okta: .okta
        case .keycloak: .keycloak
        case .djangoOAuthToolkit: .djangoOAuthToolkit
        case .none: .none
        }
    }

    /// The profiles by name, as `refresh_rotation` spells them.
    public enum Name: String, Sendable, Hashable, CaseIterable {
        case signinsim
        case auth0
        case okta
        case keycloak
        case djangoOAuthToolkit = "django-oauth-toolkit"
        case none

        /// The profile with the real issuer's defaults (SignInSim's: no grace, reuse detection).
        public var defaults: RefreshRotation {
            switch self {
            case .signinsim: .default
            case .auth0: .auth0(reuseInterval: 0)
            case .okta: .okta(gracePeriod: RefreshRotation.oktaDefaultGracePeriod)
            case .keycloak: .keycloak(maxReuse: 0)
            case .djangoOAuthToolkit: .djangoOAuthToolkit(gracePeriod: 0, reuseProtection: false)
            case .none: .none
            }
        }

        /// Whether the real issuer sets this per application, so that a client may name it.
        /// Keycloak's settings are the realm's and django-oauth-toolkit's the server's.
        public var isPerClient: Bool {
            switch self {
            case .signinsim, .auth0, .okta, .none: true
            case .keycloak, .djangoOAuthToolkit: false
            }
        }
    }

    /// Okta's default grace period, in seconds.
    public static let oktaDefaultGracePeriod: Int64 = 30
    /// The longest grace period Okta accepts, in seconds.
    public static let oktaLongestGracePeriod: Int64 = 60
}

/// What the token endpoint answers a refresh that presents a token rotated in the same second
/// of issuer time: the second request of a race, which a real issuer may be processing while
/// the first one commits.
///
/// The embedded issuer processes refreshes one at a time, so it can only approximate "while
/// the first is being processed": a token rotated in the current second of its clock counts.
/// Under a scenario's virtual clock, which stands still between `advance` steps, that is
/// deterministic: both requests of a `parallel` race fall in the same second, and a retry after
/// `advance` does not.
public enum ConcurrentRefresh: String, Sendable, Hashable, CaseIterable {
    /// The later request is judged by the profile's rules, as an issuer that locks the token
    /// for the exchange does.
    case serialized
    /// The later request gets an HTML page, status 500 "Server Error (500)", and nothing
    /// changes: what django-oauth-toolkit on SQLite sometimes answers, when the second
    /// transaction fails with "database is locked" and Django's default 500 page is served
    /// (measured with django-oauth-toolkit 3.x; the other times both requests get 200 with the
    /// same new tokens).
    case serverError = "server-error"
}

/// A tenant's or client's refresh token behaviour: the profile, and how a concurrent
/// rotation is answered.
public struct RefreshRotationSettings: Sendable, Hashable {
    public var profile: RefreshRotation
    public var concurrentRefresh: ConcurrentRefresh

    public init(_ profile: RefreshRotation = .default, concurrentRefresh: ConcurrentRefresh = .serialized) {
        self.profile = profile
        self.concurrentRefresh = concurrentRefresh
    }

    public static let `default` = RefreshRotationSettings()
}

/// What the `signinsim` profile does when a rotated refresh token is presented again outside
/// its grace.
///
/// RFC 9700 §4.14.2 recommends revoking the whole family (the presenter may be a thief, and the
/// issuer cannot tell who is legitimate); many issuers only refuse the old token and leave the
/// newer one usable (django-oauth-toolkit without reuse protection, django-oidc-provider,
/// allauth's OpenID provider), which captures of them show as a stale token refused while the
/// family goes on.
public enum RefreshTokenReuse: String, Sendable, Hashable, CaseIterable {
    /// Refuse with `invalid_grant` and revoke every token of the family (reuse detection).
    case revokeFamily = "revoke-family"
    /// Refuse with `invalid_grant`; the family's newer tokens stay usable.
    case refuse
}

/// What the refresh grant does with a token that was already exchanged and is presented again:
/// the profile's rule, decided from the facts alone (RFC 9700 §4.14.2 for reuse detection; each
/// profile's source is on its case of `RefreshRotation`). The token endpoint applies it.
enum ReusedRefreshTokenDecision: Equatable, Sendable {
    /// Exchanged again for a fresh successor, the token keeping its first rotation time;
    /// `revokingUnusedSuccessor` revokes the successor issued before (SignInSim's grace: its
    /// answer is taken to be lost).
    case issueAgain(revokingUnusedSuccessor: Bool)
    /// django-oauth-toolkit's grace: the successor already issued, again, while it is unused;
    /// otherwise a fresh one.
    case sameSuccessorWhileUnused
    /// Refused with `invalid_grant` and this description, after revoking `revoking`.
    case refuse(String, revoking: RefreshRevocation)
}

/// What a refused reuse revokes.
enum RefreshRevocation: Equatable, Sendable {
    case nothing
    /// Every refresh token of the family; access tokens stay (Auth0 revokes refresh tokens,
    /// not JWTs).
    case refreshTokens
    /// The family and the access tokens issued under it.
    case grant
}

extension RefreshRotation {
    /// The rule for a rotated token presented again `age` seconds after its first rotation,
    /// `successorUnused` telling whether the successor it was rotated into is still unused.
    /// Keycloak counts uses instead (`IssuerState.keycloakExchange`), and `none` never rotates: for
    /// both, a rotated token is spent.
    func decideReuse(age: Int64, successorUnused: Bool) -> ReusedRefreshTokenDecision {
        let alreadyUsed = "the refresh token was already used"
        switch self {
        case .signinsim(let grace, let onReuse):
            if grace > 0, age <= grace, successorUnused { return .issueAgain(revokingUnusedSuccessor: true) }
            if onReuse == .refuse { return .refuse(alreadyUsed, revoking: .nothing) }
            return .refuse("refresh token replay detected", revoking: .grant)
        case .auth0(let reuseInterval):
            // Only the previous token: its successor must not have been exchanged in turn.
            if age < reuseInterval, successorUnused { return .issueAgain(revokingUnusedSuccessor: false) }
            return .refuse(
                "refresh token reuse detected: every refresh token of this grant is revoked",
                revoking: .refreshTokens)
        case .okta(let gracePeriod):
            if age < gracePeriod { return .issueAgain(revokingUnusedSuccessor: false) }
            return .refuse(
                "refresh token reuse detected: the newest refresh token and the access tokens are revoked",
                revoking: .grant)
        case .djangoOAuthToolkit(let gracePeriod, let reuseProtection):
            if age < gracePeriod { return .sameSuccessorWhileUnused }
            return .refuse(alreadyUsed, revoking: reuseProtection ? .grant : .nothing)
        case .keycloak, .none:
            return .refuse(alreadyUsed, revoking: .nothing)
        }
    }
}
