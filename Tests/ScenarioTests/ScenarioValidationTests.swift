import Issuer
import Scenario
import TestSupport
import Testing

/// Validation before anything runs: every problem of a file, each at its place, with the known
/// name a near miss was probably meant to be.
@Suite struct ScenarioValidationTests {
    /// The problems `validate` reports: a tenant is read by the issuer's loader, as the CLI has it.
    func problems(_ text: String, file: String = "v.yaml") -> [ScenarioError] {
        do {
            _ = try ScenarioLoader.parse(Array(text.utf8), file: file, tenantCheck: TenantLoader.check)
            return []
        } catch {
            return error.problems
        }
    }

    @Test(
        "a name of a closed set that the tool does not know is refused where it is written",
        arguments: [
            ("profile: naiv\nsteps: [launch]", 2, 10, "did you mean \"naive\"?"),
            ("profile: naive+strict-clok\nsteps: [launch]", 2, 10, "did you mean \"strict-clock\"?"),
            (
                "steps:\n  - issuer: {fault: rp-made-up-fault}", 3, 21,
                "issuer.fault has no \"rp-made-up-fault\""
            ),
            ("steps:\n  - issuer: {fault: http-50}", 3, 21, "did you mean \"http-500\"?"),
            ("steps:\n  - signIn: {error: not_a_code}", 3, 21, "expected none or an SDK error code"),
            ("steps:\n  - signIn: {error: sesion_expired}", 3, 21, "did you mean \"session_expired\"?"),
            (
                "steps:\n  - getAccessToken: {error: [sesion_expired, none]}", 3, 30,
                "did you mean \"session_expired\"?"
            ),
            ("steps:\n  - expect: {error: sesion_expired}", 3, 21, "did you mean \"session_expired\"?"),
            ("steps:\n  - expect: {app_phase: sleeping}", 3, 25, "expect.app_phase has no \"sleeping\""),
            ("steps:\n  - expect: {app_phase: backgound}", 3, 25, "did you mean \"background\"?"),
            ("steps:\n  - expect: {issuer_refresh_tokens: revokd}", 3, 37, "did you mean \"revoked\"?"),
            ("steps:\n  - signin", 3, 5, "unknown step \"signin\"; did you mean \"signIn\"?"),
            (
                "steps:\n  - signIn: {usernme: bob}", 3, 14,
                "unknown key \"usernme\" in signIn; did you mean \"username\"?"
            ),
            ("steps:\n  - expect: {requests: {endpoint: tokn}}", 3, 35, "did you mean \"token\"?"),
            ("steps:\n  - issuer: {rotate_keys: ES257}", 3, 27, "did you mean \"ES256\"?"),
            ("steps:\n  - issuer: {user: {email: a@b.c, pasword: x}}", 3, 35, "did you mean \"password\"?"),
            ("steps:\n  - issuer: {user: {name: Kim}}", 3, 20, "email is required"),
            (
                "steps:\n  - signIn: {prompt: consnet}", 3, 22,
                "signIn.prompt has no \"consnet\"; did you mean \"consent\"?"
            ),
            ("steps:\n  - signIn: {prompt: login consnet}", 3, 22, "did you mean \"consent\"?"),
            ("steps:\n  - signIn: {prompt: omit login}", 3, 22, "omit sends no prompt and stands alone"),
            ("issuer: {prompt: selectaccount}\nsteps: [launch]", 2, 18, "did you mean \"select_account\"?"),
            ("apps: [{id: a, prompt: nnoe}]\nsteps: [launch]", 2, 24, "did you mean \"none\"?"),
            ("steps:\n  - wait: {sheet: presnted}", 3, 19, "did you mean \"presented\"?"),
            ("steps:\n  - signInWithApple: {scopes: [name, emial]}", 3, 38, "did you mean \"email\"?"),
            ("issuer: {tenant: {pages: javascipt}}\nsteps: [launch]", 2, 26, "did you mean \"javascript\"?"),
        ] as [(String, Int, Int, String)])
    func unknownNames(body: String, line: Int, column: Int, fragment: String) throws {
        let found = problems("name: v\n" + body)
        try #require(found.count == 1, "\(found)")
        #expect(
            found[0].location == SourceLocation(file: "v.yaml", line: line, column: column), "\(found[0])")
        #expect(found[0].message.contains(fragment), "\(found[0])")
        #expect(found[0].code == .invalid)
    }

    @Test("every problem of a file is reported, in file order")
    func everyProblem() {
        let found = problems(
            """
            name: v
            colour: blue
            steps:
              - signin
              - launch
              - issuer: {fault: http-50}
              - advance: ${WAIT}
              - expect: {app_phase: sleeping, session: maybe}
            """)
        #expect(
            found.map(\.location.line) == [2, 4, 6, 7, 8, 8],
            "\(found.map(\.description).joined(separator: "\n"))")
        #expect(found.map(\.location.column) == [1, 5, 21, 14, 25, 44])
        #expect(found[0].message.contains("unknown key \"colour\""))
        #expect(found[3].message.contains("undefined variable WAIT"))
    }

    @Test("a file of thousands of mistakes reports the first 200 and counts the rest")
    func boundedProblems() {
        let text = "name: v\nsteps:\n" + String(repeating: "  - lanch\n", count: 5000)
        let found = problems(text)
        #expect(found.count == 201)
        #expect(found.last?.message == "and 4800 more problems; fix these and check again")
    }

    @Test("the description of an error lists every problem, a line each")
    func description() {
        let found = problems("steps:\n  - signin\n  - lanch\n")
        do {
            _ = try ScenarioLoader.parse(Array("steps:\n  - signin\n  - lanch\n".utf8), file: "d.yaml")
            Issue.record("accepted")
        } catch {
            #expect(
                error.description
                    .split(separator: "\n").map { String($0.prefix(11)) } == [
                        "d.yaml:1:1:", "d.yaml:2:5:", "d.yaml:3:5:",
                    ],
                "\(error)")
        }
        #expect(found.count == 3)
    }

    @Test("problems of an included flow are reported with its file, after the scenario's")
    func problemsOfAFlow() throws {
        let directory = try TemporaryDirectory()
        let flow = try directory.write("steps:\n  - lanch\n  - issuer: {fault: nope}\n", named: "flow.yaml")
        let scenario = try directory.write(
            "name: f\nsteps:\n  - runFlow: flow.yaml\n  - signin\n", named: "f.yaml")
        do {
            _ = try ScenarioLoader.load(path: scenario)
            Issue.record("accepted")
        } catch {
            #expect(
                error.problems.map { "\($0.location.file == flow ? "flow" : "main"):\($0.location.line)" }
                    == ["main:4", "flow:2", "flow:3"], "\(error)")
        }
    }

    @Test("an app named in a step is checked against the apps, with a suggestion")
    func appNames() {
        let found = problems(
            "name: a\napps: [{id: com.example.app}, {id: com.example.other}]\nsteps:\n  - launch: {app: com.example.otter}\n"
        )
        #expect(
            found.count == 1 && found[0].message.contains("did you mean \"com.example.other\"?"), "\(found)")
    }
}
