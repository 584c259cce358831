import Device
import Foundation
import Issuer
import JSON
import Scenario
import SignInSDK
import TestSupport
import Testing
import WorldVocabulary

/// The scenario format: what parses, and that every refusal names its file, line and column.
@Suite struct ScenarioLoaderTests {
    func parse(_ text: String, file: String = "s.yaml", overrides: [String: String] = [:])
        throws(ScenarioError)
        -> Scenario
    {
        try ScenarioLoader.parse(Array(text.utf8), file: file, overrides: overrides)
    }

    func error(_ text: String, overrides: [String: String] = [:]) -> ScenarioError? {
        do {
            _ = try parse(text, overrides: overrides)
            return nil
        } catch {
            return error
        }
    }

    @Test("a full header and every kind of step")
    func fullScenario() throws {
        let scenario = try parse(
            """
            name: everything
            description: what it proves
            tags: [smoke, web]
            seed: 42
            timeout: 2m
            env: {USER: bob@example.com}
            issuer: {url: embedded, tenant: {users: []}}
            device: {skew: -5m, passcode: false, apple_account: {email: kim@example.com, given_name: Kim}}
            apps:
              - {id: com.example.app, profile: naive, shared_session: true}
              - {id: com.other.app, dpop: true, post_logout_redirect_uri: "com.other.app://auth/logout"}
            steps:
              - launch
              - prewarm: {app: com.other.app}
              - reboot
              - advance: 1h
              - network: {offline: true, fail_next: {count: 2, path: /oauth/token}, status: {code: 503, count: 1}}
              - appleAccount: {email: kim@example.com, private_relay: true}
              - issuer: {fault: rp-id_token-aud, count: 2}
              - signIn: {username: "${USER}", fill: {otp: "123456"}, consent: deny, error: authorization_denied}
              - getAccessToken: {force: true}
              - signOut: {end_session: false}
              - signInWithApple: {scopes: [email], nonce: n-1}
              - handleRedirect: "com.example.app://auth/callback?code=x&state=y"
              - parallel: [getAccessToken, getAccessToken]
              - expect:
                  session: present
                  claims: {email: bob@example.com, nonce: present}
                  requests: [{path: /oauth/token, params: {grant_type: refresh_token}, count: 2}]
                  keychain: 1
            """)
        #expect(scenario.name == "everything")
        #expect(scenario.tags == ["smoke", "web"])
        #expect(scenario.seed == 42)
        #expect(scenario.timeLimitSeconds == 120)
        #expect(scenario.device.skewSeconds == -300)
        #expect(scenario.device.hasPasscode == false)
        #expect(scenario.device.appleAccount?.givenName == "Kim")
        #expect(scenario.apps.map(\.bundleID) == ["com.example.app", "com.other.app"])
        #expect(scenario.apps[1].clientID == "com.other.app")
        #expect(scenario.apps[1].redirectURI == "com.other.app://auth/callback")
        #expect(
            scenario.apps[0].profile == BehaviorProfile(refreshStrategy: .naive)
                && scenario.apps[0].sharedSession)
        #expect(scenario.apps[1].usesDPoP)
        #expect(scenario.apps[0].postLogoutRedirectURI == nil)
        #expect(scenario.apps[1].postLogoutRedirectURI == "com.other.app://auth/logout")
        #expect(scenario.issuer.isEmbedded)
        #expect(scenario.steps.count == 14)
        #expect(scenario.steps[0].location == SourceLocation(file: "s.yaml", line: 13, column: 5))
        #expect(scenario.steps[3].action == .world(.advance(seconds: 3600)))
        guard case .sdk(.signIn(let arguments), _, let expected) = scenario.steps[7].action else {
            Issue.record("step 8 is \(scenario.steps[7].action)")
            return
        }
        let user = arguments.user
        #expect(user.username == "bob@example.com")
        #expect(user.fields == [FieldValue("otp", "123456")])
        #expect(user.consent == .deny)
        #expect(expected == [.failure(.authorizationDenied)])
        guard case .flow(.expect(let checks)) = scenario.steps[13].action else {
            Issue.record("step 14 is \(scenario.steps[13].action)")
            return
        }
        #expect(checks.count == 4)
        #expect(
            checks[1].kind
                == .claims(["email": .equals(.string("bob@example.com")), "nonce": .present], app: nil))
        #expect(checks[2].location.line == 29)
    }

    @Test("JSON files are scenarios too")
    func json() throws {
        let scenario = try parse(#"{"name": "json", "steps": ["launch", {"advance": 60}]}"#, file: "s.json")
        #expect(scenario.steps.map(\.name) == ["launch", "advance"])
    }

    @Test(
        "refusals carry file, line, column and what was expected",
        arguments: [
            ("name: x\nsteps: [launch]\nextra: 1", 3, 1, "unknown key \"extra\" in the scenario"),
            ("steps: [launch]", 1, 1, "no name"),
            ("name: x", 1, 1, "no steps"),
            ("name: x\nsteps: []", 2, 8, "steps is empty"),
            ("name: x\nsteps:\n  - jump", 3, 5, "unknown step \"jump\""),
            ("name: x\nsteps:\n  - signIn: {pasword: p}", 3, 14, "unknown key \"pasword\" in signIn"),
            ("name: x\nsteps:\n  - advance: soon", 3, 14, "advance must be seconds"),
            ("name: x\nsteps:\n  - advance: 5y", 3, 14, "unknown unit"),
            ("name: x\nsteps:\n  - {launch: null, signIn: null}", 3, 5, "exactly one key"),
            ("name: x\nsteps:\n  - launch: {app: com.nope}", 3, 19, "no app com.nope"),
            ("name: x\nsteps:\n  - signIn: {consent: maybe}", 3, 23, "expected one of: approve, deny"),
            (
                "name: x\nsteps:\n  - signIn: {cancel: halfway}", 3, 22,
                "expected one of: before_load, login, consent"
            ),
            ("name: x\nsteps:\n  - parallel: [launch]", 3, 15, "at least two"),
            ("name: x\nsteps:\n  - network: {status: {count: 2}}", 3, 23, "needs a code"),
            ("name: x\nsteps:\n  - issuer: {}", 3, 13, "one action"),
            ("name: x\nsteps:\n  - expect: {session: maybe}", 3, 23, "expected one of: present, absent"),
            ("name: x\nsteps:\n  - expect: {keychain: -1}", 3, 24, "from 0"),
            ("name: x\nseed: -3\nsteps: [launch]", 2, 7, "seed must be"),
            ("name: x\nissuer: ftp://x\nsteps: [launch]", 2, 9, "embedded or an http(s) URL"),
            (
                "name: x\nissuer: {url: 'https://i.example', tenant: {}}\nsteps: [launch]", 2, 44,
                "embedded issuer only"
            ),
            ("name: x\napps: [{id: a}, {id: a}]\nsteps: [launch]", 2, 17, "two apps"),
            ("name: x\nsteps:\n  - signIn: {username: '${WHO}'}", 3, 24, "undefined variable WHO"),
            ("name: x\nsteps:\n  - signIn: {username: '${WHO'}", 3, 24, "without a closing"),
            ("name: [x\nsteps: []", 2, 6, "expected"),
        ])
    func refusals(text: String, line: Int, column: Int, fragment: String) {
        guard let error = error(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(error.location.file == "s.yaml")
        #expect((error.location.line, error.location.column) == (line, column), "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
    }

    @Test("syntax errors are told apart from invalid scenarios")
    func syntaxErrors() {
        #expect(error("name: [x\nsteps: []")?.code == .syntax)
        #expect(error("name: x\nsteps: []")?.code == .invalid)
        #expect(error("")?.code == .invalid)
    }

    @Test("env, defaults and -e overrides")
    func variables() throws {
        let text = """
            name: "${GREETING} world"
            env: {GREETING: hello, COUNT: 3}
            steps:
              - network: {fail_next: "${COUNT}"}
              - signIn: {username: "${WHO:-alice@example.com}"}
            """
        let plain = try parse(text)
        #expect(plain.name == "hello world")
        #expect(plain.steps[0].action == .world(.network(Self.failing(3))))
        let overridden = try parse(
            text, overrides: ["GREETING": "goodbye", "COUNT": "7", "WHO": "bob@example.com"])
        #expect(overridden.name == "goodbye world")
        #expect(overridden.env["WHO"] == "bob@example.com")
        #expect(overridden.steps[0].action == .world(.network(Self.failing(7))))
        guard case .sdk(.signIn(let arguments), _, _) = overridden.steps[1].action else {
            Issue.record("not a signIn")
            return
        }
        let user = arguments.user
        #expect(user.username == "bob@example.com")
    }

    @Test("issuer clock: advance or offset, one of them")
    func issuerClock() throws {
        let scenario = try parse(
            """
            name: clock
            steps:
              - issuer: {clock: {advance: 2h}}
              - issuer: {clock: {offset: -30}}
            """)
        #expect(
            scenario.steps.map(\.action) == [
                .world(.issuer(.clock(.advance(seconds: 7200)))),
                .world(.issuer(.clock(.offset(seconds: -30)))),
            ])
        for bad in [
            "{clock: {}}", "{clock: {advance: 1h, offset: 2h}}", "{clock: {advance: -1h}}",
            "{clock: {at: 1}}",
        ] {
            #expect(throws: ScenarioError.self) { try parse("name: x\nsteps:\n  - issuer: \(bad)") }
        }
    }

    /// Issue 27: durations that would overflow a clock when applied (an advance of 2^62 s, a
    /// skew of Int64.max), a negative advance (the world cannot go back) and a timeout no sleep
    /// can hold were accepted and trapped at run time. They are refused where they are written.
    @Test("durations out of range are refused at their place")
    func durationsOutOfRange() throws {
        let cases: [(text: String, message: String)] = [
            ("steps:\n  - advance: 4611686018427387904", "advance must be at most 315537897599 s either way"),
            ("steps:\n  - advance: -1m", "advance must not be negative"),
            ("steps:\n  - skew: 9223372036854775807", "skew must be at most"),
            ("steps:\n  - skew: -3652500d", "skew must be at most"),
            (
                "steps:\n  - issuer: {clock: {offset: 9223372036854775807}}",
                "issuer.clock.offset must be at most"
            ),
            (
                "steps:\n  - issuer: {clock: {advance: 4611686018427387904}}",
                "issuer.clock.advance must be at most"
            ),
            ("device: {skew: -9223372036854775808}\nsteps: [launch]", "device.skew must be at most"),
            ("apps: [{leeway: 9223372036854775807}]\nsteps: [launch]", "leeway must be at most"),
            ("timeout: 9223372036854775807\nsteps: [launch]", "timeout must be at most"),
            ("timeout: 367d\nsteps: [launch]", "timeout must be at most 31622400 s"),
        ]
        for (text, message) in cases {
            let refused = error("name: x\n" + text)
            #expect(refused?.message.contains(message) == true, "\(text): \(String(describing: refused))")
        }
        let longest = try parse("name: x\ntimeout: 366d\nsteps:\n  - advance: 3652058d\n  - skew: -3652058d")
        #expect(longest.timeLimitSeconds == 31_622_400)
        #expect(
            longest.steps.map(\.action) == [
                .world(.advance(seconds: 315_537_811_200)), .world(.skew(seconds: -315_537_811_200)),
            ])
    }

    @Test("an app's leeway: a duration, not negative, unset by default")
    func appLeeway() throws {
        let scenario = try parse(
            """
            name: leeway
            apps:
              - {id: com.example.app, profile: appauth-clock, leeway: 90s}
              - {id: com.other.app, leeway: 0}
              - {id: com.third.app}
            steps: [launch]
            """)
        #expect(scenario.apps.map(\.leeway) == [90, 0, nil])
        let negative = error("name: x\napps: [{leeway: -1m}]\nsteps: [launch]")
        #expect(negative?.message.contains("leeway must not be negative") == true)
        let huge = error("name: x\napps: [{leeway: 999999999999999999d}]\nsteps: [launch]")
        #expect(huge?.message.contains("too large") == true)
        #expect(error("name: x\napps: [{leeway: soon}]\nsteps: [launch]") != nil)
    }

    @Test("network resend: a count or {count, path}")
    func resend() throws {
        let scenario = try parse(
            """
            name: resend
            steps:
              - network: {resend: {count: 2, path: /userinfo}}
              - network: {resend: 1}
            """)
        var both = NetworkChange()
        both.resendRequests = ArmedRequests(count: 2, path: "/userinfo")
        var one = NetworkChange()
        one.resendRequests = ArmedRequests(count: 1)
        #expect(scenario.steps.map(\.action) == [.world(.network(both)), .world(.network(one))])
        #expect(throws: ScenarioError.self) { try parse("name: x\nsteps:\n  - network: {resend: 0}") }
    }

    static func failing(_ count: Int) -> NetworkChange {
        var change = NetworkChange()
        change.failNext = ArmedRequests(count: count)
        return change
    }

    @Test("runFlow inlines a file with its env and honours when")
    func includes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(
            """
            env: {WHO: alice@example.com}
            steps:
              - signIn: {username: "${WHO}"}
            """, named: "login.yaml")
        let main = try directory.write(
            """
            name: includes
            env: {PLATFORM: ios}
            steps:
              - runFlow: login.yaml
              - runFlow: {file: login.yaml, env: {WHO: bob@example.com}}
              - runFlow: {file: login.yaml, when: "${PLATFORM} == android"}
              - runFlow: {file: login.yaml, when: "${PLATFORM} != android"}
            """, named: "main.yaml")
        let scenario = try ScenarioLoader.load(path: main)
        #expect(scenario.steps.count == 3)
        let users = scenario.steps.compactMap { step -> String? in
            guard case .flow(.include(_, let inner)) = step.action,
                case .sdk(.signIn(let arguments), _, _) = inner[0].action
            else { return nil }
            return arguments.user.username
        }
        #expect(users == ["alice@example.com", "bob@example.com", "alice@example.com"])
        guard case .flow(.include(let file, let inner)) = scenario.steps[0].action else { return }
        #expect(file.hasSuffix("/login.yaml"))
        #expect(inner[0].location.file == file && inner[0].location.line == 3)
    }

    @Test("include cycles and missing includes are refused at the runFlow")
    func includeErrors() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("steps:\n  - runFlow: b.yaml\n", named: "a.yaml")
        _ = try directory.write("steps:\n  - runFlow: a.yaml\n", named: "b.yaml")
        let cyclic = try directory.write("name: c\nsteps:\n  - runFlow: a.yaml\n", named: "c.yaml")
        #expect(throws: ScenarioError.self) { try ScenarioLoader.load(path: cyclic) }
        do {
            _ = try ScenarioLoader.load(path: cyclic)
        } catch {
            #expect(error.message.contains("cycle"), "\(error)")
        }
        let missing = try directory.write("name: m\nsteps:\n  - runFlow: nowhere.yaml\n", named: "m.yaml")
        do {
            _ = try ScenarioLoader.load(path: missing)
            Issue.record("a missing include was accepted")
        } catch {
            #expect(error.code == .unreadable)
            #expect(error.location.file == missing && error.location.line == 3 && error.location.column == 14)
        }
        let broken = try directory.write("steps:\n  - signIn: {x: 1}\n", named: "broken.yaml")
        let including = try directory.write("name: i\nsteps:\n  - runFlow: broken.yaml\n", named: "i.yaml")
        do {
            _ = try ScenarioLoader.load(path: including)
            Issue.record("a broken include was accepted")
        } catch {
            #expect(error.location.file == broken && error.location.line == 2, "\(error)")
        }
    }

    @Test("files that cannot be read")
    func unreadable() throws {
        do {
            _ = try ScenarioLoader.load(path: "/nonexistent/scenario.yaml")
            Issue.record("accepted a missing file")
        } catch {
            #expect(error.code == .unreadable)
            #expect(error.message.contains("does not exist"))
        }
        let directory = try TemporaryDirectory()
        let binary = try directory.file(named: "binary.yaml")
        try Data([0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0xff, 0xfe]).write(to: binary)
        #expect(throws: ScenarioError.self) { try ScenarioLoader.load(path: binary.path) }
    }

    /// The Sign in with Apple lifecycle: `appleCredential` takes one of Apple's four states
    /// (`team` only with `transferred`), `getCredentialState` the state it must return, and
    /// `expect: {apple_credential}` all four states.
    @Test("Apple credential steps and checks")
    func appleCredentialSteps() throws {
        let scenario = try parse(
            """
            name: apple
            steps:
              - appleCredential: {state: authorized}
              - appleCredential: {state: revoked, app: com.example.app}
              - appleCredential: {state: notFound}
              - appleCredential: {state: transferred}
              - appleCredential: {state: transferred, team: TEAM000002}
              - getCredentialState
              - getCredentialState: {state: transferred, error: [none, no_session]}
              - expect: {apple_credential: transferred}
            """)
        let changes: [WorldChange] = [
            .appleCredential(.authorized, app: nil), .appleCredential(.revoked, app: "com.example.app"),
            .appleCredential(.notFound, app: nil), .appleCredential(.transferred(team: nil), app: nil),
            .appleCredential(.transferred(team: "TEAM000002"), app: nil),
        ]
        #expect(
            scenario.steps.map(\.action) == changes.map(StepAction.world) + [
                .sdk(.getCredentialState(expected: nil), app: nil, expectedOutcomes: nil),
                .sdk(
                    .getCredentialState(expected: .transferred), app: nil,
                    expectedOutcomes: [.success, .failure(.noSession)]),
            ] + [scenario.steps[7].action])
        guard case .flow(.expect(let checks)) = scenario.steps[7].action else {
            Issue.record("step 8 is \(scenario.steps[7].action)")
            return
        }
        #expect(checks.map(\.kind) == [.appleCredential(.transferred, app: nil)])
        #expect(
            [AppleCredentialChange.authorized, .revoked, .notFound, .transferred(team: "T")].map(\.state)
                == AppleIDCredentialState.allCases)
        // Written back and read again, the steps are the same (a team only when one was named).
        let yaml = ScenarioYAML.render(ScenarioEncoder.document(scenario))
        #expect(!yaml.contains("team: null"))
        let read = try ScenarioLoader.parse(Array(yaml.utf8), file: "s.yaml", substitutes: false)
        #expect(read.steps.dropLast().map(\.action) == scenario.steps.dropLast().map(\.action))
    }

    @Test(
        "Apple credential refusals",
        arguments: [
            ("name: x\nsteps:\n  - appleCredential", 3, 5, "needs a state"),
            ("name: x\nsteps:\n  - appleCredential: {team: T}", 3, 22, "needs a state"),
            (
                "name: x\nsteps:\n  - appleCredential: {state: gone}", 3, 30,
                "expected one of: authorized, revoked, notFound, transferred"
            ),
            (
                "name: x\nsteps:\n  - appleCredential: {state: revoked, team: T}", 3, 45,
                "goes with state: transferred"
            ),
            ("name: x\nsteps:\n  - appleCredential: {state: transferred, team: ''}", 3, 49, "team is empty"),
            (
                "name: x\nsteps:\n  - getCredentialState: {state: Revoked}", 3, 33,
                "getCredentialState.state has no \"Revoked\"; did you mean \"revoked\"?"
            ),
            (
                "name: x\nsteps:\n  - expect: {apple_credential: gone}", 3, 32,
                "expect.apple_credential has no \"gone\""
            ),
        ])
    func appleCredentialRefusals(text: String, line: Int, column: Int, fragment: String) {
        guard let error = error(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect((error.location.line, error.location.column) == (line, column), "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
    }
}

/// The schema editors use stays the one the CLI prints, and names every step and check.
@Suite struct ScenarioSchemaTests {
    static let checkedIn = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scenarios/scenario.schema.json").standardized

    @Test("the checked-in schema is the one signinsim schema prints")
    func identical() throws {
        let file = try String(contentsOf: Self.checkedIn, encoding: .utf8)
        #expect(file == ScenarioSchema.json)
    }

    @Test("every $ref of the schema names a definition it has")
    func references() throws {
        let schema = try JSONValue.parse(Array(ScenarioSchema.json.utf8))
        let definitions = Set(schema["$defs"]?.objectValue?.keys ?? [:].keys)
        var references: [String] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if let target = members["$ref"]?.stringValue { references.append(target) }
                members.values.forEach(collect)
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        collect(schema)
        #expect(references.count > 100)
        for target in Set(references) {
            #expect(
                target.hasPrefix("#/$defs/") && definitions.contains(String(target.dropFirst(8))), "\(target)"
            )
        }
    }

    @Test("the closed sets of the schema are the loader's declarations")
    func closedSets() throws {
        let schema = try JSONValue.parse(Array(ScenarioSchema.json.utf8))
        func names(_ definition: String) -> [String] {
            let alternatives = schema["$defs"]?[definition]?["anyOf"]?.arrayValue ?? []
            return alternatives.compactMap { $0["enum"]?.arrayValue }.first?.compactMap(\.stringValue) ?? []
        }
        #expect(names("fault") == IssuerFault.allCases.map(\.rawValue))
        #expect(names("appPhase") == AppPhase.allCases.map(\.rawValue))
        #expect(names("lastError") == ["none"] + SignInError.Code.allCases.map(\.rawValue))
        #expect(names("callOutcome") == names("lastError") + ["consent_refusal_ignored"])
        let profile = schema["$defs"]?["profile"]?["anyOf"]?.arrayValue?.first?["pattern"]?.stringValue ?? ""
        for name in BehaviorProfile.names {
            #expect(profile.contains(name), "\(name)")
        }
        #expect(schema["anyOf"]?.arrayValue?.count == 2, "a scenario or a flow")
    }

    @Test("every step the loader knows is in the schema")
    func steps() throws {
        let schema = try JSONValue.parse(Array(ScenarioSchema.json.utf8))
        let alternatives = schema["$defs"]?["step"]?["anyOf"]?.arrayValue ?? []
        var names = Set<String>()
        for alternative in alternatives {
            for form in alternative["anyOf"]?.arrayValue ?? [alternative] {
                if let name = form["const"]?.stringValue { names.insert(name) }
                for key in form["properties"]?.objectValue?.keys ?? [:].keys { names.insert(key) }
            }
        }
        // The schema is made from the declarations: every step of `StepKind.allCases`, no other.
        let declared = StepKind.allCases.map(\.name)
        #expect(names == Set(declared))
        #expect(Set(declared).count == declared.count, "a step name is declared twice")
        // A step written as its name alone parses unless its declaration requires arguments.
        for kind in StepKind.allCases {
            let bare = Array("name: x\nsteps: [\(kind.name)]".utf8)
            if case .required = kind.signature.form {
                #expect(throws: ScenarioError.self, "\(kind.name) requires arguments") {
                    try ScenarioLoader.parse(bare, file: "s.yaml")
                }
            } else {
                // Decoded as the declared step, and written back under its name.
                let step = try #require(try ScenarioLoader.parse(bare, file: "s.yaml").steps.first)
                #expect(step.action.kind == kind)
                let written = ScenarioEncoder.step(step)
                #expect(written == .string(kind.name) || written.objectValue?.keys.first == kind.name)
            }
        }
    }
}
