import Scenario

/// The fixed run and capture the golden files are made from: every status, nested steps,
/// every optional field both present and absent, and text that needs escaping.
enum Fixtures {
    static let loginFile = "scenarios/sign-in/basic.yaml"
    static let refreshFile = "scenarios/refresh.yaml"

    static let password = "hunter2-correct-horse"
    static let clientSecret = "s3cr3t-client"
    /// `com.example.app:s3cr3t-client` in base64, as `Authorization: Basic` carries it.
    static let basicCredentials = "Y29tLmV4YW1wbGUuYXBwOnMzY3IzdC1jbGllbnQ="
    static let refreshToken = "rt-7f3a9c1e-refresh"
    static let codeVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let privateKeyD = "PRIVATE-d-870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE"

    static let summary = RunSummary(
        results: [
            ScenarioResult(
                name: "signs in with a password", file: loginFile, description: "The happy path.",
                tags: ["smoke", "password"], status: .passed,
                steps: [
                    StepRecord(
                        step: "launch", location: SourceLocation(file: loginFile, line: 5, column: 5),
                        outcome: .passed,
                        durationMilliseconds: 1.25),
                    StepRecord(
                        step: "parallel", location: SourceLocation(file: loginFile, line: 6, column: 5),
                        outcome: .passed,
                        children: [
                            StepRecord(
                                step: "signIn", location: SourceLocation(file: loginFile, line: 7, column: 9),
                                outcome: .passed, durationMilliseconds: 40.5),
                            StepRecord(
                                step: "refresh",
                                location: SourceLocation(file: loginFile, line: 8, column: 9),
                                outcome: .passed, note: "coalesced", durationMilliseconds: 3),
                        ], durationMilliseconds: 44.125),
                ], durationMilliseconds: 123.4567, seed: 42, harPath: "har/signs-in.har"),
            ScenarioResult(
                name: "rejects a \"stale\" <nonce> & tells the user", file: loginFile,
                description: "Replays an old ID token; the SDK must refuse it.", tags: ["security"],
                status: .failed,
                failure: StepFailure(
                    step: "expect", location: SourceLocation(file: loginFile, line: 21, column: 7),
                    message: "the session's error differs from what the scenario expects",
                    expected: "error invalid_nonce", actual: "signed in as alice@example.com"),
                steps: [
                    StepRecord(
                        step: "signIn", location: SourceLocation(file: loginFile, line: 19, column: 5),
                        outcome: .passed,
                        durationMilliseconds: 50),
                    StepRecord(
                        step: "expect", location: SourceLocation(file: loginFile, line: 21, column: 7),
                        outcome: .failed,
                        note: "unexpected success", durationMilliseconds: 0.5),
                    StepRecord(
                        step: "signOut", location: SourceLocation(file: loginFile, line: 23, column: 5),
                        outcome: .skipped, note: "an earlier step failed"),
                ], durationMilliseconds: 1500, seed: 42),
            ScenarioResult(
                name: "refreshes after the access token expires", file: refreshFile, tags: [],
                status: .skipped,
                failure: StepFailure(
                    step: "advanceClock", location: SourceLocation(file: refreshFile, line: 3, column: 1),
                    message: "the target issuer has no admin API"),
                seed: 42),
            ScenarioResult(
                name: "Zoë signs in again", file: refreshFile, status: .interrupted,
                durationMilliseconds: 2000,
                seed: 42),
        ], interrupted: true, durationMilliseconds: 3456.7, seed: 42, shard: "1/2",
        selection: [
            ScenarioKey(file: loginFile, name: "signs in with a password"),
            ScenarioKey(file: refreshFile, name: "refresh in another shard"),
        ])

    /// The same run timed differently, as a second run with the same seed would be.
    static var retimedSummary: RunSummary {
        var summary = summary
        summary.durationMilliseconds = 9999
        for index in summary.results.indices {
            summary.results[index].durationMilliseconds += 17
            for step in summary.results[index].steps.indices {
                summary.results[index].steps[step].durationMilliseconds *= 3
            }
        }
        return summary
    }

    static let authorizeURL =
        "https://issuer.example/authorize?response_type=code&client_id=com.example.app"
        + "&redirect_uri=com.example.app%3A%2F%2Fauth%2Fcallback&scope=openid%20profile+email&state=af0ifjsldkj"
        + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"

    static let exchanges: [RecordedExchange] = [
        RecordedExchange(
            source: .device, startedAtMilliseconds: 1_714_566_896_789, method: "GET", url: authorizeURL,
            requestHeaders: [
                HeaderField("User-Agent", "SignInSim/1.0"), HeaderField("Cookie", "did=d-1; theme=dark"),
            ],
            status: 302,
            responseHeaders: [
                HeaderField("Location", "/u/login?state=af0ifjsldkj"),
                HeaderField("Set-Cookie", "session=abc123; Path=/; Domain=issuer.example; HttpOnly; Secure"),
                HeaderField(
                    "Set-Cookie",
                    "did=d-1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/; SameSite=None; Secure"),
                HeaderField("Set-Cookie", "short=1; Max-Age=60"),
            ],
            timeMilliseconds: 12.3456),
        RecordedExchange(
            source: .device, startedAtMilliseconds: 1_714_566_897_000, method: "POST",
            url: "https://issuer.example/u/login?state=af0ifjsldkj",
            requestHeaders: [
                HeaderField("Content-Type", "application/x-www-form-urlencoded"),
                HeaderField("Cookie", "session=abc123"),
            ],
            requestBody: Array("username=alice%40example.com&password=\(password)&action=default".utf8),
            status: 302,
            responseHeaders: [
                HeaderField(
                    "Location",
                    "com.example.app://auth/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj")
            ],
            timeMilliseconds: 30),
        RecordedExchange(
            source: .device, startedAtMilliseconds: 1_714_566_897_100, method: "POST",
            url: "https://issuer.example/oauth/token",
            requestHeaders: [
                HeaderField("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),
                HeaderField("Authorization", "Basic \(basicCredentials)"),
            ],
            requestBody: Array(
                ("grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA"
                    + "&redirect_uri=com.example.app%3A%2F%2Fauth%2Fcallback&code_verifier=\(codeVerifier)")
                    .utf8),
            status: 200,
            responseHeaders: [
                HeaderField("Content-Type", "application/json"), HeaderField("Cache-Control", "no-store"),
            ],
            responseBody: Array(
                #"{"access_token":"at-1","token_type":"DPoP","expires_in":3600,"refresh_token":"\#(refreshToken)","id_token":"eyJhbGciOiJFUzI1NiJ9.e30.sig"}"#
                    .utf8),
            timeMilliseconds: 8.5),
        RecordedExchange(
            source: .issuer, startedAtMilliseconds: 1_714_566_897_200, method: "POST",
            url: "https://apple.example/auth/token",
            requestHeaders: [HeaderField("Content-Type", "application/json")],
            requestBody: Array(
                #"{"client_secret":"\#(clientSecret)","key":{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"\#(privateKeyD)"},"d":"not a key"}"#
                    .utf8),
            status: 400,
            responseHeaders: [HeaderField("Content-Type", "application/json")],
            responseBody: Array(#"{"error":"invalid_client"}"#.utf8),
            timeMilliseconds: 4),
        RecordedExchange(
            source: .device, startedAtMilliseconds: 1_714_566_897_300, method: "GET",
            url: "https://cdn.example/avatar.png", status: 200,
            responseHeaders: [HeaderField("Content-Type", "image/png")],
            responseBody: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0xFE],
            timeMilliseconds: 2),
        RecordedExchange(
            source: .apple, startedAtMilliseconds: 1_714_566_897_400, method: "POST",
            url: "https://issuer.example/oauth/token",
            requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
            requestBody: Array("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
            error: "offline: the device has no network", timeMilliseconds: 0.25),
    ]
}
