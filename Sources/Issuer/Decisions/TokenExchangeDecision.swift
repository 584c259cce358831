import OAuthCore

/// The parameters of an RFC 8693 token exchange request (§2.1) that its rules judge.
struct TokenExchangeRequestFacts: Sendable, Equatable {
    var subjectToken: String
    var subjectTokenType: String
    var actorToken: String?
    var actorTokenType: String?
    var requestedTokenType: String?
    /// `audience` (RFC 8693 §2.1) and `resource` (RFC 8707 §2).
    var audience: String?
    var resource: String?
    /// The `scope` parameter, parsed; `nil` when the request names none.
    var requestedScopes: [String]?

    init(
        subjectToken: String, subjectTokenType: String, actorToken: String? = nil,
        actorTokenType: String? = nil,
        requestedTokenType: String? = nil, audience: String? = nil, resource: String? = nil,
        requestedScopes: [String]? = nil
    ) {
        self.subjectToken = subjectToken
        self.subjectTokenType = subjectTokenType
        self.actorToken = actorToken
        self.actorTokenType = actorTokenType
        self.requestedTokenType = requestedTokenType
        self.audience = audience
        self.resource = resource
        self.requestedScopes = requestedScopes
    }

    /// Reads the request's parameters.
    /// - Throws: `invalid_request` when `subject_token` or `subject_token_type` is missing (§2.1).
    init(_ parameters: OAuthRequestParameters) throws(OAuthError) {
        self.init(
            subjectToken: try parameters.required(OAuthParameter.subjectToken),
            subjectTokenType: try parameters.required(OAuthParameter.subjectTokenType),
            actorToken: parameters["actor_token"], actorTokenType: parameters["actor_token_type"],
            requestedTokenType: parameters["requested_token_type"],
            audience: parameters[OAuthParameter.audience],
            resource: parameters["resource"],
            requestedScopes: parameters[OAuthParameter.scope].map(ScopeList.parse))
    }

    /// Why this issuer cannot answer the request as asked, before anything is looked up
    /// (RFC 8693 §2.1): `actor_token_type` goes with `actor_token` and only with it, actor
    /// tokens (delegation, §1.1) are not supported, and the only token issued is an access token.
    var parameterProblem: OAuthError? {
        if actorToken != nil {
            guard actorTokenType != nil else {
                return .invalidRequest("actor_token_type is required with actor_token (RFC 8693 §2.1)")
            }
            return .invalidRequest(
                "actor tokens (delegation, RFC 8693 §1.1) are not supported by this issuer")
        }
        guard actorTokenType == nil else {
            return .invalidRequest("actor_token_type must not be sent without actor_token (RFC 8693 §2.1)")
        }
        if let requestedTokenType, requestedTokenType != TokenTypeIdentifier.accessToken {
            return .invalidRequest("requested_token_type may only be \(TokenTypeIdentifier.accessToken)")
        }
        return nil
    }
}

extension Tenant {
    /// The API a token exchange's access token is for (RFC 8693 §2.1 `audience`, RFC 8707 §2
    /// `resource`): the one named, or the tenant's default audience when neither is sent.
    /// - Throws: `invalid_target` (RFC 8693 §2.2.2) when the two name different APIs, or the
    ///   one named is not an API of this tenant.
    func exchangeAudience(audience: String?, resource: String?) throws(OAuthError) -> APIAudience? {
        if let audience, let resource, audience != resource {
            throw .invalidTarget("audience and resource name different APIs; one access token serves one")
        }
        guard let named = audience ?? resource else {
            return defaultAudience.flatMap(self.audience)
        }
        guard let api = self.audience(named) else {
            throw .invalidTarget("\(OAuthRequestParameters.quoted(named)) is not an API of this issuer")
        }
        return api
    }

    /// Whether the tenant's connection `name` is an Apple connection that will not merge a new
    /// identity into an existing account of another connection with the same email.
    func refusesUnlinkedAccounts(connection name: String) -> Bool {
        connections.contains { $0.name == name && $0.kind == .apple && $0.apple.refusesUnlinkedAccounts }
    }
}

/// What a token exchange grants, decided before the subject token is verified.
struct TokenExchangeGrant: Sendable, Equatable {
    var scopes: [String]
    var audience: APIAudience?

    /// A refresh token comes only with `offline_access` (OpenID Connect Core §11).
    var issuesRefreshToken: Bool { scopes.contains(StandardScope.offlineAccess) }
}

extension ClientRegistration {
    /// The scopes a token exchange grants this client (RFC 8693 §2.1, RFC 6749 §3.3): the
    /// OpenID scopes (`offline_access` only to a client allowed the refresh grant) and the
    /// API's own; all of them when the request names none.
    /// - Throws: `invalid_scope` (RFC 8693 §2.2.2) for a scope outside those.
    func tokenExchangeGrant(requestedScopes: [String]?, audience: APIAudience?) throws(OAuthError)
        -> TokenExchangeGrant
    {
        var allowed = Tenant.openIDScopes.filter {
            $0 != StandardScope.offlineAccess || grantTypes.contains(GrantType.refreshToken)
        }
        allowed += audience?.scopes ?? []
        if let extra = requestedScopes?.first(where: { !allowed.contains($0) }) {
            throw .invalidScope(
                "scope \(OAuthRequestParameters.quoted(extra)) cannot be granted to \(id)"
                    + (audience.map { " for \($0.identifier)" } ?? ""))
        }
        return TokenExchangeGrant(scopes: requestedScopes ?? allowed, audience: audience)
    }
}

extension IssuerState {
    /// The user a verified subject token stands for (RFC 8693 §2.1 `subject_token`): found by
    /// connection and upstream `sub` (or by the id they would have), else created as
    /// `<connection>|<sub>`. `user_profile` fills in the name of a new user or of one who has
    /// none, and is ignored otherwise (field bug 10).
    /// - Parameter refusesUnlinked: whether the connection refuses to take a new identity whose
    ///   email belongs to an account of another connection (`Tenant.refusesUnlinkedAccounts`).
    /// - Throws: `invalid_grant` when it does and such an account exists.
    mutating func exchangeSubject(_ identity: ExternalIdentity, profile: UserProfile?, refusesUnlinked: Bool)
        throws(OAuthError) -> UserAccount
    {
        if refusesUnlinked, let taken = unlinkedAccount(for: identity) {
            throw .invalidGrant(
                "an account with the email \(OAuthRequestParameters.quoted(taken.email ?? "")) already "
                    + "exists and is not linked to \(identity.connection); link it first")
        }
        let id = identity.connection + "|" + identity.subject
        var user =
            user(connection: identity.connection, externalID: identity.subject)
            ?? users[id]
            ?? UserAccount(
                id: id, email: identity.email, emailVerified: identity.emailVerified ?? false,
                name: identity.name, givenName: identity.givenName, familyName: identity.familyName,
                connection: identity.connection, externalID: identity.subject)
        if let profile, user.name == nil, user.givenName == nil, user.familyName == nil {
            profile.apply(to: &user)
        }
        store(user)
        return user
    }

    /// An account of another connection holding the email of an identity seen for the first
    /// time, which a tenant that links only on request will not merge with it.
    func unlinkedAccount(for identity: ExternalIdentity) -> UserAccount? {
        let id = identity.connection + "|" + identity.subject
        guard user(connection: identity.connection, externalID: identity.subject) == nil,
            users[id] == nil, let email = identity.email, let existing = user(email: email),
            existing.connection != identity.connection
        else { return nil }
        return existing
    }
}
