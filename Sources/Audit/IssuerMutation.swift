public import Issuer
public import WorldVocabulary

/// How the embedded issuer is made to break one check's rule: a deviation of its tenant, a
/// fault armed for the whole audit, or a setting real issuers have (a refresh rotation profile,
/// a code lifetime). Every check has one, so that every check is seen to fail
/// (`AuditCheck.mutation`, docs/audit.md "Every check can fail").
public enum IssuerMutation: Sendable, Hashable {
    case deviations([IssuerDeviation])
    /// Pushed authorization requests required (RFC 9126 §5), with `deviations` on top.
    case pushedAuthorizationRequired(deviations: [IssuerDeviation])
    case fault(IssuerFault)
    case refreshRotation(RefreshRotation)
    case codeLifetime(seconds: Int64)

    /// The audit's tenant with the mutation applied.
    public func tenant(_ base: Tenant = AuditWorld.tenant()) -> Tenant {
        var tenant = base
        switch self {
        case .deviations(let deviations): tenant.deviations.formUnion(deviations)
        case .pushedAuthorizationRequired(let deviations):
            tenant.pushedAuthorizationRequests = .required
            tenant.deviations.formUnion(deviations)
        case .refreshRotation(let profile): tenant.refreshRotation = RefreshRotationSettings(profile)
        case .codeLifetime(let seconds): tenant.lifetimes.authorizationCode = seconds
        case .fault: break
        }
        return tenant
    }

    /// The faults to arm: one fault for every request of an audit.
    public var faults: [FaultInjection] {
        guard case .fault(let fault) = self else { return [] }
        return [FaultInjection(fault: fault, count: 10_000)]
    }

    /// The setting as a tenant file or the admin API writes it.
    public var described: String {
        switch self {
        case .deviations(let deviations):
            Self.describe(deviations)
        case .pushedAuthorizationRequired(let deviations):
            "pushed_authorization_requests: \(PushedAuthorizationPolicy.required.rawValue), "
                + Self.describe(deviations)
        case .fault(let fault): "fault \(fault.rawValue)"
        case .refreshRotation(let profile): "refresh_rotation: \(Self.describe(profile))"
        case .codeLifetime(let seconds): "lifetimes: {authorization_code: \(seconds)}"
        }
    }

    private static func describe(_ deviations: [IssuerDeviation]) -> String {
        "deviations: [\(deviations.map(\.rawValue).joined(separator: ", "))]"
    }

    private static func describe(_ profile: RefreshRotation) -> String {
        switch profile {
        case .none: "none"
        case .signinsim(let grace, let onReuse):
            "{profile: signinsim, grace: \(grace), on_reuse: \(onReuse.rawValue)}"
        case .auth0(let interval): "{profile: auth0, reuse_interval: \(interval)}"
        case .okta(let grace): "{profile: okta, grace_period: \(grace)}"
        case .keycloak(let maxReuse): "{profile: keycloak, max_reuse: \(maxReuse)}"
        case .djangoOAuthToolkit(let grace, let protection):
            "{profile: django-oauth-toolkit, grace_period: \(grace), reuse_protection: \(protection)}"
        }
    }
}

extension AuditCheck {
    /// The embedded issuer's setting that breaks this check's rule.
    public var mutation: IssuerMutation {
        switch self {
        case .discoveryRequiredMembers: .deviations([.discoveryOmitsSubjectTypes])
        case .discoveryIssuerMatch: .fault(.discoveryIssuerMismatch)
        case .discoveryPKCEAdvertised: .deviations([.discoveryOmitsPKCEMethods])
        case .discoveryPlainNotAdvertised: .deviations([.discoveryAdvertisesPlain])
        case .discoveryIssParameter: .deviations([.noIssParameter])
        case .discoveryEndSession: .deviations([.noEndSessionEndpoint])
        case .discoveryRevocation: .deviations([.noRevocationEndpoint])
        case .discoveryKeySet: .deviations([.jwksPrivateMembers])
        case .authorizePKCERequired: .deviations([.pkceOptional])
        case .authorizePlainRefused: .deviations([.pkcePlainAllowed])
        case .authorizeRedirectExtraPath: .deviations([.redirectURIExtraPath])
        case .authorizeRedirectTrailingSlash: .deviations([.redirectURITrailingSlash])
        case .authorizeRedirectExtraQuery: .deviations([.redirectURIExtraQuery])
        case .authorizeRedirectCase: .deviations([.redirectURICaseInsensitive])
        case .authorizeRedirectUserInfo: .deviations([.redirectURIUserInfo])
        case .authorizeLoopbackAnyPort: .deviations([.loopbackPortExact])
        case .authorizeLocalhost: .deviations([.allowLocalhostRedirects])
        case .authorizePrivateUseScheme: .deviations([.privateUseRedirectsRefused])
        case .authorizeStateEchoed: .fault(.callbackStateAltered)
        case .authorizeIssResponse: .deviations([.issParameterOmitted])
        case .authorizeErrorsRedirected: .deviations([.errorsShownAsPage])
        case .tokenCodeSingleUse: .deviations([.codeReusable])
        case .tokenCodeReuseRevokes: .deviations([.codeReuseKeepsTokens])
        case .tokenCodeBoundToRedirectURI: .deviations([.codeIgnoresRedirectURI])
        case .tokenCodeBoundToVerifier: .deviations([.codeIgnoresVerifier])
        case .tokenCodeBoundToClient: .deviations([.codeIgnoresClient])
        case .tokenPKCEDowngradeRefused: .deviations([.pkceOptional, .pkceDowngradeAllowed])
        case .tokenAuthMethods: .deviations([.clientSecretPostRefused])
        case .tokenCodeLifetime: .codeLifetime(seconds: 3600)
        case .idTokenSignature: .fault(.idTokenBadSignatureES256)
        case .idTokenKeyID: .fault(.idTokenKidAbsentMultipleKeys)
        case .idTokenIssuer: .fault(.idTokenIssuerMismatch)
        case .idTokenAudience: .fault(.idTokenAudienceMismatch)
        case .idTokenSubject: .fault(.idTokenSubjectMissing)
        case .idTokenNonce: .fault(.nonceInvalid)
        case .idTokenHashes: .fault(.idTokenBadAccessTokenHash)
        case .idTokenLifetime: .fault(.idTokenExpired)
        case .idTokenAuthTime: .deviations([.authTimeOmitted])
        case .refreshRotation: .refreshRotation(.none)
        case .refreshReuseRefused:
            .refreshRotation(.djangoOAuthToolkit(gracePeriod: 60, reuseProtection: false))
        case .refreshReuseRevokesFamily: .refreshRotation(.signinsim(grace: 0, onReuse: .refuse))
        case .refreshBoundToClient: .deviations([.refreshIgnoresClient])
        case .refreshRace: .refreshRotation(.auth0(reuseInterval: 60))
        case .userInfoSubject: .fault(.userInfoBadSubject)
        case .userInfoChallenge: .deviations([.userInfoNoChallenge])
        case .revocationRevokes: .deviations([.revocationIgnored])
        case .revocationUnknownToken: .deviations([.revocationRejectsUnknown])
        case .dpopTokenBound: .deviations([.dpopIgnored])
        case .dpopRefreshBound: .deviations([.dpopRefreshUnbound])
        case .dpopJKTBound: .deviations([.dpopJKTIgnored])
        case .dpopNonceChecked: .deviations([.dpopNonceUnchecked])
        case .parPushAnswered: .deviations([.parOmitsExpiresIn])
        case .parRedirectURIValidated: .deviations([.parSkipsRedirectURICheck])
        case .parRequestURIBoundToClient: .deviations([.parIgnoresClientID])
        case .parRequestURIOneTime: .deviations([.parRequestURIReusable])
        case .parRequiredEnforced: .pushedAuthorizationRequired(deviations: [.parRequiredNotEnforced])
        case .logoutRedirectExact: .deviations([.postLogoutRedirectPrefix])
        case .logoutStateEchoed: .fault(.logoutWithoutState)
        case .logoutVerified: .fault(.logoutEndsNothing)
        }
    }

    /// Whether this check's mutant is audited with the app's flows sent to its loopback redirect
    /// URI: an issuer that refuses private-use scheme redirects refuses every flow to one, so
    /// that mutant is audited as a loopback app, its private-use URI still registered and
    /// checked.
    public var mutantAuditsAsLoopbackApp: Bool { self == .authorizePrivateUseScheme }

    /// Other checks the mutation breaks as well, because their rule cannot be broken alone:
    /// a downgrade needs a code issued without PKCE, and a reuse interval both lets a
    /// rotated-out token in and leaves a race's two tokens live.
    public var mutationAlsoBreaks: [AuditCheck] {
        switch self {
        case .tokenPKCEDowngradeRefused: [.authorizePKCERequired]
        case .refreshRace: [.refreshReuseRefused]
        default: []
        }
    }
}
