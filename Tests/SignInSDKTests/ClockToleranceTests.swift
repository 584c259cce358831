import JSON
import SignInSDK
import Testing

/// The ID token clock rules (`ClockTolerance`), what each profile picks, and the app's
/// `leeway`, each through a whole sign-in against the scripted issuer: a token the rules refuse
/// leaves nothing stored.
@Suite struct ClockToleranceTests {
    /// The issuer's clock, which is also the device's here.
    static let now = FakeIssuer().clock.now()

    func signIn(profile: String = "default", leeway: Int64? = nil, iat: Int64? = nil, exp: Int64? = nil)
        async throws -> SignInError?
    {
        let harness = try await SDKHarness(profile: try BehaviorProfile(named: profile), leeway: leeway)
            .configured()
        harness.issuer.update {
            if let iat { $0.claimOverrides["iat"] = .int(iat) }
            if let exp { $0.claimOverrides["exp"] = .int(exp) }
        }
        let error = await capture { try await harness.client.signIn() }
        if error != nil { #expect(harness.storage.keys.isEmpty) }
        return error
    }

    /// The presets: the default's 60 s on `exp` and `iat` up to 600 s ahead with no bound
    /// behind; AppAuth-iOS's 0 s on `exp` and ±600 s on `iat`; strict-clock's nothing.
    @Test func presets() {
        #expect(
            ClockTolerance.standard
                == ClockTolerance(expiryLeeway: 60, issuedAtFuture: 600, issuedAtPast: nil))
        #expect(
            ClockTolerance.appAuth == ClockTolerance(expiryLeeway: 0, issuedAtFuture: 600, issuedAtPast: 600))
        #expect(ClockTolerance.none == ClockTolerance(expiryLeeway: 0, issuedAtFuture: 0, issuedAtPast: nil))
        #expect(ClockTolerance.appAuth.description == "exp 0 s, iat +600 s/-600 s")
        #expect(ClockTolerance.standard.description == "exp 60 s, iat +600 s/-any")
    }

    /// Each profile name picks its rules; the app's leeway replaces only the one on `exp`.
    @Test func profilesPickTheRulesAndLeewayOverrides() throws {
        func tolerance(_ profile: String, leeway: Int64? = nil) throws -> ClockTolerance {
            SignInOptions(
                issuer: "https://i", clientID: "c", redirectURI: "c://cb", leeway: leeway,
                profile: try BehaviorProfile(named: profile)
            ).clockTolerance
        }
        #expect(try tolerance("default") == .standard)
        #expect(try tolerance("appauth-clock") == .appAuth)
        #expect(try tolerance("naive+appauth-clock") == .appAuth)
        #expect(try tolerance("strict-clock") == .none)
        #expect(try tolerance("default", leeway: 0).expiryLeeway == 0)
        #expect(
            try tolerance("appauth-clock", leeway: 90)
                == ClockTolerance(expiryLeeway: 90, issuedAtFuture: 600, issuedAtPast: 600))
        #expect(
            try tolerance("strict-clock", leeway: 30) == ClockTolerance(expiryLeeway: 30, issuedAtFuture: 0))
    }

    /// `appauth-clock` composes with the other names, reads back from its description, and
    /// cannot be combined with `strict-clock`, which sets the same rules.
    @Test func appAuthClockComposes() throws {
        let profile = try BehaviorProfile(named: "appauth-clock+naive+dpop-server-date")
        #expect(profile.clockRule == .appAuth)
        #expect(profile.dpopTime == .serverDate)
        #expect(profile.refreshStrategy == .naive)
        #expect(profile.description == "naive+appauth-clock+dpop-server-date")
        #expect(try BehaviorProfile(named: profile.description) == profile)
        let error = #expect(throws: SignInError.self) {
            _ = try BehaviorProfile(named: "appauth-clock+strict-clock")
        }
        #expect(error?.message.contains("choose one") == true)
        #expect(BehaviorProfile.default.clockRule == .standard)
        #expect(BehaviorProfile.default.dpopTime == .device)
    }

    /// AppAuth-iOS: `iat` may be 600 s from the device's clock either way, not 601. The default
    /// bounds only the future side.
    @Test func appAuthIssuedAtWindow() async throws {
        #expect(try await signIn(profile: "appauth-clock", iat: Self.now - 600) == nil)
        #expect(try await signIn(profile: "appauth-clock", iat: Self.now + 600) == nil)
        #expect(try await signIn(profile: "appauth-clock", iat: Self.now - 601)?.code == .idTokenInvalid)
        #expect(try await signIn(profile: "appauth-clock", iat: Self.now + 601)?.code == .idTokenInvalid)
        #expect(try await signIn(iat: Self.now - 3000) == nil)
        #expect(try await signIn(iat: Self.now + 601)?.code == .idTokenInvalid)
    }

    /// AppAuth-iOS: no leeway on `exp`; the default's 60 s accepts a token a little past it.
    @Test func appAuthExpiryHasNoLeeway() async throws {
        let error = try await signIn(profile: "appauth-clock", exp: Self.now - 1)
        #expect(error?.code == .idTokenInvalid)
        #expect(error?.message.contains("leeway 0 s") == true)
        #expect(try await signIn(exp: Self.now - 1) == nil)
        #expect(try await signIn(profile: "appauth-clock", exp: Self.now + 1) == nil)
    }

    /// The app's leeway wins over the profile's, both ways.
    @Test func leewayOverridesTheProfile() async throws {
        #expect(try await signIn(profile: "appauth-clock", leeway: 60, exp: Self.now - 30) == nil)
        #expect(try await signIn(profile: "strict-clock", leeway: 60, exp: Self.now - 30) == nil)
        #expect(try await signIn(leeway: 0, exp: Self.now - 30)?.code == .idTokenInvalid)
        #expect(try await signIn(leeway: 120, exp: Self.now - 90) == nil)
        #expect(try await signIn(leeway: 120, exp: Self.now - 121)?.code == .idTokenInvalid)
    }

    /// A negative leeway is a configuration error.
    @Test func negativeLeewayIsRefused() async throws {
        let harness = SDKHarness(leeway: -1)
        let error = await capture { try await harness.client.configure(options: harness.options) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("leeway") == true)
    }
}
