import HTTPCore
import Testing

@testable import Issuer

/// RP-Initiated Logout 1.0's rules for where the browser goes, as decisions on the request's
/// facts: no HTTP. The default tenant's app registers `com.example.app://auth/logout`.
@Suite struct LogoutDecisionTests {
    static let app = "com.example.app"
    static let logoutURI = "com.example.app://auth/logout"

    static func decide(
        clientID: String? = nil, redirectURI: String? = nil, state logoutState: String? = nil,
        hint: LogoutIDTokenHint = .absent
    ) throws -> LogoutDecision {
        let state = IssuerState(
            tenant: .default, keys: try SigningKeyRing(algorithm: .es256, source: .generated))
        return state.logoutDecision(
            LogoutRequestFacts(clientID: clientID, postLogoutRedirectURI: redirectURI, state: logoutState),
            hint: hint, deviations: [])
    }

    static func refusal(_ decision: LogoutDecision) -> String? {
        guard case .refused(let refusal) = decision else { return nil }
        return refusal.message
    }

    static func pairs(_ pairs: [(String, String)]) -> [FormParameters.Pair] {
        pairs.map { FormParameters.Pair(name: $0.0, value: $0.1) }
    }

    /// §2: each parameter at most once; an empty one counts as absent (RFC 6749 §3.1).
    @Test func eachParameterAtMostOnce() throws {
        #expect(throws: LogoutRefusal(message: "The parameter state is given more than once.")) {
            try LogoutRequestFacts(Self.pairs([("state", "a"), ("state", "b")]))
        }
        let facts = try LogoutRequestFacts(
            Self.pairs([("state", ""), ("state", "b"), ("client_id", "app"), ("other", "1"), ("other", "2")]))
        #expect(facts == LogoutRequestFacts(clientID: "app", state: "b"))
    }

    @Test func withoutARedirectTheIssuersPageIsShown() throws {
        #expect(try Self.decide() == .signedOutPage)
        #expect(try Self.decide(clientID: Self.app) == .signedOutPage)
    }

    /// §3: to a registered post-logout redirect URI, exactly, with `state` as given.
    @Test func aRegisteredRedirectIsFollowedWithState() throws {
        #expect(
            try Self.decide(clientID: Self.app, redirectURI: Self.logoutURI, state: "s")
                == .redirect(to: Self.logoutURI, state: "s"))
        #expect(
            Self.refusal(try Self.decide(clientID: Self.app, redirectURI: Self.logoutURI + "/"))
                == "The post_logout_redirect_uri is not registered for this application.")
    }

    /// §2: a redirect needs a client named by `client_id` or by the hint.
    @Test func aRedirectNeedsAClient() throws {
        #expect(
            Self.refusal(try Self.decide(redirectURI: Self.logoutURI))
                == "A post_logout_redirect_uri needs client_id or id_token_hint to name the application.")
        #expect(
            Self.refusal(try Self.decide(clientID: "unknown"))
                == "No application with this client_id is registered.")
    }

    /// §2: the hint must be this issuer's ID token; it names the client by its only audience or
    /// its `azp`; with `client_id` too, the two must agree.
    @Test func theHintNamesTheClient() throws {
        #expect(
            Self.refusal(try Self.decide(hint: .notIssuedHere))
                == "The id_token_hint was not issued by this issuer.")
        #expect(
            try Self.decide(
                redirectURI: Self.logoutURI, hint: .verified(audiences: [Self.app], authorizedParty: nil))
                == .redirect(to: Self.logoutURI, state: nil))
        #expect(
            try Self.decide(
                redirectURI: Self.logoutURI,
                hint: .verified(audiences: ["api", Self.app], authorizedParty: Self.app))
                == .redirect(to: Self.logoutURI, state: nil))
        #expect(
            Self.refusal(
                try Self.decide(
                    clientID: "other", redirectURI: Self.logoutURI,
                    hint: .verified(audiences: [Self.app], authorizedParty: nil)))
                == "The client_id is not the audience of the id_token_hint.")
    }

    /// §2 "the OP SHOULD ask": `html` pages never ask; `javascript` pages ask until a POST says
    /// `logout=yes`, and a GET never confirms (a cross-site link carries the Lax cookie).
    @Test func confirmation() {
        let yes: FormParameters = ["client_id": Self.app, "logout": "yes"]
        #expect(LogoutConfirmation(pageStyle: .html, method: .get, parameters: nil) == .endSession)
        #expect(LogoutConfirmation(pageStyle: .html, method: .post, parameters: [:]) == .endSession)
        #expect(LogoutConfirmation(pageStyle: .javascript, method: .post, parameters: yes) == .endSession)
        #expect(LogoutConfirmation(pageStyle: .javascript, method: .get, parameters: yes) == .ask)
        #expect(LogoutConfirmation(pageStyle: .javascript, method: .post, parameters: nil) == .ask)
        #expect(
            LogoutConfirmation(pageStyle: .javascript, method: .post, parameters: ["logout": "Yes"]) == .ask)
        #expect(
            LogoutConfirmation(pageStyle: .javascript, method: .post, parameters: ["client_id": Self.app])
                == .ask)
    }
}
