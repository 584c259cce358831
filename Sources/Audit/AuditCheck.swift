/// Every check of `signinsim audit`: a stable id (what `--only`, `--skip`, the JSON report and
/// the expectation files name), the rule it checks and where the rule is written.
///
/// The cases are in the order the audit runs them; each group's checks share the requests of
/// the group's first flows. docs/audit.md lists them with the embedded issuer's setting that
/// makes each fail.
public enum AuditCheck: String, Sendable, Hashable, CaseIterable, Comparable {
    // Discovery
    case discoveryRequiredMembers = "discovery.required-members"
    case discoveryIssuerMatch = "discovery.issuer-match"
    case discoveryPKCEAdvertised = "discovery.pkce-s256-advertised"
    case discoveryPlainNotAdvertised = "discovery.pkce-plain-not-advertised"
    case discoveryIssParameter = "discovery.iss-parameter-supported"
    case discoveryEndSession = "discovery.end-session-endpoint"
    case discoveryRevocation = "discovery.revocation-endpoint"
    case discoveryKeySet = "discovery.jwks-public-only"
    // Authorization
    case authorizePKCERequired = "authorize.pkce-required"
    case authorizePlainRefused = "authorize.pkce-plain-refused"
    case authorizeRedirectExtraPath = "authorize.redirect-uri-extra-path"
    case authorizeRedirectTrailingSlash = "authorize.redirect-uri-trailing-slash"
    case authorizeRedirectExtraQuery = "authorize.redirect-uri-extra-query"
    case authorizeRedirectCase = "authorize.redirect-uri-case"
    case authorizeRedirectUserInfo = "authorize.redirect-uri-user-info"
    case authorizeLoopbackAnyPort = "authorize.loopback-any-port"
    case authorizeLocalhost = "authorize.localhost-refused"
    case authorizePrivateUseScheme = "authorize.private-use-scheme"
    case authorizeStateEchoed = "authorize.state-echoed"
    case authorizeIssResponse = "authorize.iss-response"
    case authorizeErrorsRedirected = "authorize.errors-redirected"
    // Token endpoint
    case tokenCodeSingleUse = "token.code-single-use"
    case tokenCodeReuseRevokes = "token.code-reuse-revokes"
    case tokenCodeBoundToRedirectURI = "token.code-bound-to-redirect-uri"
    case tokenCodeBoundToVerifier = "token.code-bound-to-verifier"
    case tokenCodeBoundToClient = "token.code-bound-to-client"
    case tokenPKCEDowngradeRefused = "token.pkce-downgrade-refused"
    case tokenAuthMethods = "token.auth-methods-advertised-work"
    case tokenCodeLifetime = "token.code-lifetime"
    // ID token
    case idTokenSignature = "id-token.signature"
    case idTokenKeyID = "id-token.kid"
    case idTokenIssuer = "id-token.iss"
    case idTokenAudience = "id-token.aud-azp"
    case idTokenSubject = "id-token.sub"
    case idTokenNonce = "id-token.nonce"
    case idTokenHashes = "id-token.at-hash"
    case idTokenLifetime = "id-token.lifetime"
    case idTokenAuthTime = "id-token.auth-time"
    // Refresh
    case refreshRotation = "refresh.rotation"
    case refreshReuseRefused = "refresh.reuse-refused"
    case refreshReuseRevokesFamily = "refresh.reuse-revokes-family"
    case refreshBoundToClient = "refresh.bound-to-client"
    case refreshRace = "refresh.race"
    // UserInfo and revocation
    case userInfoSubject = "userinfo.sub"
    case userInfoChallenge = "userinfo.bearer-challenge"
    case revocationRevokes = "revocation.revokes-refresh-token"
    case revocationUnknownToken = "revocation.unknown-token"
    // DPoP
    case dpopTokenBound = "dpop.token-bound"
    case dpopRefreshBound = "dpop.refresh-bound"
    case dpopJKTBound = "dpop.jkt-bound"
    case dpopNonceChecked = "dpop.nonce-checked"
    // Pushed authorization requests
    case parPushAnswered = "par.push-answered"
    case parRedirectURIValidated = "par.redirect-uri-validated"
    case parRequestURIBoundToClient = "par.request-uri-bound-to-client"
    case parRequestURIOneTime = "par.request-uri-one-time"
    case parRequiredEnforced = "par.required-enforced"
    // Logout
    case logoutRedirectExact = "logout.redirect-uri-exact"
    case logoutStateEchoed = "logout.state-echoed"
    case logoutVerified = "logout.session-ended"

    /// The part of the protocol a check belongs to: the scorecard's sections.
    public enum Group: String, Sendable, Hashable, CaseIterable {
        case discovery
        case authorization = "authorize"
        case token
        case idToken = "id-token"
        case refresh
        case userInfo = "userinfo"
        case revocation, dpop
        case pushedAuthorization = "par"
        case logout

        public var title: String {
            switch self {
            case .discovery: "Discovery"
            case .authorization: "Authorization"
            case .token: "Token endpoint"
            case .idToken: "ID token"
            case .refresh: "Refresh"
            case .userInfo: "UserInfo"
            case .revocation: "Revocation"
            case .dpop: "DPoP"
            case .pushedAuthorization: "Pushed authorization requests"
            case .logout: "Logout"
            }
        }
    }

    /// What a broken rule costs: a MUST of the specifications fails the check, a SHOULD (or a
    /// recommendation for native apps) warns.
    public enum Severity: String, Sendable, Hashable {
        case must, should
    }

    public var group: Group {
        switch self {
        case .discoveryRequiredMembers, .discoveryIssuerMatch, .discoveryPKCEAdvertised,
            .discoveryPlainNotAdvertised,
            .discoveryIssParameter, .discoveryEndSession, .discoveryRevocation, .discoveryKeySet:
            .discovery
        case .authorizePKCERequired, .authorizePlainRefused, .authorizeRedirectExtraPath,
            .authorizeRedirectTrailingSlash, .authorizeRedirectExtraQuery, .authorizeRedirectCase,
            .authorizeRedirectUserInfo, .authorizeLoopbackAnyPort, .authorizeLocalhost,
            .authorizePrivateUseScheme,
            .authorizeStateEchoed,
            .authorizeIssResponse, .authorizeErrorsRedirected:
            .authorization
        case .tokenCodeSingleUse, .tokenCodeReuseRevokes, .tokenCodeBoundToRedirectURI,
            .tokenCodeBoundToVerifier,
            .tokenCodeBoundToClient, .tokenPKCEDowngradeRefused, .tokenAuthMethods, .tokenCodeLifetime:
            .token
        case .idTokenSignature, .idTokenKeyID, .idTokenIssuer, .idTokenAudience, .idTokenSubject,
            .idTokenNonce,
            .idTokenHashes, .idTokenLifetime, .idTokenAuthTime:
            .idToken
        case .refreshRotation, .refreshReuseRefused, .refreshReuseRevokesFamily, .refreshBoundToClient,
            .refreshRace:
            .refresh
        case .userInfoSubject, .userInfoChallenge: .userInfo
        case .revocationRevokes, .revocationUnknownToken: .revocation
        case .dpopTokenBound, .dpopRefreshBound, .dpopJKTBound, .dpopNonceChecked: .dpop
        case .parPushAnswered, .parRedirectURIValidated, .parRequestURIBoundToClient, .parRequestURIOneTime,
            .parRequiredEnforced:
            .pushedAuthorization
        case .logoutStateEchoed, .logoutRedirectExact, .logoutVerified: .logout
        }
    }

    /// Whether breaking the rule fails the check or warns.
    public var severity: Severity {
        switch self {
        case .discoveryPKCEAdvertised, .discoveryPlainNotAdvertised, .discoveryIssParameter,
            .discoveryEndSession,
            .discoveryRevocation, .authorizePlainRefused, .authorizeLocalhost, .authorizePrivateUseScheme,
            .tokenCodeReuseRevokes,
            .refreshReuseRevokesFamily, .parRequestURIOneTime:
            .should
        default: .must
        }
    }

    /// One line: the rule as the issuer should keep it.
    public var title: String {
        switch self {
        case .discoveryRequiredMembers: "Discovery has every member OpenID Connect requires"
        case .discoveryIssuerMatch: "Discovery's issuer is the issuer's URL"
        case .discoveryPKCEAdvertised: "Discovery advertises PKCE with S256"
        case .discoveryPlainNotAdvertised: "Discovery does not advertise PKCE plain"
        case .discoveryIssParameter: "Discovery advertises iss in authorization responses"
        case .discoveryEndSession: "Discovery advertises an end-session endpoint"
        case .discoveryRevocation: "Discovery advertises a revocation endpoint"
        case .discoveryKeySet: "The key set publishes public keys only"
        case .authorizePKCERequired: "A native app's request without PKCE is refused"
        case .authorizePlainRefused: "PKCE plain is refused"
        case .authorizeRedirectExtraPath: "A redirect URI with added path is refused"
        case .authorizeRedirectTrailingSlash: "A redirect URI with an added trailing slash is refused"
        case .authorizeRedirectExtraQuery: "A redirect URI with an added query is refused"
        case .authorizeRedirectCase: "A redirect URI in other letter case is refused"
        case .authorizeRedirectUserInfo: "A redirect URI with an added user part is refused"
        case .authorizeLoopbackAnyPort: "A loopback redirect URI is accepted on any port"
        case .authorizeLocalhost: "A localhost redirect URI is refused"
        case .authorizePrivateUseScheme: "A registered private-use scheme redirect URI gets the code"
        case .authorizeStateEchoed: "The authorization response echoes state"
        case .authorizeIssResponse: "The authorization response carries the right iss"
        case .authorizeErrorsRedirected: "Request errors go back to the app, not to a page"
        case .tokenCodeSingleUse: "A code is redeemed once"
        case .tokenCodeReuseRevokes: "A code used twice revokes what it issued"
        case .tokenCodeBoundToRedirectURI: "A code is bound to its redirect URI"
        case .tokenCodeBoundToVerifier: "A code is bound to its PKCE verifier"
        case .tokenCodeBoundToClient: "A code is bound to its client"
        case .tokenPKCEDowngradeRefused: "A verifier for a code issued without PKCE is refused"
        case .tokenAuthMethods: "The advertised client authentication methods work"
        case .tokenCodeLifetime: "A code expires within 10 minutes"
        case .idTokenSignature: "The ID token is signed with an advertised algorithm and a published key"
        case .idTokenKeyID: "The ID token's kid names a key of the key set"
        case .idTokenIssuer: "The ID token's iss is the issuer"
        case .idTokenAudience: "The ID token's aud and azp name the client"
        case .idTokenSubject: "The ID token has a sub"
        case .idTokenNonce: "The ID token echoes the nonce"
        case .idTokenHashes: "The ID token's at_hash matches the access token"
        case .idTokenLifetime: "The ID token's iat and exp are sound"
        case .idTokenAuthTime: "The ID token has auth_time when max_age was asked"
        case .refreshRotation: "Refresh tokens rotate (or are sender-constrained)"
        case .refreshReuseRefused: "A rotated-out refresh token is refused"
        case .refreshReuseRevokesFamily: "Refresh token reuse revokes the family"
        case .refreshBoundToClient: "A refresh token is bound to its client"
        case .refreshRace: "Two refreshes at once leave one live token"
        case .userInfoSubject: "UserInfo's sub is the ID token's"
        case .userInfoChallenge: "UserInfo without a token is a 401 with a Bearer challenge"
        case .revocationRevokes: "Revoking a refresh token ends it"
        case .revocationUnknownToken: "Revoking an unknown token is answered 200"
        case .dpopTokenBound: "DPoP proofs bind the tokens"
        case .dpopRefreshBound: "A DPoP-bound refresh token needs its key"
        case .dpopJKTBound: "dpop_jkt binds the code to the key"
        case .dpopNonceChecked: "A DPoP nonce the issuer never issued is refused"
        case .parPushAnswered: "A push is answered 201 with a request_uri that signs in"
        case .parRedirectURIValidated: "A push with an unregistered redirect URI is refused"
        case .parRequestURIBoundToClient: "A request_uri is refused to another client"
        case .parRequestURIOneTime: "A request_uri is refused once its sign-in is done"
        case .parRequiredEnforced: "When PAR is required, a plain authorization request is refused"
        case .logoutStateEchoed: "The post-logout redirect echoes state"
        case .logoutRedirectExact: "An unregistered post-logout redirect URI is not followed"
        case .logoutVerified: "Logout ends the issuer's session"
        }
    }

    /// Where the rule is written.
    public var reference: String {
        switch self {
        case .discoveryRequiredMembers: "OpenID Connect Discovery 1.0 §3"
        case .discoveryIssuerMatch: "OpenID Connect Discovery 1.0 §4.3"
        case .discoveryPKCEAdvertised: "RFC 8414 §2; RFC 9700 §2.1.1"
        case .discoveryPlainNotAdvertised: "RFC 9700 §2.1.1; RFC 7636 §4.2"
        case .discoveryIssParameter: "RFC 9207 §3; RFC 9700 §4.4.2"
        case .discoveryEndSession: "OpenID Connect RP-Initiated Logout 1.0 §2.1"
        case .discoveryRevocation: "RFC 8414 §2; RFC 7009"
        case .discoveryKeySet: "RFC 7517 §5; RFC 7518 §6.2.2"
        case .authorizePKCERequired: "RFC 9700 §2.1.1; RFC 8252 §8.1; RFC 7636 §4.4.1"
        case .authorizePlainRefused: "RFC 9700 §2.1.1"
        case .authorizeRedirectExtraPath, .authorizeRedirectTrailingSlash, .authorizeRedirectExtraQuery,
            .authorizeRedirectCase:
            "RFC 9700 §4.1.3; RFC 6749 §3.1.2.3, §4.1.2.1"
        case .authorizeRedirectUserInfo: "RFC 9700 §4.1.3; RFC 3986 §3.2.1, §7.5"
        case .authorizeLoopbackAnyPort: "RFC 8252 §7.3"
        case .authorizeLocalhost: "RFC 8252 §8.3"
        case .authorizePrivateUseScheme: "RFC 8252 §7.1, §8.4"
        case .authorizeStateEchoed: "RFC 6749 §4.1.2"
        case .authorizeIssResponse: "RFC 9207 §2"
        case .authorizeErrorsRedirected: "RFC 6749 §4.1.2.1"
        case .tokenCodeSingleUse: "RFC 6749 §4.1.2"
        case .tokenCodeReuseRevokes: "RFC 6749 §4.1.2; RFC 9700 §4.5"
        case .tokenCodeBoundToRedirectURI: "RFC 6749 §4.1.3"
        case .tokenCodeBoundToVerifier: "RFC 7636 §4.6"
        case .tokenCodeBoundToClient: "RFC 6749 §4.1.3"
        case .tokenPKCEDowngradeRefused: "RFC 9700 §2.1.1, §4.8.2"
        case .tokenAuthMethods: "OpenID Connect Discovery 1.0 §3; OpenID Connect Core 1.0 §9"
        case .tokenCodeLifetime: "RFC 6749 §4.1.2"
        case .idTokenSignature: "OpenID Connect Core 1.0 §3.1.3.7 (6, 7)"
        case .idTokenKeyID: "OpenID Connect Core 1.0 §10.1"
        case .idTokenIssuer: "OpenID Connect Core 1.0 §3.1.3.7 (2)"
        case .idTokenAudience: "OpenID Connect Core 1.0 §3.1.3.7 (3, 4, 5)"
        case .idTokenSubject: "OpenID Connect Core 1.0 §2"
        case .idTokenNonce: "OpenID Connect Core 1.0 §3.1.3.7 (11)"
        case .idTokenHashes: "OpenID Connect Core 1.0 §3.1.3.8"
        case .idTokenLifetime: "OpenID Connect Core 1.0 §3.1.3.7 (9, 10)"
        case .idTokenAuthTime: "OpenID Connect Core 1.0 §3.1.2.1 (max_age), §2"
        case .refreshRotation: "RFC 9700 §4.14.2"
        case .refreshReuseRefused: "RFC 9700 §4.14.2"
        case .refreshReuseRevokesFamily: "RFC 9700 §4.14.2"
        case .refreshBoundToClient: "RFC 6749 §6"
        case .refreshRace: "RFC 9700 §4.14.2"
        case .userInfoSubject: "OpenID Connect Core 1.0 §5.3.2"
        case .userInfoChallenge: "RFC 6750 §3"
        case .revocationRevokes: "RFC 7009 §2.1, §2.2"
        case .revocationUnknownToken: "RFC 7009 §2.2"
        case .dpopTokenBound: "RFC 9449 §5"
        case .dpopRefreshBound: "RFC 9449 §5"
        case .dpopJKTBound: "RFC 9449 §10"
        case .dpopNonceChecked: "RFC 9449 §8, §11.1"
        case .parPushAnswered: "RFC 9126 §2.2, §4"
        case .parRedirectURIValidated: "RFC 9126 §2.1, §2.3; RFC 6749 §3.1.2.3"
        case .parRequestURIBoundToClient: "RFC 9126 §2.2"
        case .parRequestURIOneTime: "RFC 9126 §4"
        case .parRequiredEnforced: "RFC 9126 §5"
        case .logoutStateEchoed: "OpenID Connect RP-Initiated Logout 1.0 §3"
        case .logoutRedirectExact: "OpenID Connect RP-Initiated Logout 1.0 §3"
        case .logoutVerified: "OpenID Connect RP-Initiated Logout 1.0 §2"
        }
    }

    /// The OpenID Foundation conformance suite's test of the same rule, where one matches (its
    /// OP tests, by module name).
    public var conformanceTest: String? {
        switch self {
        case .discoveryRequiredMembers: "oidcc-discovery-endpoint-verification"
        case .authorizeRedirectExtraPath, .authorizeRedirectTrailingSlash, .authorizeRedirectCase:
            "oidcc-ensure-registered-redirect-uri"
        case .authorizeStateEchoed: "oidcc-server"
        case .tokenCodeSingleUse: "oidcc-codereuse"
        case .tokenCodeReuseRevokes: "oidcc-codereuse-30seconds"
        case .tokenAuthMethods: "oidcc-server-client-secret-post"
        case .idTokenSignature: "oidcc-idtoken-signature"
        case .idTokenAuthTime: "oidcc-max-age-10000"
        case .refreshRotation: "oidcc-refresh-token"
        case .userInfoSubject: "oidcc-userinfo-get"
        case .logoutVerified, .logoutStateEchoed: "oidcc-rp-initiated-logout"
        case .logoutRedirectExact: "oidcc-rp-initiated-logout-bad-post-logout-redirect-uri"
        case .parRequestURIBoundToClient:
            "fapi1-advanced-final-par-attempt-to-use-request_uri-for-different-client"
        case .parRequestURIOneTime: "fapi1-advanced-final-par-attempt-reuse-request_uri"
        default: nil
        }
    }

    public static func < (lhs: AuditCheck, rhs: AuditCheck) -> Bool {
        guard let left = allCases.firstIndex(of: lhs), let right = allCases.firstIndex(of: rhs) else {
            return false
        }
        return left < right
    }
}
