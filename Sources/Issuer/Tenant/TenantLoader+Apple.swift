import Cryptography
import HTTPCore
import WorldVocabulary
import YAML

/// The keys of a connection of kind `apple` (docs/issuer.md, "Tenant files"):
///
///     - name: apple
///       kind: apple
///       apple_url: https://appleid.apple.com   # where /auth/token and /auth/keys are
///       team_id: ABCDE12345                    # with key_id and the key, or none of the three
///       key_id: KEY1234567
///       private_key_file: AuthKey_KEY1234567.p8  # or private_key_pem: "-----BEGIN PRIVATE KEY-----…"
///       bundle_ids: [com.example.app]
///       reject_nonce: false
///       accept_authorization_codes: true       # false: identity tokens only (field bug 13)
///       refuse_unlinked_accounts: false        # true: a new Apple user with a taken email is refused
extension TenantDecoder {
    /// Largest developer key file read, in bytes (a P-256 PEM is about 250).
    static let maximumKeyFileSize = 64 * 1024

    func appleSettings(_ fields: TenantFields) throws(TenantError) -> AppleConnectionSettings {
        var settings = AppleConnectionSettings()
        if let node = fields["apple_url"] {
            var url = try nonEmptyString(node, "apple_url")
            guard let parts = URLParts(url), parts.host != nil,
                parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback)
            else {
                throw failure(
                    "apple_url \"\(url.prefix(200))\" must be an https URL (http only for loopback)",
                    at: node.mark)
            }
            while url.hasSuffix("/") { url.removeLast() }
            settings.appleURL = url
        }
        if let node = fields["team_id"] { settings.teamID = try nonEmptyString(node, "team_id") }
        if let node = fields["key_id"] { settings.keyID = try nonEmptyString(node, "key_id") }
        switch (
            fields.mapping.pair(forKey: "private_key_pem"), fields.mapping.pair(forKey: "private_key_file")
        ) {
        case (let inline?, nil):
            let pem = try nonEmptyString(inline.value, "private_key_pem")
            try checkDeveloperKey(pem, at: inline.value.mark, source: "private_key_pem")
            settings.privateKeyPEM = pem
        case (nil, let file?):
            settings.privateKeyPEM = try developerKey(file: file.value)
        case (_?, let file?):
            throw failure("give private_key_pem or private_key_file, not both", at: file.key.mark)
        case (nil, nil):
            break
        }
        let credentials = [settings.teamID, settings.keyID, settings.privateKeyPEM]
        if credentials.contains(where: { $0 != nil }) && credentials.contains(where: { $0 == nil }) {
            throw failure(
                "an apple connection needs team_id, key_id and private_key_pem (or private_key_file) "
                    + "together, or none of them", at: fields.mark)
        }
        if let pair = fields.mapping.pair(forKey: "apple_url"), !settings.hasCredentials {
            throw failure(
                "apple_url needs team_id, key_id and private_key_pem (or private_key_file): "
                    + "the client secret of Apple's token endpoint is signed with them", at: pair.key.mark)
        }
        if let node = fields["bundle_ids"] {
            let listed = try strings(node, "bundle_ids")
            guard !listed.isEmpty else {
                throw failure("bundle_ids must list at least one bundle id", at: node.mark)
            }
            for (bundleID, item) in listed where !Self.isPlausibleBundleID(bundleID) {
                throw failure(
                    "bundle id \"\(bundleID.prefix(200))\" may only have letters, digits, '.' and '-' "
                        + "(at most 155 characters)", at: item.mark)
            }
            settings.bundleIDs = listed.map(\.value)
        }
        if let node = fields["reject_nonce"] { settings.rejectNonce = try bool(node, "reject_nonce") }
        if let node = fields["refuse_unlinked_accounts"] {
            settings.refusesUnlinkedAccounts = try bool(node, "refuse_unlinked_accounts")
        }
        if let node = fields["accept_authorization_codes"] {
            settings.acceptsAuthorizationCodes = try bool(node, "accept_authorization_codes")
        }
        return settings
    }

    /// Apple's rule for bundle ids (the simulator refuses others at authorization).
    static func isPlausibleBundleID(_ bundleID: String) -> Bool {
        !bundleID.isEmpty && bundleID.utf8.count <= 155
            && bundleID.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "." || scalar == "-"
            }
    }

    private func checkDeveloperKey(_ pem: String, at mark: YAMLMark, source: String) throws(TenantError) {
        do {
            _ = try P256PrivateKey(pem: pem)
        } catch {
            throw failure("\(source) is not a P-256 private key in PEM: \(error.message)", at: mark)
        }
    }

    /// The PEM in a file named relative to the tenant file (Apple's `AuthKey_<key id>.p8`).
    private func developerKey(file node: YAMLNode) throws(TenantError) -> String {
        let relative = try nonEmptyString(node, "private_key_file")
        let path = TenantLoader.resolve(relative, relativeTo: directory)
        let bytes: [UInt8]
        do {
            bytes = try TenantLoader.readFile(path, limit: Self.maximumKeyFileSize, reportedAs: path)
        } catch {
            throw failure(
                "cannot use private_key_file \"\(relative.prefix(200))\": \(path): \(error.message)",
                at: node.mark)
        }
        guard let pem = String(validating: bytes, as: UTF8.self) else {
            throw failure("private_key_file \"\(relative.prefix(200))\" is not text", at: node.mark)
        }
        try checkDeveloperKey(pem, at: node.mark, source: "private_key_file \"\(relative.prefix(200))\"")
        return pem
    }
}
