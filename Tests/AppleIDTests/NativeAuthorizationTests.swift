import AppleID
import Clocks
import Cryptography
import JOSE
import JSON
import TestSupport
import Testing

@Suite("Native Sign in with Apple (device side)")
struct NativeAuthorizationTests {
    /// The first authorization returns name, email and the granted scopes; a returning one none of them.
    @Test("first vs returning authorization")
    func firstAndReturning() throws {
        let (provider, _) = makeProvider()
        let request = AppleAuthorizationRequest(
            account: AppleIDAccount(email: "alice@example.com", givenName: "Alice", familyName: "Appleseed"),
            bundleID: appA, teamID: teamA)
        let first = try provider.authorize(request)
        #expect(first.fullName == ApplePersonName(givenName: "Alice", familyName: "Appleseed"))
        #expect(first.email == "alice@example.com")
        #expect(first.authorizedScopes == [.fullName, .email])
        #expect(first.realUserStatus == .likelyReal)

        let second = try provider.authorize(request)
        #expect(second.user == first.user)
        #expect(second.fullName == nil)
        #expect(second.email == nil)
        #expect(second.authorizedScopes.isEmpty)
        #expect(second.authorizationCode != first.authorizationCode)
        // The identity token still carries the email the user shared the first time.
        #expect(try claimsOf(second.identityToken)["email"] == "alice@example.com")
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .authorized)
    }

    /// Stopping to use Apple ID with the app makes the state notFound and the next authorization a first one.
    @Test("stop using Apple ID makes the next authorization first again")
    func stopUsing() throws {
        let (provider, _) = makeProvider()
        let request = AppleAuthorizationRequest(
            account: AppleIDAccount(email: "Alice@Example.com", givenName: "Alice"), bundleID: appA,
            teamID: teamA)
        _ = try provider.authorize(request)
        #expect(try provider.authorize(request).fullName == nil)
        provider.stopUsingAppleID(email: "alice@example.com", bundleID: appA)
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .notFound)
        let again = try provider.authorize(request)
        #expect(again.fullName?.givenName == "Alice")
        #expect(again.email == "Alice@Example.com")
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .authorized)
    }

    /// `stateAfterStopUsing = .revoked` reports revoked after the user stops, and still re-asks for the name.
    @Test("stop using with the revoked-state configuration")
    func stopUsingRevoked() throws {
        var configuration = AppleConfiguration()
        configuration.stateAfterStopUsing = .revoked
        let (provider, _) = makeProvider(configuration: configuration)
        let request = AppleAuthorizationRequest(
            account: AppleIDAccount(email: "alice@example.com", givenName: "Alice"), bundleID: appA,
            teamID: teamA)
        _ = try provider.authorize(request)
        provider.stopUsingAppleID(email: "alice@example.com", bundleID: appA)
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .revoked)
        #expect(try provider.authorize(request).fullName?.givenName == "Alice")
    }

    /// `sub` has Apple's shape, is stable per team and differs across teams; apps of one team share it.
    @Test("user id stable per team, different across teams")
    func subjectPerTeam() throws {
        let (provider, _) = makeProvider()
        let account = AppleIDAccount(email: "alice@example.com")
        let a1 = try provider.authorize(.init(account: account, bundleID: appA, teamID: teamA))
        let a2 = try provider.authorize(
            .init(account: account, bundleID: "com.example.alpha2", teamID: teamA))
        let b = try provider.authorize(.init(account: account, bundleID: appB, teamID: teamB))
        #expect(a1.user == a2.user)
        #expect(a1.user != b.user)
        #expect(a1.user.wholeMatch(of: /[0-9]{6}\.[0-9a-f]{32}\.[0-9]{4}/) != nil, "\(a1.user)")
        #expect(try claimsOf(a1.identityToken)["sub"] == .string(a1.user))
        // Another provider (another run) derives the same ids.
        let (other, _) = makeProvider(seed: 99)
        #expect(try other.authorize(.init(account: account, bundleID: appA, teamID: teamA)).user == a1.user)
        let bob = try provider.authorize(
            .init(account: AppleIDAccount(email: "bob@example.com"), bundleID: appA))
        #expect(bob.user != a1.user)
    }

    /// The relay address is stable per team, differs across teams, and the first choice sticks.
    @Test("private relay address stable per team, first choice sticks")
    func privateRelay() throws {
        let (provider, _) = makeProvider()
        let hidden = AppleIDAccount(email: "alice@example.com", privateRelay: true)
        let first = try provider.authorize(.init(account: hidden, bundleID: appA, teamID: teamA))
        let relay = try #require(first.email)
        #expect(relay.wholeMatch(of: /[a-z0-9]{10}@privaterelay\.appleid\.com/) != nil, "\(relay)")
        let token = try claimsOf(first.identityToken)
        #expect(token["email"] == .string(relay))
        #expect(token["is_private_email"] == true)
        #expect(token["email_verified"] == true)

        // Returning with "share my email" changes nothing: the first answer is kept.
        let shared = AppleIDAccount(email: "alice@example.com", privateRelay: false)
        let returning = try provider.authorize(.init(account: shared, bundleID: appA, teamID: teamA))
        #expect(try claimsOf(returning.identityToken)["email"] == .string(relay))

        let sameTeam = try provider.authorize(
            .init(account: hidden, bundleID: "com.example.alpha2", teamID: teamA))
        #expect(sameTeam.email == relay)
        let otherTeam = try provider.authorize(.init(account: hidden, bundleID: appB, teamID: teamB))
        #expect(otherTeam.email != relay)
        #expect(otherTeam.email?.hasSuffix("@privaterelay.appleid.com") == true)
    }

    /// Without the email scope the first time, no email is shared, then or later.
    @Test("no email scope, no email")
    func noEmailScope() throws {
        let (provider, _) = makeProvider()
        let account = AppleIDAccount(email: "alice@example.com", givenName: "Alice")
        let first = try provider.authorize(
            .init(account: account, bundleID: appA, requestedScopes: [.fullName]))
        #expect(first.email == nil)
        #expect(first.fullName?.givenName == "Alice")
        #expect(try claimsOf(first.identityToken)["email"] == nil)
        #expect(try claimsOf(first.identityToken)["email_verified"] == nil)
        let later = try provider.authorize(.init(account: account, bundleID: appA))
        #expect(try claimsOf(later.identityToken)["email"] == nil)
    }

    /// The nonce is copied into the token as given; `sha256Hex` is SHA-256 in lowercase hex; none without one.
    @Test("nonce copied into the identity token")
    func nonce() throws {
        #expect(
            AppleNonce.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let (provider, clock) = makeProvider()
        let hashed = AppleNonce.sha256Hex("raw-nonce-123")
        let credential = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA, nonce: hashed))
        let claims = try AppleIdentityToken.verify(
            credential.identityToken, keys: provider.publicKeySet, audience: appA, now: clock.now(),
            expectedNonceHash: AppleNonce.sha256Hex("raw-nonce-123"))
        #expect(claims.nonce == hashed)
        #expect(claims.nonceSupported == true)
        #expect(
            throws: JOSEError.self,
            performing: {
                try AppleIdentityToken.verify(
                    credential.identityToken, keys: provider.publicKeySet, audience: appA, now: clock.now(),
                    expectedNonceHash: AppleNonce.sha256Hex("another-raw-nonce"))
            })
        let without = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA))
        #expect(try claimsOf(without.identityToken)["nonce"] == nil)
        #expect(try claimsOf(without.identityToken)["nonce_supported"] == true)
    }

    /// Booleans are JSON booleans or strings as configured; the verifier reads both alike.
    @Test("string vs JSON booleans", arguments: AppleConfiguration.BooleanEncoding.allCases)
    func booleans(encoding: AppleConfiguration.BooleanEncoding) throws {
        var configuration = AppleConfiguration()
        configuration.booleanEncoding = encoding
        let (provider, clock) = makeProvider(configuration: configuration)
        let credential = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com", privateRelay: true), bundleID: appA))
        let raw = try claimsOf(credential.identityToken)
        switch encoding {
        case .jsonBoolean:
            #expect(raw["email_verified"] == .bool(true))
            #expect(raw["is_private_email"] == .bool(true))
        case .string:
            #expect(raw["email_verified"] == .string("true"))
            #expect(raw["is_private_email"] == .string("true"))
        }
        #expect(raw["nonce_supported"] == .bool(true))
        let claims = try AppleIdentityToken.verify(
            credential.identityToken, keys: provider.publicKeySet, audience: appA, now: clock.now(),
            expectedNonceHash: nil)
        #expect(claims.emailVerified == true)
        #expect(claims.isPrivateEmail == true)

        let shared = try provider.authorize(
            .init(account: AppleIDAccount(email: "bob@example.com"), bundleID: appA))
        let sharedRaw = try claimsOf(shared.identityToken)
        #expect(sharedRaw["is_private_email"] == (encoding == .string ? .string("false") : .bool(false)))
    }

    /// The identity token has Apple's header and claims, `exp` = `iat` + 600, a `c_hash`, and never a name.
    @Test("identity token claims")
    func tokenClaims() throws {
        let (provider, clock) = makeProvider()
        clock.advance(by: 42)
        let account = AppleIDAccount(
            email: "alice@example.com", givenName: "Alice", familyName: "Appleseed", realUserStatus: .unknown)
        let credential = try provider.authorize(.init(account: account, bundleID: appA, teamID: teamA))
        let header = try headerOf(credential.identityToken)
        #expect(header == ["alg": "RS256", "kid": .string(provider.activeKeyID)])
        let claims = try claimsOf(credential.identityToken)
        #expect(claims["iss"] == "https://appleid.apple.com")
        #expect(claims["aud"] == .string(appA))
        #expect(claims["iat"] == .int(testEpoch + 42))
        #expect(claims["exp"] == .int(testEpoch + 42 + 600))
        #expect(claims["auth_time"] == .int(testEpoch + 42))
        #expect(claims["real_user_status"] == 1)
        #expect(credential.realUserStatus == .unknown)
        let code = credential.authorizationCode
        let expectedHash = Base64URL.encode(Array(SHA256.hash(code).prefix(16)))
        #expect(claims["c_hash"] == .string(expectedHash))
        #expect(code.wholeMatch(of: /c[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil, "\(code)")
        let names = Set(claims.objectValue?.keys.map { $0 } ?? [])
        #expect(names.isDisjoint(with: ["name", "given_name", "family_name", "fullName", "full_name"]))
        #expect(
            names
                == [
                    "iss", "aud", "sub", "iat", "exp", "auth_time", "nonce_supported", "real_user_status",
                    "email",
                    "email_verified", "is_private_email", "c_hash",
                ])
    }

    /// Cancel is 1001; no Apple ID on the device is 1000; a malformed bundle id is 1004.
    @Test("cancel, no account and malformed requests")
    func failures() throws {
        let (provider, _) = makeProvider()
        let account = AppleIDAccount(email: "alice@example.com")
        #expect(throws: AppleAuthorizationError.canceled) {
            try provider.authorize(.init(account: account, bundleID: appA, decision: .cancel))
        }
        #expect(AppleAuthorizationError.canceled.code.rawValue == 1001)
        let noAccount = #expect(throws: AppleAuthorizationError.self) {
            try provider.authorize(.init(account: nil, bundleID: appA))
        }
        #expect(noAccount?.code == .unknown)
        #expect(noAccount?.code.rawValue == 1000)
        let badBundle = #expect(throws: AppleAuthorizationError.self) {
            try provider.authorize(.init(account: account, bundleID: "not a bundle/id"))
        }
        #expect(badBundle?.code == .failed)
        // A canceled request leaves no trace.
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .notFound)
    }

    /// An app belongs to one team: naming another one fails (1004); naming none takes the registered one.
    @Test("team of an app")
    func teamOfApp() throws {
        let (provider, _) = makeProvider()
        let account = AppleIDAccount(email: "alice@example.com")
        _ = try provider.authorize(.init(account: account, bundleID: appA, teamID: teamA))
        #expect(provider.team(ofApp: appA) == teamA)
        let wrong = #expect(throws: AppleAuthorizationError.self) {
            try provider.authorize(.init(account: account, bundleID: appA, teamID: teamB))
        }
        #expect(wrong?.code == .failed)
        let implicit = try provider.authorize(.init(account: account, bundleID: appA))
        #expect(try claimsOf(implicit.identityToken)["sub"] == .string(implicit.user))
        let fresh = try provider.authorize(.init(account: account, bundleID: "com.example.fresh"))
        #expect(provider.team(ofApp: "com.example.fresh") == AppleConfiguration().defaultTeamID)
        #expect(fresh.user != implicit.user)
    }

    /// Credential state by user id, as apps ask: authorized for the team's id, notFound for others.
    @Test("credential state by user id")
    func stateByUserID() throws {
        let (provider, _) = makeProvider()
        let credential = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA, teamID: teamA))
        #expect(provider.credentialState(forUserID: credential.user, bundleID: appA) == .authorized)
        #expect(provider.credentialState(forUserID: credential.user, bundleID: appB) == .notFound)
        #expect(provider.credentialState(forUserID: "000000.nobody.0000", bundleID: appA) == .notFound)
    }

    /// A transfer marks authorized users transferred; the next sign-in gets the new team's id and no name.
    @Test("app transfer")
    func transfer() throws {
        let (provider, _) = makeProvider()
        let account = AppleIDAccount(email: "alice@example.com", givenName: "Alice")
        let before = try provider.authorize(.init(account: account, bundleID: appA, teamID: teamA))
        provider.transferApp(bundleID: appA, toTeam: teamB)
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .transferred)
        #expect(provider.team(ofApp: appA) == teamB)
        let after = try provider.authorize(.init(account: account, bundleID: appA))
        #expect(after.user != before.user)
        #expect(after.fullName == nil)
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .authorized)
    }

    /// The user id the app holds from before a transfer reads `transferred` (the app must migrate
    /// it); the new team's id is unknown until the user authorizes again, and then the old one
    /// is unknown. A transfer counts the authorizations it moved.
    @Test("the old user id after a transfer")
    func transferredUserID() throws {
        let (provider, _) = makeProvider()
        let account = AppleIDAccount(email: "alice@example.com")
        let before = try provider.authorize(.init(account: account, bundleID: appA, teamID: teamA))
        _ = try provider.authorize(
            .init(account: AppleIDAccount(email: "bob@example.com"), bundleID: appA, teamID: teamA))
        #expect(provider.transferApp(bundleID: appA, toTeam: teamB) == 2)
        #expect(provider.credentialState(forUserID: before.user, bundleID: appA) == .transferred)
        let after = try provider.authorize(.init(account: account, bundleID: appA))
        #expect(provider.credentialState(forUserID: after.user, bundleID: appA) == .authorized)
        #expect(provider.credentialState(forUserID: before.user, bundleID: appA) == .notFound)
    }

    /// Moving an app to the team it belongs to is no transfer: its users stay authorized.
    @Test("transfer to the same team")
    func transferToTheSameTeam() throws {
        let (provider, _) = makeProvider()
        let credential = try provider.authorize(
            .init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA, teamID: teamA))
        #expect(provider.transferApp(bundleID: appA, toTeam: teamA) == 0)
        #expect(provider.credentialState(forUserID: credential.user, bundleID: appA) == .authorized)
    }

    /// Apple ends an authorization from its side with the state asked for: the next
    /// authorization is a first one again (the name comes back), and the account's other apps
    /// are untouched.
    @Test("Apple ends an authorization", arguments: AppleAuthorizationEnding.allCases)
    func endAuthorization(ending: AppleAuthorizationEnding) throws {
        let (provider, _) = makeProvider()
        let account = AppleIDAccount(email: "alice@example.com", givenName: "Alice")
        let credential = try provider.authorize(.init(account: account, bundleID: appA, teamID: teamA))
        _ = try provider.authorize(.init(account: account, bundleID: appB, teamID: teamA))
        #expect(provider.endAuthorization(email: "Alice@example.com", bundleID: appA, as: ending))
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == ending.state)
        #expect(provider.credentialState(forUserID: credential.user, bundleID: appA) == ending.state)
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appB) == .authorized)
        #expect(
            try provider.authorize(.init(account: account, bundleID: appA)).fullName?.givenName == "Alice")
    }

    /// An account that never authorized the app has nothing to end: the call says so, and the
    /// state stays `notFound`. Stopping to use Apple ID says the same.
    @Test("nothing to end")
    func nothingToEnd() throws {
        let (provider, _) = makeProvider()
        #expect(!provider.endAuthorization(email: "alice@example.com", bundleID: appA, as: .revoked))
        #expect(!provider.stopUsingAppleID(email: "alice@example.com", bundleID: appA))
        #expect(provider.credentialState(email: "alice@example.com", bundleID: appA) == .notFound)
        _ = try provider.authorize(.init(account: AppleIDAccount(email: "alice@example.com"), bundleID: appA))
        #expect(provider.stopUsingAppleID(email: "alice@example.com", bundleID: appA))
    }

    /// The ending's state.
    @Test("endings and their states")
    func endingStates() {
        #expect(AppleAuthorizationEnding.allCases.map(\.state) == [.revoked, .notFound])
    }
}
