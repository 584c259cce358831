import JOSE
import Testing

@Suite("at_hash and c_hash")
struct HashClaimTests {
    /// The examples of OpenID Connect Core 1.0 Appendix A (RS256): the `id_token token`
    /// response's `at_hash`, and the `code id_token` response's `c_hash`.
    @Test("OpenID Connect Core Appendix A examples")
    func coreExamples() throws {
        #expect(
            try HashClaim.leftHalfHash(of: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: "RS256")
                == "77QmUPtjPfzWtF2AnpK9RQ")
        #expect(
            try HashClaim.leftHalfHash(
                of: "Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk", algorithm: "RS256")
                == "LDktKdoQak3Pk0cnXxCltA")
    }

    /// The hash follows the size the `alg` names. Values from the README of panva's
    /// `oidc-token-hash` (npm), checked with Python:
    /// `base64.urlsafe_b64encode(hashlib.sha384(t).digest()[:24]).rstrip(b"=")` (`[:32]` for
    /// SHA-512, `[:16]` for SHA-256).
    @Test(
        "SHA-256, SHA-384 and SHA-512 by alg",
        arguments: [
            ("ES256", "x7vk7f6BvQj0jQHYFIk4ag"), ("PS256", "x7vk7f6BvQj0jQHYFIk4ag"),
            ("HS256", "x7vk7f6BvQj0jQHYFIk4ag"), ("RS384", "ups_76_7CCye_J1WIyGHKVG7AAs2olYm"),
            ("ES384", "ups_76_7CCye_J1WIyGHKVG7AAs2olYm"),
            ("PS512", "EGEAhGYyfuwDaVTifvrWSoD5MSy_5hZPy6I7Vm-7pTQ"),
            ("HS512", "EGEAhGYyfuwDaVTifvrWSoD5MSy_5hZPy6I7Vm-7pTQ"),
        ])
    func bySize(algorithm: String, expected: String) throws {
        let token =
            "YmJiZTAwYmYtMzgyOC00NzhkLTkyOTItNjJjNDM3MGYzOWIy9sFhvH8K_x8UIHj1osisS57f5DduL-ar_qw5jl3lthwpMjm283aVMQXDmoqqqydDSqJfbhptzw8rUVwkuQbolw"
        #expect(try HashClaim.leftHalfHash(of: token, algorithm: algorithm) == expected)
    }

    /// An `alg` that names no hash size is refused rather than guessed.
    @Test(
        "no hash for none, EdDSA or an unknown alg",
        arguments: ["none", "EdDSA", "ES256K", "RS1", "", "es256"])
    func refused(algorithm: String) {
        let error = #expect(throws: JOSEError.self) {
            _ = try HashClaim.leftHalfHash(of: "token", algorithm: algorithm)
        }
        #expect(error?.code == .unsupportedAlgorithm)
    }
}
