import JSON
import Testing

@testable import Scenario

/// A field is one declaration: its shape, its read and its writing come from it, and a field
/// whose read or writing is lost is caught by the round trip of `StepCodecTests`.
@Suite struct StepFieldsTests {
    /// `network` declared by its own fields, with `offline` written by `offline` and read by
    /// `latency` instead of theirs.
    static func network(offline: StepField<NetworkChange>?, latency: StepField<NetworkChange>?) -> StepCodec {
        let fields = NetworkChange.fields.fields.map { field in
            switch field.key {
            case "offline": offline ?? field
            case "latency_ms": latency ?? field
            default: field
            }
        }
        return .fields(
            "network", summary: nil, needs: "conditions", StepFields(fields), from: NetworkChange(),
            action: { .world(.network($0)) },
            root: { action in
                guard case .world(.network(let change)) = action else { return nil }
                return change
            })
    }

    @Test("a field whose writing or reading is dropped fails the round trip")
    func droppedField() throws {
        let declared = NetworkChange.fields.fields
        let offline = try #require(declared.first { $0.key == "offline" })
        let latency = try #require(declared.first { $0.key == "latency_ms" })
        #expect(FieldRoundTrip(Self.network(offline: nil, latency: nil)).failures() == [])
        let unwritten = StepField<NetworkChange>(offline.argument, decode: offline.decode) { _ in nil }
        let unread = StepField<NetworkChange>(
            latency.argument, decode: { _, _, _ in }, encode: latency.encode)
        #expect(
            FieldRoundTrip(Self.network(offline: unwritten, latency: unread)).failures() == [
                "offline", "latency_ms",
            ])
    }

    @Test("an integer's range is the schema's minimum and maximum and the loader's check")
    func integerRange() throws {
        let field = StepField<NetworkChange>.integer("latency_ms", \.latencyMilliseconds, range: 0...600_000)
        #expect(field.argument.shape.schema == ["type": "integer", "minimum": 0, "maximum": 600_000])
        let check = FieldRoundTrip(StepKind.world(.network).codec)
        #expect(check.read(["latency_ms": 600_000]) != nil)
        #expect(check.read(["latency_ms": 600_001]) == nil)
        #expect(check.read(["latency_ms": -1]) == nil)
    }

    @Test("a key that must be given is one the schema requires, and its absence is refused")
    func requiredKey() {
        let email = AppleAccountSetup.fields.fields.first { $0.key == "email" }
        #expect(email?.argument.required == true)
        let check = FieldRoundTrip(StepKind.world(.appleCredential).codec)
        #expect(check.read(["team": "T"]) == nil)
        #expect(check.read(["state": "revoked"]) == .world(.appleCredential(.revoked, app: nil)))
    }

    @Test("the rules between keys are kept beside the fields")
    func rulesBetweenKeys() throws {
        let signIn = FieldRoundTrip(StepKind.sdk(.signIn).codec)
        #expect(signIn.read(["cancel": "login", "abandon": "consent"]) == nil)
        let abandon = try #require(signIn.read(["abandon": "consent"]))
        #expect(signIn.written(abandon) == ["abandon": "consent"])
        let redirect = FieldRoundTrip(StepKind.sdk(.handleRedirect).codec)
        #expect(redirect.read(["url": .null]) == nil)
        #expect(redirect.read(["app": .string(FieldRoundTrip.app)]) == nil)
        #expect(
            redirect.read(["url": "x://cb"])
                == .sdk(.handleRedirect(url: "x://cb"), app: nil, expectedOutcomes: nil))
        let wait = FieldRoundTrip(StepKind.flow(.wait).codec)
        #expect(wait.read(["sheet": "closed", "requests": ["count": 2]]) == nil)
        #expect(wait.read(["app": .string(FieldRoundTrip.app)]) == nil)
        let credential = FieldRoundTrip(StepKind.world(.appleCredential).codec)
        #expect(credential.read(["state": "revoked", "team": "T"]) == nil)
        #expect(credential.read(["state": "transferred", "team": ""]) == nil)
        #expect(
            credential.read(["state": "transferred", "team": "T"])
                == .world(.appleCredential(.transferred(team: "T"), app: nil)))
    }
}
