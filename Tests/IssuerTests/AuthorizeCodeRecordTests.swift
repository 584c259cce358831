import Cryptography
import HTTPCore
import JOSE
import TestSupport
import Testing

@testable import Issuer

// The token endpoint that redeems codes is built elsewhere; these tests read the stored record
// directly (through @testable) to pin down what that endpoint will be given.
@Suite("Authorization code records")
struct AuthorizeCodeRecordTests {
    /// The code is stored only as its hash, with every field the token endpoint needs, for 60 s.
    @Test("code record fields", arguments: Deployment.allCases)
    func fields(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            let thumbprint = try JWSSigner(key: .p256(try P256PrivateKey()), algorithm: .es256).publicJWK
                .thumbprint()
            let redirectURI = "http://127.0.0.1:50123/callback"
            let redirect = try await browser.signIn(
                NativeApp.authorization([
                    "redirect_uri": redirectURI, "scope": "openid read:items",
                    "audience": "https://api.example.com",
                    "nonce": "nonce-1", "dpop_jkt": thumbprint,
                ]))
            let code = try #require(try redirectParameters(redirect, to: redirectURI)["code"])
            let cookie = try #require(browser.sessionCookie)
            let (record, session, plain) = fixture.issuer.state.withLock { state in
                (state.codes[Issuer.hash(code)], state.sessions[Issuer.hash(cookie)], state.codes[code])
            }
            #expect(plain == nil, "stored by hash only")
            let stored = try #require(record)
            #expect(stored.clientID == NativeApp.clientID)
            #expect(stored.redirectURI == redirectURI)
            #expect(stored.userID == "auth0|alice")
            #expect(stored.scopes == ["openid", "read:items"])
            #expect(stored.audience == "https://api.example.com")
            #expect(stored.nonce == "nonce-1")
            #expect(stored.codeChallenge == NativeApp.codeChallenge)
            #expect(stored.dpopKeyThumbprint == thumbprint)
            #expect(stored.authTime == testEpoch)
            #expect(stored.expiresAt == testEpoch + 60)
            #expect(stored.redeemed == nil)
            let sid = try #require(session?.id)
            #expect(stored.sessionID == sid)
            #expect(sid != cookie && Issuer.hash(cookie) != sid, "the sid is not the cookie")
        }
    }

    /// An SSO code carries the first login's auth time; optional fields stay empty when not sent.
    @Test("SSO code record", arguments: Deployment.allCases)
    func singleSignOn(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            fixture.clock.advance(by: 50)
            let code = try #require(
                try redirectParameters(
                    try await browser.authorize(NativeApp.authorization(["nonce": nil, "state": nil])))[
                        "code"])
            let stored = try #require(fixture.issuer.state.withLock { $0.codes[Issuer.hash(code)] })
            #expect(stored.authTime == testEpoch)
            #expect(stored.expiresAt == testEpoch + 50 + 60)
            #expect(stored.nonce == nil)
            #expect(stored.audience == nil)
            #expect(stored.dpopKeyThumbprint == nil)
            #expect(stored.scopes == ["openid", "profile", "email", "offline_access"])
        }
    }

    /// A client's own lifetimes set its codes' and transactions' expiry.
    @Test("per-client lifetimes", arguments: Deployment.allCases)
    func clientLifetimes(deployment: Deployment) async throws {
        var tenant = Tenant.default
        var lifetimes = TokenLifetimes()
        lifetimes.authorizationCode = 30
        lifetimes.transaction = 90
        tenant.clients[0].lifetimes = lifetimes
        try await withIssuer(deployment, tenant: tenant) { fixture in
            var browser = Browser(fixture)
            let login = try expectLoginPage(try await browser.authorize())
            let transactionID = try #require(login.hiddenFields["transaction"])
            let transaction = fixture.issuer.state.withLock { $0.transactions[transactionID] }
            #expect(transaction?.expiresAt == testEpoch + 90)
            let code = try #require(
                try redirectParameters(try await browser.finishSignIn(from: try await browser.authorize()))[
                    "code"])
            #expect(
                fixture.issuer.state.withLock { $0.codes[Issuer.hash(code)]?.expiresAt } == testEpoch + 30)
        }
    }

    /// Expiry holds between sweeps: an expired session or transaction is refused before any sweep removes it.
    @Test("expiry between sweeps", arguments: Deployment.allCases)
    func expiryBetweenSweeps(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            var pending = Browser(fixture)
            let login = try expectLoginPage(try await pending.authorize())
            fixture.clock.advance(by: 7 * 86400)
            // As if the sweep had just run: only the endpoints' own checks stand in the way.
            let now = fixture.clock.now()
            fixture.issuer.state.withLock { $0.lastSweep = now }
            try expectLoginPage(try await browser.authorize())
            try expectErrorPage(
                try await pending.submit(login, ["username": Alice.email, "password": Alice.password]))
            let (sessions, lastSweep) = fixture.issuer.state.withLock { ($0.sessions.count, $0.lastSweep) }
            #expect(sessions == 1, "not swept: refused by the expiry check")
            #expect(lastSweep == now)
        }
    }

    /// Expired codes and transactions are swept by later requests.
    @Test("sweeping", arguments: Deployment.allCases)
    func sweeping(deployment: Deployment) async throws {
        try await withIssuer(deployment) { fixture in
            var browser = Browser(fixture)
            _ = try redirectParameters(try await browser.signIn())
            var other = Browser(fixture)
            try expectLoginPage(try await other.authorize())
            #expect(fixture.issuer.state.withLock { ($0.codes.count, $0.transactions.count) } == (1, 1))
            fixture.clock.advance(by: 601)
            _ = try redirectParameters(try await browser.authorize())
            let (codes, transactions) = fixture.issuer.state.withLock {
                ($0.codes.count, $0.transactions.count)
            }
            #expect(codes == 1, "only the new code")
            #expect(transactions == 0)
        }
    }

    /// At most `IssuerLimits.pendingTransactions` login transactions are kept, the oldest
    /// forgotten first; the form of a forgotten one gets the page of an expired one, and the
    /// newer ones still sign in.
    @Test("pending transactions are bounded, the oldest forgotten first", arguments: Deployment.allCases)
    func boundedTransactions(deployment: Deployment) async throws {
        var limits = IssuerLimits()
        limits.pendingTransactions = 3
        try await withIssuer(deployment, limits: limits) { fixture in
            var browsers: [Browser] = []
            var forms: [HTMLForm] = []
            for _ in 0..<5 {
                var browser = Browser(fixture)
                forms.append(try expectLoginPage(try await browser.authorize()))
                browsers.append(browser)
                #expect(fixture.issuer.state.withLock { $0.transactions.count } <= 3)
            }
            let ids = forms.map { $0.hiddenFields["transaction"] }
            let kept = fixture.issuer.state.withLock { $0.transactions.keysOldestFirst }
            #expect(kept.map(Optional.some) == Array(ids[2...]))

            let credentials = ["username": Alice.email, "password": Alice.password]
            let forgotten = try await browsers[0].submit(forms[0], credentials)
            try expectErrorPage(forgotten)
            // The same page as a transaction that expired.
            fixture.clock.advance(by: 601)
            var late = Browser(fixture)
            let expiring = try expectLoginPage(try await late.authorize())
            fixture.clock.advance(by: 601)
            let expired = try await late.submit(expiring, credentials)
            #expect(forgotten.body == expired.body)
            #expect(forgotten.status == expired.status)
        }
        try await withIssuer(deployment, limits: limits) { fixture in
            var browsers: [Browser] = []
            var responses: [HTTPResponse] = []
            for _ in 0..<4 {
                var browser = Browser(fixture)
                responses.append(try await browser.authorize())
                browsers.append(browser)
            }
            // The newest three are live: each signs in.
            for index in 1..<4 {
                let code = try redirectParameters(
                    try await browsers[index].finishSignIn(from: responses[index]))[
                        "code"]
                #expect(code != nil)
            }
        }
    }
}
