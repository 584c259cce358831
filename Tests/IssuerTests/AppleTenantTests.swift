import Cryptography
import Foundation
import Issuer
import TestSupport
import Testing
import WorldVocabulary

/// The Apple connection's keys in tenant files.
@Suite("Tenant files: Apple connection")
struct AppleTenantTests {
    static func load(_ text: String) throws -> Tenant {
        try TenantLoader.load(bytes: Array(text.utf8), fileName: "tenant.yaml")
    }

    static func apple(_ tenant: Tenant) -> AppleConnectionSettings? {
        tenant.connections.first { $0.name == "apple" }?.apple
    }

    /// Every key is read; the default tenant's connection has the defaults.
    @Test("apple keys are read")
    func keys() throws {
        #expect(Self.apple(.default) == AppleConnectionSettings())
        #expect(Self.apple(.default)?.bundleIDs == ["com.example.app"])
        let pem = try P256PrivateKey(random: SeededRandom(seed: 5)).pemRepresentation()
        let indented = pem.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n")
        let tenant = try Self.load(
            """
            connections:
              - name: apple
                kind: apple
                apple_url: https://appleid.apple.com/
                team_id: TEAM123456
                key_id: KEY1234567
                private_key_pem: |
            \(indented)
                bundle_ids: [com.example.app, com.example.app.watch]
                reject_nonce: true
                accept_authorization_codes: false
                refuse_unlinked_accounts: true
            """)
        let settings = try #require(Self.apple(tenant))
        #expect(settings.appleURL == "https://appleid.apple.com")
        #expect(settings.teamID == "TEAM123456")
        #expect(settings.keyID == "KEY1234567")
        #expect(settings.privateKeyPEM?.hasPrefix("-----BEGIN") == true)
        #expect(settings.bundleIDs == ["com.example.app", "com.example.app.watch"])
        #expect(settings.rejectNonce)
        #expect(!settings.acceptsAuthorizationCodes)
        #expect(settings.refusesUnlinkedAccounts)
        #expect(!AppleConnectionSettings().refusesUnlinkedAccounts)
        #expect(AppleConnectionSettings().acceptsAuthorizationCodes)
    }

    /// private_key_file is read relative to the tenant file.
    @Test("private_key_file")
    func keyFile() throws {
        let directory = TemporaryDirectory.shared
        let pem = try P256PrivateKey(random: SeededRandom(seed: 6)).pemRepresentation()
        _ = try directory.write(pem, named: "AuthKey_KEYFILE001.p8")
        let path = try directory.write(
            """
            connections:
              - {name: apple, kind: apple, team_id: T1, key_id: KEYFILE001, private_key_file: AuthKey_KEYFILE001.p8}
            """, named: "apple-key-file.yaml")
        let tenant = try TenantLoader.load(path: path)
        #expect(Self.apple(tenant)?.privateKeyPEM == pem)
        #expect(Self.apple(tenant)?.appleURL == nil)
    }

    /// Refusals name the line and column.
    @Test(
        "refusals",
        arguments: [
            (
                "connections:\n  - {name: apple, kind: apple, apple_url: \"http://apple.example\"}\n", 2,
                "must be an https URL"
            ),
            (
                "connections:\n  - name: apple\n    kind: apple\n    apple_url: https://a.example\n", 4,
                "apple_url needs team_id"
            ),
            (
                "connections:\n  - name: apple\n    kind: apple\n    team_id: T\n", 2,
                "together, or none of them"
            ),
            (
                "connections:\n  - name: apple\n    kind: apple\n    team_id: T\n    key_id: K\n    private_key_pem: nope\n",
                6, "private_key_pem is not a P-256 private key"
            ),
            ("connections:\n  - {name: apple, kind: apple, bundle_ids: []}\n", 2, "at least one bundle id"),
            (
                "connections:\n  - name: apple\n    kind: apple\n    bundle_ids: [\"com.example/app\"]\n", 4,
                "letters, digits"
            ),
            (
                "connections:\n  - name: apple\n    kind: apple\n    reject_nonce: maybe\n", 4,
                "reject_nonce must be true or false"
            ),
            (
                "connections:\n  - name: p\n    kind: openid\n    team_id: T\n", 4,
                "team_id applies only to connections of kind apple"
            ),
            (
                "connections:\n  - name: apple\n    kind: apple\n    private_key_file: missing.p8\n    team_id: T\n    key_id: K\n",
                4, "cannot use private_key_file"
            ),
        ])
    func refusals(text: String, line: Int, message: String) throws {
        let error = try #require(throws: TenantError.self) { try Self.load(text) }
        #expect(error.line == line, "\(error)")
        #expect(error.message.contains(message), "\(error)")
    }
}
