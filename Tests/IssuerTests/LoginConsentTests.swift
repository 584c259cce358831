import HTTPCore
import Issuer
import TestSupport
import Testing

@Suite("Consent form")
struct LoginConsentTests {
    /// Declining sends access_denied back with state and iss, and the form cannot be used again.
    @Test("deny", arguments: Deployment.allCases)
    func deny(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let consent = try expectConsentPage(
                try await browser.submit(login, ["username": Alice.email, "password": Alice.password]))
            try expectAuthorizationError(
                try await browser.submit(consent, pressing: "deny"), "access_denied", fixture: fixture)
            try expectErrorPage(try await browser.submit(consent, pressing: "approve"))
            // Nothing was granted: the next authorization asks again.
            try expectConsentPage(try await browser.authorize())
        }
    }

    /// A consent form without an action, with an unknown one, or with a bad CSRF token is a 400 page.
    @Test("malformed consent forms", arguments: Deployment.allCases)
    func malformed(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let consent = try expectConsentPage(
                try await browser.submit(login, ["username": Alice.email, "password": Alice.password]))
            try expectErrorPage(try await browser.submit(consent))
            var unknown = consent.submission()
            unknown.append("action", "maybe")
            try expectErrorPage(try await browser.post("/u/consent", unknown))
            var twice = consent.submission(pressing: "approve")
            twice.append("action", "deny")
            try expectErrorPage(try await browser.post("/u/consent", twice))
            // The login stage's token does not work at the consent stage.
            try expectErrorPage(
                try await browser.submit(
                    consent, ["csrf": login.hiddenFields["csrf"] ?? ""], pressing: "approve"))
            // None of that used the transaction up.
            _ = try redirectParameters(try await browser.submit(consent, pressing: "approve"))
        }
    }

    /// Consent is remembered per user and client; a new scope or prompt=consent asks again.
    @Test("consent is remembered", arguments: Deployment.allCases)
    func remembered(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(
                try await browser.signIn(NativeApp.authorization(["scope": "openid profile"])))
            _ = try redirectParameters(
                try await browser.authorize(NativeApp.authorization(["scope": "openid"])))
            let wider = try expectConsentPage(
                try await browser.authorize(NativeApp.authorization(["scope": "openid profile email"])))
            _ = try redirectParameters(try await browser.submit(wider, pressing: "approve"))
            _ = try redirectParameters(
                try await browser.authorize(NativeApp.authorization(["scope": "openid profile email"])))
            try expectConsentPage(
                try await browser.authorize(
                    NativeApp.authorization(["scope": "openid", "prompt": "consent"])))

            // Bob has granted nothing to this client.
            var bob = Browser(fixture)
            let bobLogin = try expectLoginPage(
                try await bob.authorize(NativeApp.authorization(["scope": "openid"])))
            try expectConsentPage(
                try await bob.submit(bobLogin, ["username": "bob@example.com", "password": "bob-password"]))
        }
    }

    /// A transaction issues one code: replaying the approval is a 400 page; every sign-in gets a fresh code.
    @Test("one code per transaction", arguments: Deployment.allCases)
    func singleIssuance(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let consent = try expectConsentPage(
                try await browser.submit(login, ["username": Alice.email, "password": Alice.password]))
            let first = try redirectParameters(try await browser.submit(consent, pressing: "approve"))
            try expectErrorPage(try await browser.submit(consent, pressing: "approve"))
            var codes: Set<String> = [try #require(first["code"])]
            for _ in 0..<3 {
                let again = try redirectParameters(try await browser.authorize())
                codes.insert(try #require(again["code"]))
            }
            #expect(codes.count == 4)
        }
    }

    /// Approval must come from the browser whose session saw the page: another browser, or a signed-out one, is refused.
    @Test("consent is bound to the session", arguments: Deployment.allCases)
    func boundToSession(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let consent = try expectConsentPage(
                try await browser.submit(login, ["username": Alice.email, "password": Alice.password]))
            var other = Browser(fixture)
            try expectErrorPage(try await other.submit(consent, pressing: "approve"))

            var second = Browser(fixture)
            let secondLogin = try expectLoginPage(try await second.authorize())
            let secondConsent = try expectConsentPage(
                try await second.submit(secondLogin, ["username": Alice.email, "password": Alice.password]))
            _ = try await second.get("/oidc/logout")
            try expectErrorPage(try await second.submit(secondConsent, pressing: "approve"))
        }
    }
}
