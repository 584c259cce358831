import OAuthCore
import Testing

@testable import Issuer

/// The consent rules as `IssuerState.consentRequirement` and `IssuerState.decideConsent` decide
/// them from the state and the request: no HTTP, no pages. Each test fails when the rule it
/// names is taken out.
@Suite struct ConsentDecisionTests {
    static let user = "auth0|alice"
    static let client = "com.example.app"

    static func state() throws -> IssuerState {
        IssuerState(tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
    }

    static func request(scopes: [String] = ["openid", "profile"], prompt: Set<String> = [])
        -> AuthorizationRequest
    {
        AuthorizationRequest(
            clientID: client, redirectURI: "com.example.app://callback", scopes: scopes, state: "s",
            nonce: nil,
            codeChallenge: nil, prompt: prompt, loginHint: nil, maxAge: nil, audience: nil,
            dpopKeyThumbprint: nil)
    }

    /// A state with the transaction `t` waiting at the consent stage.
    static func waitingForConsent() throws -> IssuerState {
        var state = try state()
        state.transactions["t"] = AuthorizationTransaction(
            id: "t", csrfToken: "c", request: request(), stage: .consent, userID: user, authTime: 0,
            sessionHash: nil, expiresAt: 600)
        return state
    }

    static func granting(_ scopes: Set<String>) throws -> IssuerState {
        var state = try state()
        state.consents[ConsentKey(userID: user, clientID: client)] = scopes
        return state
    }

    // MARK: - Whether to ask

    @Test func withoutAGrantTheUserIsAsked() throws {
        #expect(try Self.state().consentRequirement(Self.request(), userID: Self.user) == .ask)
    }

    @Test func everyRequestedScopeMustHaveBeenGranted() throws {
        let state = try Self.granting(["openid"])
        #expect(state.consentRequirement(Self.request(), userID: Self.user) == .ask)
        #expect(state.consentRequirement(Self.request(scopes: ["openid"]), userID: Self.user) == .granted)
    }

    /// A grant is per user and client.
    @Test func aGrantIsTheUsersForTheClient() throws {
        let state = try Self.granting(["openid", "profile"])
        #expect(state.consentRequirement(Self.request(), userID: Self.user) == .granted)
        #expect(state.consentRequirement(Self.request(), userID: "auth0|bob") == .ask)
        var other = Self.request()
        other.clientID = "another-app"
        #expect(state.consentRequirement(other, userID: Self.user) == .ask)
    }

    /// OpenID Connect Core §3.1.2.1: `prompt=consent` asks again.
    @Test func promptConsentAsksAgain() throws {
        let state = try Self.granting(["openid", "profile"])
        #expect(state.consentRequirement(Self.request(prompt: ["consent"]), userID: Self.user) == .ask)
    }

    /// OpenID Connect Core §3.1.2.6: with `prompt=none`, missing consent is `consent_required`.
    @Test func promptNoneRefusesWhenConsentIsMissing() throws {
        let refused = try Self.state().consentRequirement(Self.request(prompt: ["none"]), userID: Self.user)
        #expect(
            refused
                == .refused(
                    OAuthError(
                        "consent_required", "prompt=none was given and the user has not granted every scope"))
        )
        let granted = try Self.granting(["openid", "profile"])
        #expect(granted.consentRequirement(Self.request(prompt: ["none"]), userID: Self.user) == .granted)
    }

    // MARK: - The form's answer

    @Test func approvingGrantsTheRequestedScopes() throws {
        var state = try Self.waitingForConsent()
        state.consents[ConsentKey(userID: Self.user, clientID: Self.client)] = ["email"]
        let decision = state.decideConsent(action: "approve", for: Self.request(), userID: Self.user)
        let key = ConsentKey(userID: Self.user, clientID: Self.client)
        #expect(decision == .approve(key, scopes: ["openid", "profile"]))
        state.apply(decision, transactionID: "t")
        // Added to what was granted before; the transaction is over.
        #expect(state.consents[key] == ["email", "openid", "profile"])
        #expect(state.transactions["t"] == nil)
    }

    /// RFC 6749 §4.1.2.1: a refusal is `access_denied`.
    @Test func refusingIsAccessDenied() throws {
        var state = try Self.waitingForConsent()
        let decision = state.decideConsent(action: "deny", for: Self.request(), userID: Self.user)
        #expect(decision == .deny(OAuthError(OAuthErrorCode.accessDenied, "the user declined the request")))
        state.apply(decision, transactionID: "t")
        #expect(state.consents.isEmpty)
        #expect(state.transactions["t"] == nil)
    }

    /// Neither answer: the form is invalid, and the transaction waits for a valid one.
    @Test func anyOtherAnswerIsAnInvalidForm() throws {
        var state = try Self.waitingForConsent()
        for action in [nil, "", "Approve", "yes"] {
            let decision = state.decideConsent(action: action, for: Self.request(), userID: Self.user)
            #expect(decision == .invalidForm)
            state.apply(decision, transactionID: "t")
        }
        #expect(state.transactions["t"] != nil)
    }

    /// `consent-refusal-ignored` takes a refusal as an approval, and is spent only on refusals.
    @Test func theRefusalIgnoredFaultApprovesARefusal() throws {
        var state = try Self.state()
        state.faults.add(FaultInjection(fault: .consentRefusalIgnored))
        #expect(
            state.decideConsent(action: "approve", for: Self.request(), userID: Self.user) != .invalidForm)
        #expect(state.faults.injections.first?.remaining == 1)
        guard case .approve = state.decideConsent(action: "deny", for: Self.request(), userID: Self.user)
        else {
            Issue.record("the fault should approve the refusal")
            return
        }
        guard case .deny = state.decideConsent(action: "deny", for: Self.request(), userID: Self.user) else {
            Issue.record("the fault is spent after one refusal")
            return
        }
    }
}
