import Cryptography
import HTTPClient
import HTTPCore
import JOSE
import JSON
import TestSupport
import Testing

@testable import Issuer

// Hints are signed here with the issuer's own key (through @testable), because the token
// endpoint that would hand out ID tokens is built elsewhere.
@Suite("RP-Initiated Logout")
struct LogoutTests {
    static let postLogoutRedirectURI = "com.example.app://auth/logout"

    /// An ID token hint as the issuer would sign it, for the native app unless told otherwise.
    static func hint(
        _ issuer: Issuer, audience: Audience = .single(NativeApp.clientID), issuerClaim: String? = nil,
        expiresAt: Int64 = testEpoch + 3600, signer: JWSSigner? = nil, type: String = "JWT",
        authorizedParty: String? = nil
    ) throws -> String {
        let claims = JWTClaims(
            issuer: issuerClaim ?? issuer.identifier, subject: "auth0|alice", audience: audience,
            expiresAt: expiresAt, issuedAt: expiresAt - 3600, authorizedParty: authorizedParty)
        let signing = signer ?? issuer.state.withLock { $0.keys.active }
        return try JWT.sign(claims, signer: signing, extraHeader: ["typ": .string(type)])
    }

    static func logoutQuery(_ parameters: FormParameters) -> String {
        "/oidc/logout?" + FormURLEncoding.encode(parameters)
    }

    /// Logout ends the session and clears the cookie: the next authorization shows the login page.
    @Test("logout ends the session", arguments: Deployment.allCases)
    func endsSession(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            let cookie = try #require(browser.sessionCookie)
            let response = try await browser.get("/oidc/logout")
            #expect(response.status == 200)
            #expect(response.headers["Location"] == nil)
            #expect(
                response.headers["Set-Cookie"]
                    == "signinsim_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(response.headers["X-Frame-Options"] == "DENY")
            let page = try HTMLPage(response)
            #expect(page.forms.isEmpty)
            #expect(page.title?.hasPrefix("Signed out") == true)
            #expect(browser.sessionCookie == nil)
            try expectLoginPage(try await browser.authorize())

            // The session is gone at the issuer too, not only from the jar.
            browser.setSessionCookie(cookie)
            try expectLoginPage(try await browser.authorize())
            #expect(fixture.issuer.state.withLock { $0.sessions.isEmpty })
        }
    }

    /// A registered post_logout_redirect_uri gets the redirect with state, the client named by client_id or by the hint.
    @Test("post-logout redirect", arguments: Deployment.allCases)
    func postLogoutRedirect(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            let byClient = try await browser.get(
                Self.logoutQuery([
                    "client_id": NativeApp.clientID, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                    "state": "bye <&>",
                ]))
            #expect(byClient.status == 302)
            #expect(byClient.headers["Set-Cookie"]?.hasPrefix("signinsim_session=; ") == true)
            #expect(try redirectParameters(byClient, to: Self.postLogoutRedirectURI) == ["state": "bye <&>"])
            try expectLoginPage(try await browser.authorize())

            let hint = try Self.hint(fixture.issuer)
            let byHint = try await browser.get(
                Self.logoutQuery([
                    "id_token_hint": hint, "post_logout_redirect_uri": "http://127.0.0.1/logout",
                ]))
            #expect(byHint.status == 302)
            #expect(byHint.headers["Location"] == "http://127.0.0.1/logout", "no state, no query")

            // With several audiences, azp names the client.
            let shared = try Self.hint(
                fixture.issuer, audience: .multiple([NativeApp.clientID, "https://api.example.com"]),
                authorizedParty: NativeApp.clientID)
            let byParty = try await browser.get(
                Self.logoutQuery([
                    "id_token_hint": shared, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                ]))
            #expect(byParty.status == 302)
        }
    }

    /// Fault `logout-without-state`: the next redirects that carry a `state` lose it (field
    /// bug 8), then the issuer echoes it again.
    @Test("logout-without-state drops the state", arguments: Deployment.allCases)
    func logoutWithoutState(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            try fixture.issuer.inject(FaultInjection(fault: .logoutWithoutState, count: 1))
            var browser = Browser(fixture)
            // A logout with no state has nothing to lose: the fault waits for the next one.
            let stateless = try await browser.get(
                Self.logoutQuery([
                    "client_id": NativeApp.clientID, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                ]))
            #expect(stateless.headers["Location"] == Self.postLogoutRedirectURI)
            let query = Self.logoutQuery([
                "client_id": NativeApp.clientID, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                "state": "s1",
            ])
            let dropped = try await browser.get(query)
            #expect(dropped.status == 302)
            #expect(dropped.headers["Location"] == Self.postLogoutRedirectURI)
            let echoed = try await browser.get(query)
            #expect(try redirectParameters(echoed, to: Self.postLogoutRedirectURI) == ["state": "s1"])
        }
    }

    /// POST with a form works like GET (RP-Initiated Logout §2).
    @Test("logout by POST", arguments: Deployment.allCases)
    func logoutByPost(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            let response = try await browser.post(
                "/oidc/logout",
                [
                    "id_token_hint": try Self.hint(fixture.issuer),
                    "post_logout_redirect_uri": Self.postLogoutRedirectURI, "state": "s",
                ])
            #expect(try redirectParameters(response, to: Self.postLogoutRedirectURI) == ["state": "s"])
            try expectLoginPage(try await browser.authorize())
        }
    }

    /// An unregistered post_logout_redirect_uri, or one with no client named, is a 400 page; the session still ends.
    @Test("refused post-logout redirects", arguments: Deployment.allCases)
    func refusedRedirects(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let refused: [FormParameters] = [
                [
                    "client_id": NativeApp.clientID,
                    "post_logout_redirect_uri": "com.example.app://auth/logout/x",
                ],
                [
                    "client_id": NativeApp.clientID,
                    "post_logout_redirect_uri": "http://127.0.0.1:8000/logout",
                ],
                ["client_id": NativeApp.clientID, "post_logout_redirect_uri": NativeApp.redirectURI],
                ["client_id": NativeApp.clientID, "post_logout_redirect_uri": "https://attacker.example/"],
                ["post_logout_redirect_uri": Self.postLogoutRedirectURI],
                ["client_id": "nope", "post_logout_redirect_uri": Self.postLogoutRedirectURI],
                ["client_id": "nope"],
                FormParameters([
                    ("client_id", NativeApp.clientID),
                    ("post_logout_redirect_uri", Self.postLogoutRedirectURI),
                    ("state", "a"), ("state", "b"),
                ]),
            ]
            for parameters in refused {
                _ = try redirectParameters(try await browser.signIn())
                let response = try await browser.get(Self.logoutQuery(parameters))
                try expectErrorPage(response)
                #expect(response.headers["Set-Cookie"]?.hasPrefix("signinsim_session=; ") == true)
                try expectLoginPage(try await browser.authorize())
            }
        }
    }

    /// A hint this issuer did not sign, signed for another issuer, or not an ID token, is a 400 page.
    @Test("bad id_token_hint", arguments: Deployment.allCases)
    func badHint(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let stranger = try JWSSigner(
                key: .p256(try P256PrivateKey()), algorithm: .es256,
                keyID: fixture.issuer.state.withLock { $0.keys.active.keyID })
            let good = try Self.hint(fixture.issuer)
            let bad = [
                "garbage", "a.b.c", try Self.hint(fixture.issuer, signer: stranger),
                try Self.hint(fixture.issuer, issuerClaim: "https://impostor.example"),
                try Self.hint(fixture.issuer, issuerClaim: fixture.baseURL + "/"),
                try Self.hint(fixture.issuer, type: "at+jwt"),
                Issuer.corruptSignature(good),
            ]
            for hint in bad {
                try expectErrorPage(try await browser.get(Self.logoutQuery(["id_token_hint": hint])))
                try expectErrorPage(
                    try await browser.get(
                        Self.logoutQuery([
                            "id_token_hint": hint, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                        ])))
            }
            #expect(try await browser.get(Self.logoutQuery(["id_token_hint": good])).status == 200)
        }
    }

    /// An expired hint, or one signed with a retired key, is still a hint (RP-Initiated Logout §2).
    @Test("expired and retired-key hints", arguments: Deployment.allCases)
    func expiredHint(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let expired = try Self.hint(fixture.issuer, expiresAt: testEpoch - 86400)
            let old = try Self.hint(fixture.issuer)
            try fixture.issuer.rotateSigningKey()
            for hint in [expired, old] {
                let response = try await browser.get(
                    Self.logoutQuery([
                        "id_token_hint": hint, "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                    ]))
                #expect(response.status == 302)
            }
        }
    }

    /// client_id must be an audience of the hint when both are given.
    @Test("client_id must match the hint", arguments: Deployment.allCases)
    func clientMismatch(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            _ = try await fixture.postJSON(
                "/_admin/clients",
                [
                    "client_id": "other", "redirect_uris": ["com.example.other://cb"],
                    "post_logout_redirect_uris": ["com.example.other://bye"],
                ])
            var browser = Browser(fixture)
            let hint = try Self.hint(fixture.issuer)
            try expectErrorPage(
                try await browser.get(
                    Self.logoutQuery([
                        "id_token_hint": hint, "client_id": "other",
                        "post_logout_redirect_uri": "com.example.other://bye",
                    ])))
            try expectErrorPage(
                try await browser.get(
                    Self.logoutQuery([
                        "id_token_hint": hint, "post_logout_redirect_uri": "com.example.other://bye",
                    ])))
            let matching = try await browser.get(
                Self.logoutQuery([
                    "id_token_hint": hint, "client_id": NativeApp.clientID,
                    "post_logout_redirect_uri": Self.postLogoutRedirectURI,
                ]))
            #expect(matching.status == 302)
        }
    }
}
