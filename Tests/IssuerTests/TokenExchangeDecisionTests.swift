import OAuthCore
import Testing

@testable import Issuer

/// Token exchange's rules (RFC 8693) as decisions on the request's facts: no HTTP, no subject
/// token verification.
@Suite struct TokenExchangeDecisionTests {
    static let idTokenType = TokenTypeIdentifier.idToken
    static let api = APIAudience(
        identifier: "https://api.example.com", scopes: ["read:items", "write:items"])

    static func parameterProblem(_ facts: TokenExchangeRequestFacts) -> String? {
        facts.parameterProblem?.description
    }

    /// §2.1: `subject_token` and `subject_token_type` are required.
    @Test func theSubjectIsRequired() {
        #expect(throws: OAuthError.self) {
            try TokenExchangeRequestFacts(OAuthRequestParameters(["subject_token_type": Self.idTokenType]))
        }
        #expect(throws: OAuthError.self) {
            try TokenExchangeRequestFacts(OAuthRequestParameters(["subject_token": "t"]))
        }
        #expect(
            (try? TokenExchangeRequestFacts(
                OAuthRequestParameters([
                    "subject_token": "t", "subject_token_type": Self.idTokenType, "scope": "openid email",
                    "resource": "r",
                ])))
                == TokenExchangeRequestFacts(
                    subjectToken: "t", subjectTokenType: Self.idTokenType, resource: "r",
                    requestedScopes: ["openid", "email"]))
    }

    /// §2.1: actor tokens with their type only, and not supported; only access tokens issued.
    @Test func actorTokensAndOtherRequestedTypesAreRefused() {
        func facts(actor: String? = nil, actorType: String? = nil, requested: String? = nil)
            -> TokenExchangeRequestFacts
        {
            TokenExchangeRequestFacts(
                subjectToken: "t", subjectTokenType: Self.idTokenType, actorToken: actor,
                actorTokenType: actorType,
                requestedTokenType: requested)
        }
        #expect(Self.parameterProblem(facts()) == nil)
        #expect(Self.parameterProblem(facts(requested: TokenTypeIdentifier.accessToken)) == nil)
        #expect(Self.parameterProblem(facts(actor: "a"))?.contains("actor_token_type is required") == true)
        #expect(Self.parameterProblem(facts(actor: "a", actorType: "x"))?.contains("not supported") == true)
        #expect(Self.parameterProblem(facts(actorType: "x"))?.contains("must not be sent without") == true)
        #expect(
            Self.parameterProblem(facts(requested: TokenTypeIdentifier.idToken))?.contains("may only be")
                == true)
    }

    /// RFC 8693 §2.1, RFC 8707 §2: the API named by `audience` or `resource`, else the tenant's
    /// default; `invalid_target` for two different ones or an unknown one.
    @Test func theTargetAPI() throws {
        let tenant = Tenant.default
        #expect(try tenant.exchangeAudience(audience: nil, resource: nil) == Self.api)
        #expect(try tenant.exchangeAudience(audience: nil, resource: Self.api.identifier) == Self.api)
        #expect(
            try tenant.exchangeAudience(audience: Self.api.identifier, resource: Self.api.identifier)
                == Self.api)
        var withoutDefault = tenant
        withoutDefault.defaultAudience = nil
        #expect(try withoutDefault.exchangeAudience(audience: nil, resource: nil) == nil)
        for (audience, resource) in [("https://api.example.com", "https://other.example"), ("unknown", nil)] {
            do {
                _ = try tenant.exchangeAudience(audience: audience, resource: resource)
                Issue.record("\(audience) \(resource ?? "") was accepted")
            } catch {
                #expect(error.code == OAuthErrorCode.invalidTarget)
            }
        }
    }

    /// The OpenID scopes (`offline_access` only with the refresh grant) and the API's; a
    /// refresh token only with `offline_access`.
    @Test func theGrantedScopes() throws {
        let client = ClientRegistration(
            id: "app", redirectURIs: [], grantTypes: [GrantType.tokenExchange, GrantType.refreshToken])
        let all = try client.tokenExchangeGrant(requestedScopes: nil, audience: Self.api)
        #expect(all.scopes == Tenant.openIDScopes + Self.api.scopes)
        #expect(all.issuesRefreshToken)
        #expect(try !client.tokenExchangeGrant(requestedScopes: ["openid"], audience: nil).issuesRefreshToken)
        #expect(throws: OAuthError.self) {
            try client.tokenExchangeGrant(requestedScopes: ["read:items"], audience: nil)
        }

        let noRefresh = ClientRegistration(
            id: "short", redirectURIs: [], grantTypes: [GrantType.tokenExchange])
        #expect(
            try noRefresh.tokenExchangeGrant(requestedScopes: nil, audience: nil).scopes == [
                "openid", "profile", "email",
            ])
        do {
            _ = try noRefresh.tokenExchangeGrant(
                requestedScopes: ["openid", "offline_access"], audience: nil)
            Issue.record("offline_access was granted without the refresh grant")
        } catch {
            #expect(error.code == OAuthErrorCode.invalidScope)
        }
    }

    static func state() throws -> IssuerState {
        IssuerState(tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
    }

    /// The user of a subject is found by connection and upstream `sub`, or created as
    /// `<connection>|<sub>`; `user_profile` names only a user who has no name.
    @Test func theSubjectsUserIsFoundOrCreated() throws {
        var state = try Self.state()
        let identity = ExternalIdentity(connection: "apple", subject: "001", email: "new@example.com")
        let profile = try UserProfile(json: #"{"name":{"firstName":"Ada","lastName":"Lovelace"}}"#)
        let created = try state.exchangeSubject(identity, profile: profile, refusesUnlinked: false)
        #expect(created.id == "apple|001")
        #expect(created.externalID == "001")
        #expect(created.name == "Ada Lovelace")
        #expect(state.user(connection: "apple", externalID: "001")?.id == "apple|001")

        let renamed = try UserProfile(json: #"{"name":"Someone Else"}"#)
        let found = try state.exchangeSubject(identity, profile: renamed, refusesUnlinked: false)
        #expect(found.id == "apple|001")
        #expect(found.name == "Ada Lovelace", "a user with a name keeps it")
    }

    /// A connection that refuses unlinked accounts will not take a new identity whose email
    /// belongs to another connection's account; otherwise a separate account is made.
    @Test func anUnlinkedAccountIsRefusedWhereTheConnectionSaysSo() throws {
        let identity = ExternalIdentity(connection: "apple", subject: "002", email: "alice@example.com")
        var state = try Self.state()
        do {
            _ = try state.exchangeSubject(identity, profile: nil, refusesUnlinked: true)
            Issue.record("an unlinked account was merged")
        } catch {
            #expect(error.code == OAuthErrorCode.invalidGrant)
            #expect(error.description.contains("not linked to apple"))
        }
        #expect(state.user(connection: "apple", externalID: "002") == nil)
        #expect(try state.exchangeSubject(identity, profile: nil, refusesUnlinked: false).id == "apple|002")
        // Once linked, the same identity is found, refusing or not.
        #expect(try state.exchangeSubject(identity, profile: nil, refusesUnlinked: true).id == "apple|002")

        var tenant = Tenant.default
        #expect(!tenant.refusesUnlinkedAccounts(connection: "apple"))
        tenant.connections = [
            ConnectionConfiguration(
                name: "apple", kind: .apple, apple: AppleConnectionSettings(refusesUnlinkedAccounts: true))
        ]
        #expect(tenant.refusesUnlinkedAccounts(connection: "apple"))
        #expect(!tenant.refusesUnlinkedAccounts(connection: "google"))
    }
}
