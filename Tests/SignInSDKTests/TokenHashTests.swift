import JOSE
import JSON
import SignInSDK
import Testing

/// `at_hash` and `c_hash` bind an ID token to the access token and the code of its response
/// (OIDC Core §3.1.3.8, §3.3.2.10): checked whenever present, before anything is stored; the
/// `strict` profile also requires `at_hash`.
@Suite struct TokenHashTests {
    /// A hash of another value, well formed: what a swapped access token or code looks like.
    static let otherHash = JSONValue.string(
        try! HashClaim.leftHalfHash(of: "someone-else's", algorithm: "ES256"))

    func harness(_ profile: BehaviorProfile = .default, _ setUp: (inout FakeIssuer.State) -> Void)
        async throws -> SDKHarness
    {
        let harness = try await SDKHarness(profile: profile).configured()
        harness.issuer.update(setUp)
        return harness
    }

    /// The error names the claim and never carries the tokens.
    func expectMismatch(_ error: SignInError?, claim: String) {
        #expect(error?.code == .tokenHashMismatch)
        #expect(error?.message.contains(claim) == true, "\(String(describing: error))")
        #expect(error?.message.contains("at-") == false)
        #expect(error?.message.contains("eyJ") == false)
    }

    /// Hashes that match pass, on the code exchange and on a refresh.
    @Test func matchingHashesPass() async throws {
        let harness = try await harness { $0.hashClaims = [.accessToken, .code] }
        let session = try await harness.client.signIn()
        #expect(session.claims["at_hash"] != nil)
        #expect(session.claims["c_hash"] != nil)
        let refreshed = try await harness.client.renewSession()
        #expect(refreshed.accessToken != session.accessToken)
    }

    /// The code exchange's ID token hashes another access token: refused, nothing stored.
    @Test func codeExchangeWithWrongAccessTokenHashIsRefused() async throws {
        let harness = try await harness { $0.claimOverrides["at_hash"] = Self.otherHash }
        let error = await capture { try await harness.client.signIn() }
        expectMismatch(error, claim: "at_hash")
        #expect(harness.storage.keys.isEmpty)
    }

    /// A refresh whose ID token hashes another access token is refused; the session stays as it was.
    @Test func refreshWithWrongAccessTokenHashIsRefused() async throws {
        let harness = try await harness { $0.hashClaims = [.accessToken] }
        let session = try await harness.client.signIn()
        harness.issuer.update { $0.claimOverrides["at_hash"] = Self.otherHash }
        let error = await capture { try await harness.client.renewSession() }
        expectMismatch(error, claim: "at_hash")
        #expect(try await harness.client.storedSession() == session)
    }

    /// The token exchange (native Apple) checks `at_hash` too, before storing.
    @Test func tokenExchangeWithWrongAccessTokenHashIsRefused() async throws {
        let harness = try await harness { $0.claimOverrides["at_hash"] = Self.otherHash }
        let error = await capture { try await harness.client.signInWithApple() }
        expectMismatch(error, claim: "at_hash")
        #expect(try await harness.client.storedSession() == nil)
    }

    /// The code exchange's ID token hashes another code: refused, nothing stored.
    @Test func wrongCodeHashIsRefused() async throws {
        let harness = try await harness {
            $0.hashClaims = [.accessToken]
            $0.claimOverrides["c_hash"] = Self.otherHash
        }
        let error = await capture { try await harness.client.signIn() }
        expectMismatch(error, claim: "c_hash")
        #expect(harness.storage.keys.isEmpty)
    }

    /// No `at_hash`: the default accepts it (OPTIONAL in the code flow), `strict` refuses it on
    /// the code exchange and on a refresh.
    @Test(arguments: [false, true]) func missingAccessTokenHash(strict: Bool) async throws {
        let profile = strict ? try BehaviorProfile(named: "strict") : .default
        let harness = try await harness(profile) { _ in }
        let error = await capture { try await harness.client.signIn() }
        if strict {
            expectMismatch(error, claim: "at_hash")
            #expect(error?.message.contains("no at_hash") == true)
            #expect(harness.storage.keys.isEmpty)
        } else {
            #expect(error == nil)
        }

        harness.issuer.update { $0.hashClaims = [.accessToken] }
        let session = try await harness.client.signIn()
        harness.issuer.update { $0.hashClaims = [] }
        let refreshError = await capture { try await harness.client.renewSession() }
        #expect((refreshError?.code == .tokenHashMismatch) == strict)
        if strict { #expect(try await harness.client.storedSession() == session) }
    }
}
