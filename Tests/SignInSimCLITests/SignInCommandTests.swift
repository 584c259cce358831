import JSON
import TestSupport
import Testing

@testable import SignInSimCLI

/// The one-shot QA commands, run through the built binary against the embedded issuer.
@Suite("signinsim sign-in and apple-sign-in")
struct SignInCommandTests {
    /// The full web flow, a refresh and a sign-out print the session and exit 0. The sign-out is
    /// acknowledged (the post-logout redirect came back with the state) and no more: the sheet
    /// was ephemeral, so no browser store can show the issuer's session, and the refresh token
    /// the app held still refreshes (the embedded issuer ends browser sessions, not grants).
    @Test("sign-in --refresh --sign-out")
    func signInRefreshSignOut() async throws {
        let result = try await SignInSimBinary.run([
            "sign-in", "--refresh", "--sign-out", "--post-logout-redirect-uri",
            "com.example.app://auth/logout",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let session = try JSONValue.parse(result.standardOutput)
        #expect(session["subject"]?.stringValue == "auth0|alice")
        #expect(session["claims"]?["email"]?.stringValue == "alice@example.com")
        #expect(session["id_token_alg"]?.stringValue == "ES256")
        #expect(session["has_refresh_token"]?.boolValue == true)
        #expect(session["refreshed"]?.boolValue == true)
        #expect(session["signed_out_at_issuer"]?.boolValue == false)
        #expect(session["sign_out_status"]?.stringValue == "acknowledged")
        #expect(session["sign_out"]?.stringValue?.hasPrefix("acknowledged by the issuer") == true)
        let evidence = session["sign_out_evidence"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(
            evidence == [
                "the post-logout redirect came back to the app with the state it sent",
                "the app's sign-in sheets were ephemeral: their cookies went with them, so no browser store on the "
                    + "phone can show whether the issuer's session ended",
                "the refresh token the app held before the sign-out still refreshed: the issuer kept the grant",
            ])
        // Discovery and keys for the check's own client, then the refresh.
        #expect(session["sign_out_check_requests"]?.int64Value == 3)
        #expect(!result.standardOutput.contains("access_token"))
    }

    /// "Signed out at the issuer" only on proof: a shared sheet's store is asked afterwards with
    /// prompt=none, which the issuer answers login_required; an ephemeral one leaves nothing to
    /// ask and no refresh token to try, so the sign-out stays unconfirmed.
    @Test("sign-out evidence", arguments: [false, true])
    func signOutEvidence(shared: Bool) async throws {
        let result = try await SignInSimBinary.run(
            ["sign-in", "--sign-out"] + (shared ? ["--shared-session"] : []))
        #expect(result.status == 0, "\(result.standardError)")
        let session = try JSONValue.parse(result.standardOutput)
        #expect(session["signed_out_at_issuer"]?.boolValue == shared)
        #expect(session["sign_out_status"]?.stringValue == (shared ? "verified" : "unconfirmed"))
        let statement = session["sign_out"]?.stringValue ?? ""
        #expect(
            statement.hasPrefix(
                shared ? "ended at the issuer (verified: " : "unconfirmed (the person closed the sheet"),
            "\(statement)")
        let evidence = session["sign_out_evidence"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(
            evidence.first?.hasPrefix("nothing came back to the app: the person closed the sheet") == true)
        #expect(
            evidence.dropFirst().first
                == (shared
                    ? "an authorization request with prompt=none in the browser store of the app's sign-ins was "
                        + "answered login_required"
                    : "the app's sign-in sheets were ephemeral: their cookies went with them, so no browser store on "
                        + "the phone can show whether the issuer's session ended"))
    }

    /// A refused end-session (a post-logout redirect URI the issuer never registered) exits 1
    /// with the issuer's answer, after printing the session.
    @Test("a refused sign-out exits 1 with the issuer's answer")
    func refusedSignOut() async throws {
        let result = try await SignInSimBinary.run([
            "sign-in", "--sign-out", "--post-logout-redirect-uri", "com.example.app://not-registered",
        ])
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("Error: step sign-out: the issuer's end-session failed"))
        #expect(result.standardError.contains("400"), "\(result.standardError)")
        let session = try JSONValue.parse(result.standardOutput)
        #expect(session["signed_out_at_issuer"]?.boolValue == false)
    }

    /// Fresh randomness unless seeded: the ID token's `nonce` (drawn by the phone) differs
    /// between two runs, and repeats between two runs with one `--seed`, which the output names.
    @Test("fresh randomness by default, reproducible with --seed")
    func freshUnlessSeeded() async throws {
        func nonce(_ extra: [String]) async throws -> (String?, JSONValue?) {
            let result = try await SignInSimBinary.run(["sign-in"] + extra)
            #expect(result.status == 0, "\(result.standardError)")
            let session = try JSONValue.parse(result.standardOutput)
            return (session["claims"]?["nonce"]?.stringValue, session["seed"])
        }
        let (first, firstSeed) = try await nonce([])
        let (second, _) = try await nonce([])
        #expect(first != nil && first != second)
        #expect(firstSeed == nil)
        let (seeded, seed) = try await nonce(["--seed", "5"])
        let (again, _) = try await nonce(["--seed", "5"])
        #expect(seeded != nil && seeded == again)
        #expect(seed == .int(5))
    }

    /// Another user, by the login form.
    @Test("sign-in as bob")
    func signInAsBob() async throws {
        let result = try await SignInSimBinary.run([
            "sign-in", "--username", "bob@example.com", "--password", "bob-password",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try JSONValue.parse(result.standardOutput)["subject"]?.stringValue == "auth0|bob")
    }

    /// A wrong password exits 1 naming the step, the reason and the pages, without secrets.
    @Test("a wrong password exits 1 with the step")
    func wrongPassword() async throws {
        let result = try await SignInSimBinary.run(["sign-in", "--password", "wrong"])
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("Error: step sign-in: web_session_failed: login_rejected"))
        #expect(result.standardError.contains("Wrong email or password."))
        #expect(!result.standardError.contains("state="))
        #expect(!result.standardError.contains("wrong"))
    }

    /// An unreachable issuer fails at configure.
    @Test("an unreachable issuer exits 1")
    func unreachableIssuer() async throws {
        let result = try await SignInSimBinary.run(["sign-in", "--issuer", "http://127.0.0.1:9"])
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("Error: step configure: transport"))
    }

    /// An unknown SDK profile is a usage error.
    @Test("an unknown profile exits 64")
    func unknownProfile() async throws {
        let result = try await SignInSimBinary.run(["sign-in", "--profile", "sloppy"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("unknown SDK profile \"sloppy\""))
    }

    /// Native Apple: the exchange carries the name, which lands in the issuer's ID token.
    @Test("apple-sign-in")
    func appleSignIn() async throws {
        let result = try await SignInSimBinary.run([
            "apple-sign-in", "--email", "ann@example.com", "--given-name", "Ann", "--family-name", "Lee",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let session = try JSONValue.parse(result.standardOutput)
        #expect(session["subject"]?.stringValue?.hasPrefix("apple|") == true)
        #expect(session["claims"]?["name"]?.stringValue == "Ann Lee")
    }

    /// Without user_profile (the faulty profile) the name never reaches the issuer.
    @Test("apple-sign-in with never-send-user-profile")
    func appleSignInWithoutProfile() async throws {
        let result = try await SignInSimBinary.run([
            "apple-sign-in", "--email", "ann@example.com", "--given-name", "Ann", "--family-name", "Lee",
            "--profile", "never-send-user-profile",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try JSONValue.parse(result.standardOutput)["claims"]?["name"] == nil)
    }

    /// `--issuer` without `--apple` is a usage error.
    @Test("apple-sign-in --issuer needs --apple")
    func appleNeedsApple() async throws {
        let result = try await SignInSimBinary.run([
            "apple-sign-in", "--issuer", "http://x", "--email", "a@b.c",
        ])
        #expect(result.status == 64)
    }
}

/// `--leeway` on `sign-in` and `apple-sign-in`: it replaces the profile's leeway on `exp` in the
/// options the app configures its SDK with.
@Suite("sign-in --leeway")
struct SignInLeewayTests {
    static func parsed(_ words: [String]) throws -> ParsedArguments {
        guard case .success(.run(_, let parsed)) = ArgumentParser.parse(words, root: SignInSimCLI.root) else {
            throw UsageError("\(words) did not parse as a command to run")
        }
        return parsed
    }

    /// The option reaches the SDK options; without it the profile's leeway applies.
    @Test("sign-in and apple-sign-in take --leeway")
    func leewayReachesTheOptions() throws {
        let signIn = try SignInRun(Self.parsed(["sign-in", "--profile", "appauth-clock", "--leeway", "45"]))
        #expect(try signIn.options(issuer: "https://issuer.test", context: .live()).leeway == 45)
        #expect(
            try signIn.options(issuer: "https://issuer.test", context: .live()).clockTolerance.expiryLeeway
                == 45)
        #expect(
            try signIn.options(issuer: "https://issuer.test", context: .live()).clockTolerance.issuedAtPast
                == 600)
        let byProfile = try SignInRun(Self.parsed(["sign-in", "--profile", "appauth-clock"]))
        #expect(
            try byProfile.options(issuer: "https://issuer.test", context: .live()).clockTolerance.expiryLeeway
                == 0)
        let apple = try AppleSignInRun(
            Self.parsed(["apple-sign-in", "--email", "a@example.com", "--leeway", "0"]))
        #expect(
            try apple.options(issuer: "https://issuer.test", context: .live()).clockTolerance.expiryLeeway
                == 0)
        let appleDefault = try AppleSignInRun(Self.parsed(["apple-sign-in", "--email", "a@example.com"]))
        #expect(
            try appleDefault.options(issuer: "https://issuer.test", context: .live()).clockTolerance
                .expiryLeeway == 60)
    }

    /// A negative or non-numeric leeway is a usage error.
    @Test("a bad --leeway exits 64", arguments: ["-5", "soon"])
    func badLeeway(value: String) async throws {
        let result = try await SignInSimBinary.run(["sign-in", "--leeway", value])
        #expect(result.status == 64)
        #expect(result.standardError.contains("is invalid for '--leeway <seconds>'"))
    }

    /// End to end: a sign-in with a leeway of its own signs in.
    @Test("sign-in --leeway 0")
    func signInWithLeeway() async throws {
        let result = try await SignInSimBinary.run(["sign-in", "--leeway", "0", "--profile", "appauth-clock"])
        #expect(result.status == 0, "\(result.standardError)")
    }
}
