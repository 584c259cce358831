import Cryptography
import Foundation
import Issuer
import JOSE
import JSON
import TestSupport
import Testing
import WorldVocabulary

/// A tenant file that should be refused, and where and why.
struct BadTenantFile: Sendable, CustomTestStringConvertible {
    var name: String
    var fileName = "tenant.yaml"
    var text: String
    var line: Int
    var column: Int?
    var message: String

    var testDescription: String { name }
}

/// Tenant files that are refused: each error names the file, the line and column, and the reason.
@Suite("Tenant file errors")
struct TenantLoaderErrorTests {
    static let cases: [BadTenantFile] = [
        BadTenantFile(
            name: "unknown top-level key", text: "clients: []\nsigning_alg: ES256\n", line: 2, column: 1,
            message:
                "unknown key \"signing_alg\" in the tenant file; allowed keys: replace_defaults, signing_algorithm"
        ),
        BadTenantFile(
            name: "unknown client key",
            text: "clients:\n  - client_id: a.b\n    redirect_uri: [\"a.b:/cb\"]\n", line: 3, column: 5,
            message:
                "unknown key \"redirect_uri\" in a client; allowed keys: client_id, client_secret, name, redirect_uris"
        ),
        BadTenantFile(
            name: "unknown lifetime", text: "lifetimes:\n  access: 5\n", line: 2, column: 3,
            message: "unknown key \"access\" in lifetimes; allowed keys: authorization_code, access_token"),
        BadTenantFile(
            name: "unknown page style", text: "pages: jss\n", line: 1, column: 8,
            message: "unknown pages \"jss\"; expected one of: html, javascript"),
        BadTenantFile(
            name: "misspelt page style", text: "require_dpop_nonce: false\npages: javscript\n", line: 2,
            column: 8, message: "unknown pages \"javscript\"; did you mean \"javascript\"?"),
        BadTenantFile(
            name: "page style of the wrong type", text: "pages: true\n", line: 1, column: 8,
            message: "pages must be a string, found a boolean"),
        BadTenantFile(
            name: "misspelt pushed_authorization_requests",
            text: "pages: html\npushed_authorization_requests: requried\n", line: 2, column: 32,
            message: "unknown pushed_authorization_requests \"requried\"; did you mean \"required\"?"),
        BadTenantFile(
            name: "unknown pushed_authorization_requests", text: "pushed_authorization_requests: always\n",
            line: 1, column: 32,
            message:
                "unknown pushed_authorization_requests \"always\"; expected one of: off, allowed, required"),
        BadTenantFile(
            name: "pushed_authorization_requests of the wrong type",
            text: "pushed_authorization_requests: true\n", line: 1, column: 32,
            message: "pushed_authorization_requests must be off, allowed or required, found a boolean"),
        BadTenantFile(
            name: "pushed_request lifetime of zero", text: "lifetimes:\n  pushed_request: 0\n", line: 2,
            column: 19, message: "pushed_request must be a positive number of seconds, found 0"),
        BadTenantFile(
            name: "root is a sequence", text: "- client_id: a\n", line: 1, column: 1,
            message: "the tenant file must be a mapping, found a sequence"),
        BadTenantFile(
            name: "boolean of the wrong type", text: "require_dpop_nonce: \"yes\"\n", line: 1, column: 21,
            message: "require_dpop_nonce must be true or false, found a string"),
        BadTenantFile(
            name: "a number where a string goes", text: "clients:\n  - client_id: 12345\n", line: 2,
            column: 16,
            message: "client_id must be a string, found an integer (write it in quotes to make it a string)"),
        BadTenantFile(
            name: "clients is not a sequence", text: "clients:\n  client_id: x\n", line: 2, column: 3,
            message: "clients must be a sequence, found a mapping"),
        BadTenantFile(
            name: "client without id", text: "clients:\n  - name: Nameless\n", line: 2, column: 5,
            message: "a client needs client_id"),
        BadTenantFile(
            name: "non-loopback http redirect URI",
            text:
                "clients:\n  - client_id: a.b\n    redirect_uris:\n      - a.b:/ok\n      - http://example.com/cb\n",
            line: 5, column: 9,
            message: "redirect_uris: http redirect URIs are allowed only for loopback IP addresses"),
        BadTenantFile(
            name: "private-use scheme not reverse DNS",
            text: "clients:\n  - client_id: a.b\n    redirect_uris: [\"ok.app:/cb\", \"myapp://cb\"]\n",
            line: 3,
            column: 35, message: "must be a reverse domain name"),
        BadTenantFile(
            name: "redirect URI with user information",
            text: "clients:\n  - client_id: a.b\n    redirect_uris: [\"http://x@127.0.0.1/callback\"]\n",
            line: 3, column: 21,
            message:
                "redirect_uris: redirect URI \"http://x@127.0.0.1/callback\" must not have user information"),
        BadTenantFile(
            name: "logout URI with user information",
            text: "clients:\n  - client_id: a.b\n    post_logout_redirect_uris: [\"https://u:p@a.b/bye\"]\n",
            line: 3, column: 33,
            message:
                "post_logout_redirect_uris: redirect URI \"https://u:p@a.b/bye\" must not have user information"
        ),
        BadTenantFile(
            name: "logout URI with a fragment",
            text: "clients:\n  - client_id: a.b\n    post_logout_redirect_uris: [\"https://a.b/x#y\"]\n",
            line: 3,
            column: 33,
            message: "post_logout_redirect_uris: redirect URI \"https://a.b/x#y\" must not have a fragment"),
        BadTenantFile(
            name: "duplicate client id",
            text: "clients:\n  - client_id: a.b\n  - client_id: c.d\n  - client_id: a.b\n", line: 4,
            column: 16,
            message: "client_id \"a.b\" appears twice in this file (first at line 2)"),
        BadTenantFile(
            name: "duplicate email ignoring case",
            text: "users:\n  - email: Eve@example.com\n  - email: eve@EXAMPLE.com\n", line: 3, column: 12,
            message: "email \"eve@EXAMPLE.com\" appears twice in this file (first at line 2)"),
        BadTenantFile(
            name: "duplicate user id", text: "users:\n  - user_id: u1\n  - {user_id: u1}\n", line: 3,
            column: 15,
            message: "user_id \"u1\" appears twice in this file (first at line 2)"),
        BadTenantFile(
            name: "user without email or id", text: "users:\n  - name: Nobody\n", line: 2, column: 5,
            message: "a user needs email or user_id"),
        BadTenantFile(
            name: "email without @", text: "users:\n  - email: nobody\n", line: 2, column: 12,
            message: "email \"nobody\" is not an email address"),
        BadTenantFile(
            name: "email of another user",
            text: "users:\n  - {user_id: auth0|bob, email: alice@example.com}\n",
            line: 2, column: 33,
            message: "email \"alice@example.com\" belongs to user \"auth0|alice\", not to \"auth0|bob\""),
        BadTenantFile(
            name: "zero lifetime", text: "lifetimes:\n  access_token: 0\n", line: 2, column: 17,
            message: "access_token must be a positive number of seconds, found 0"),
        BadTenantFile(
            name: "negative lifetime", text: "lifetimes: {session: -5}\n", line: 1, column: 22,
            message: "session must be a positive number of seconds, found -5"),
        BadTenantFile(
            name: "negative grace", text: "lifetimes: {refresh_reuse_grace: -1}\n", line: 1, column: 34,
            message: "refresh_reuse_grace must not be negative (0 turns it off), found -1"),
        BadTenantFile(
            name: "lifetime too long", text: "lifetimes: {refresh_token: 400000000}\n", line: 1, column: 28,
            message: "refresh_token must be at most 315360000 seconds (ten years)"),
        BadTenantFile(
            name: "fractional lifetime", text: "lifetimes: {id_token: 1.5}\n", line: 1, column: 23,
            message: "id_token must be a whole number, found a floating-point number"),
        BadTenantFile(
            name: "client lifetime", text: "clients:\n  - client_id: a.b\n    lifetimes: {access_token: 0}\n",
            line: 3, column: 31, message: "access_token must be a positive number of seconds"),
        BadTenantFile(
            name: "unknown signing algorithm", text: "signing_algorithm: HS256\n", line: 1, column: 20,
            message: "unknown signing_algorithm \"HS256\"; expected ES256 or RS256"),
        BadTenantFile(
            name: "unknown grant type",
            text:
                "clients:\n  - client_id: a.b\n    grant_types:\n      - authorization_code\n      - password\n",
            line: 5, column: 9,
            message: "unknown grant type \"password\"; expected one of authorization_code, refresh_token, "
                + "urn:ietf:params:oauth:grant-type:token-exchange"),
        BadTenantFile(
            name: "no grant types", text: "clients: [{client_id: a.b, grant_types: []}]\n", line: 1,
            column: 41,
            message: "grant_types must list at least one grant type"),
        BadTenantFile(
            name: "empty client secret", text: "clients: [{client_id: a.b, client_secret: \"\"}]\n", line: 1,
            column: 43, message: "client_secret must not be empty"),
        BadTenantFile(
            name: "bad scope", text: "audiences: [{identifier: x, scopes: [\"read items\"]}]\n", line: 1,
            column: 38, message: "scope \"read items\" has a character a scope cannot have"),
        BadTenantFile(
            name: "duplicate audience", text: "audiences:\n  - identifier: x\n  - identifier: x\n", line: 3,
            column: 17, message: "audience \"x\" appears twice in this file (first at line 2)"),
        BadTenantFile(
            name: "unknown default audience", text: "default_audience: https://nope.example\n", line: 1,
            column: 19,
            message:
                "default_audience \"https://nope.example\" is not one of the audiences (https://api.example.com)"
        ),
        BadTenantFile(
            name: "unknown connection kind", text: "connections:\n  - {name: x, kind: saml}\n", line: 2,
            column: 21,
            message: "unknown connection kind \"saml\"; expected apple or openid"),
        BadTenantFile(
            name: "apple connection with an issuer",
            text: "connections:\n  - name: apple\n    kind: apple\n    issuer: https://appleid.apple.com\n",
            line: 4,
            column: 5, message: "issuer applies only to connections of kind openid"),
        BadTenantFile(
            name: "openid connection without keys",
            text:
                "connections:\n  - name: p\n    kind: openid\n    issuer: https://idp.example\n    audience: a\n",
            line: 2, column: 5, message: "a connection of kind openid needs jwks or jwks_file"),
        BadTenantFile(
            name: "openid issuer over plain http",
            text:
                "connections:\n  - {name: p, kind: openid, issuer: \"http://idp.example\", audience: a, jwks: {keys: []}}\n",
            line: 2, column: 37,
            message: "issuer \"http://idp.example\" must be an https URL (http only for loopback)"),
        BadTenantFile(
            name: "empty JWKS",
            text:
                "connections:\n  - name: p\n    kind: openid\n    issuer: https://idp.example\n    audience: a\n"
                + "    jwks: {keys: []}\n", line: 6, column: 18, message: "jwks has no keys"),
        BadTenantFile(
            name: "JWKS key without y",
            text:
                "connections:\n  - name: p\n    kind: openid\n    issuer: https://idp.example\n    audience: a\n"
                + "    jwks:\n      keys:\n        - {kty: EC, crv: P-256, x: AAAA}\n", line: 8, column: 11,
            message: "not a usable public key: an EC JWK needs crv, x and y"),
        BadTenantFile(
            name: "JWKS with an unsupported key type",
            text:
                "connections:\n  - name: p\n    kind: openid\n    issuer: https://idp.example\n    audience: a\n"
                + "    jwks:\n      keys:\n        - kty: oct\n          k: AAAA\n", line: 8, column: 11,
            message: "not a usable public key: kty \"oct\" is not supported"),
        BadTenantFile(
            name: "JWKS that is not a JWK Set",
            text:
                "connections:\n  - {name: p, kind: openid, issuer: https://idp.example, audience: a, jwks: [1]}\n",
            line: 2, column: 77, message: "jwks must be a JWK Set (a mapping with keys), found a sequence"),
        BadTenantFile(
            name: "YAML syntax", text: "clients:\n  - client_id: \"unterminated\n", line: 3, column: 1,
            message: "invalid YAML: "),
        BadTenantFile(
            name: "YAML duplicate key", text: "lifetimes:\n  session: 5\n  session: 6\n", line: 3, column: 3,
            message: "invalid YAML: "),
        BadTenantFile(
            name: "JSON syntax", fileName: "tenant.json", text: "{\n  \"users\": [1,]\n}\n", line: 2,
            column: 15,
            message: "invalid JSON: trailing comma"),
        BadTenantFile(
            name: "JSON duplicate member", fileName: "tenant.json",
            text: "{\"clients\": [], \"clients\": []}",
            line: 1, column: 17, message: "invalid JSON: duplicate member name \"clients\""),
        BadTenantFile(
            name: "JSON unknown grant type", fileName: "tenant.json",
            text:
                "{\n  \"clients\": [\n    {\"client_id\": \"x\", \"grant_types\": [\"password\"]}\n  ]\n}\n",
            line: 3, column: 40, message: "unknown grant type \"password\""),
        BadTenantFile(
            name: "JSON type error after non-ASCII text", fileName: "tenant.json",
            text: "{\"users\": [{\"name\": \"Zoë Ångström\", \"email\": 7}]}", line: 1, column: 46,
            message: "email must be a string, found an integer"),
        BadTenantFile(
            name: "JSON syntax after non-ASCII text", fileName: "tenant.json",
            text: "{\"users\": [{\"name\": \"Zoë Ångström\",}]}", line: 1, column: 36,
            message: "invalid JSON: "),
        BadTenantFile(
            name: "JSON syntax after a byte order mark", fileName: "tenant.json",
            text: "\u{FEFF}{\"users\": 1 2}", line: 1, column: 13, message: "invalid JSON: "),
        BadTenantFile(
            name: "JSON type error after a byte order mark", fileName: "tenant.json",
            text: "\u{FEFF}{\"users\": 1}", line: 1, column: 11, message: "users must be a sequence"),
        BadTenantFile(
            name: "JSON root is an array", fileName: "tenant.json", text: "\n  [1]", line: 2, column: 3,
            message: "the tenant file must be a mapping, found a sequence"),
        BadTenantFile(
            name: "JSON unknown key", fileName: "tenant.json",
            text: "{\n  \"lifetimes\": {\n    \"acess_token\": 5\n  }\n}", line: 3, column: 5,
            message: "unknown key \"acess_token\" in lifetimes"),
        BadTenantFile(
            name: "unknown client authentication method",
            text: "clients:\n  - client_id: web\n    token_endpoint_auth_method: client_secret_jwt\n",
            line: 3,
            column: 33,
            message:
                "unknown token_endpoint_auth_method \"client_secret_jwt\"; expected one of client_secret_basic, "
                + "client_secret_post, private_key_jwt, none"),
        BadTenantFile(
            name: "a secret method without a secret",
            text: "clients:\n  - client_id: web\n    token_endpoint_auth_method: client_secret_post\n",
            line: 3,
            column: 33,
            message: "client \"web\" with token_endpoint_auth_method client_secret_post needs a client_secret"
        ),
        BadTenantFile(
            name: "private_key_jwt without keys",
            text: "clients:\n  - client_id: web\n    token_endpoint_auth_method: private_key_jwt\n", line: 3,
            column: 33,
            message:
                "client \"web\" with token_endpoint_auth_method private_key_jwt needs the client's public keys"
        ),
        BadTenantFile(
            name: "none with a secret",
            text:
                "clients:\n  - client_id: web\n    client_secret: s\n    token_endpoint_auth_method: none\n",
            line: 4, column: 33,
            message: "client \"web\" with token_endpoint_auth_method none is a public client"),
        BadTenantFile(
            name: "a client key with its private part",
            text:
                "clients:\n  - client_id: web\n    jwks: {keys: [{kty: EC, crv: P-256, x: \(ecX), y: \(ecY), d: \(ecD)}]}\n",
            line: 3, column: 19, message: "this key has a private part (d); list public keys only"),
        BadTenantFile(
            name: "a client key with private factors but no d",
            text:
                "clients:\n  - client_id: web\n    jwks: {keys: [{kty: EC, crv: P-256, x: \(ecX), y: \(ecY), p: AQAB}]}\n",
            line: 3, column: 19, message: "this key has private members (p); list public keys only"),
        BadTenantFile(
            name: "a secret given to a private_key_jwt client later",
            text:
                "clients:\n  - client_id: web\n    jwks: {keys: [{kty: EC, crv: P-256, x: \(ecX), y: \(ecY)}]}\n"
                + "    token_endpoint_auth_method: private_key_jwt\n    client_secret: s\n",
            line: 4, column: 33,
            message:
                "client \"web\" with token_endpoint_auth_method private_key_jwt does not use a client_secret"),
    ]

    /// Each bad file is refused with its line, column and reason.
    @Test("a bad file names its line and reason", arguments: cases)
    func badFile(_ bad: BadTenantFile) throws {
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: Array(bad.text.utf8), fileName: bad.fileName)
        }
        #expect(error.fileName == bad.fileName)
        #expect(error.line == bad.line, "\(error)")
        if let column = bad.column { #expect(error.column == column, "\(error)") }
        #expect(error.message.contains(bad.message), "\(error)")
    }

    /// The description is `path:line:column: error: message`.
    @Test("error description")
    func description() throws {
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: Array("signing_algorithm: none\n".utf8), fileName: "dir/t.yaml")
        }
        #expect(
            error.description
                == "dir/t.yaml:1:20: error: unknown signing_algorithm \"none\"; expected ES256 or RS256")
        #expect(error.location == "dir/t.yaml:1:20")
    }

    /// Bytes that are not UTF-8 are refused at the first bad sequence, in either format.
    @Test("not UTF-8", arguments: ["t.yaml", "t.json"])
    func notUTF8(fileName: String) throws {
        var bytes = Array("{\"users\": [{\"name\": \"caf".utf8)
        bytes += [0xE9]  // Latin-1 é
        bytes += Array("\"}]}".utf8)
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: Array("\n".utf8) + bytes, fileName: fileName)
        }
        #expect(error.line == 2 && error.column == 25, "\(error)")
        #expect(error.message == "the file is not UTF-8 text (a bad sequence starts with byte 0xE9)")
    }

    /// A file over the limit is refused before it is parsed, from bytes or from disk.
    @Test("too large")
    func tooLarge() throws {
        let text = "# " + String(repeating: "x", count: TenantLoader.maximumFileSize) + "\n"
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: Array(text.utf8), fileName: "big.yaml")
        }
        #expect(error.line == nil)
        #expect(error.message.contains("the limit is \(TenantLoader.maximumFileSize)"))
        let path = try TemporaryDirectory.shared.write(text, named: "big.yaml")
        let fromDisk = try #require(throws: TenantError.self) { try TenantLoader.load(path: path) }
        #expect(fromDisk.fileName == path)
        #expect(fromDisk.message.contains("the limit is \(TenantLoader.maximumFileSize)"))
    }

    /// A missing file, a directory and an unknown extension are refused with the reason.
    @Test("files that cannot be read")
    func unreadable() throws {
        let missing = TemporaryDirectory.shared.url.appendingPathComponent("missing.yaml").path
        let notFound = try #require(throws: TenantError.self) { try TenantLoader.load(path: missing) }
        #expect(notFound.description == "\(missing): error: cannot open the file: No such file or directory")

        let folder = try TemporaryDirectory().url.appendingPathComponent("folder.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let directory = try #require(throws: TenantError.self) { try TenantLoader.load(path: folder.path) }
        #expect(directory.message == "cannot read the file: it is a directory")

        let text = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: [], fileName: "tenant.txt")
        }
        #expect(text.message == "a tenant file's name must end in .yaml, .yml or .json")
    }

    /// A jwks_file that is missing is refused at the tenant file's line; a bad one inside that file,
    /// with a note of where the tenant file names it.
    @Test("bad jwks_file")
    func badKeyFile() throws {
        let directory = try TemporaryDirectory()
        let tenantText = """
            connections:
              - name: partner
                kind: openid
                issuer: https://idp.example
                audience: a
                jwks_file: keys.json
            """
        let path = try directory.write(tenantText, named: "tenant.yaml")
        let missing = try #require(throws: TenantError.self) { try TenantLoader.load(path: path) }
        #expect(missing.fileName == path)
        #expect(missing.line == 6 && missing.column == 16)
        #expect(missing.message.hasPrefix("cannot use jwks_file \"keys.json\": "))
        #expect(missing.message.hasSuffix("No such file or directory"))

        let keysPath = try directory.write(
            "{\n  \"keys\": [\n    {\"kty\": \"EC\"}\n  ]\n}\n", named: "keys.json")
        let bad = try #require(throws: TenantError.self) { try TenantLoader.load(path: path) }
        #expect(bad.fileName == keysPath)
        #expect(bad.line == 3 && bad.column == 5)
        #expect(bad.message.contains("not a usable public key"))
        #expect(bad.message.hasSuffix("(the jwks_file of connection \"partner\", \(path):6:16)"))

        _ = try directory.write("{\"keys\": [}", named: "keys.json")
        let syntax = try #require(throws: TenantError.self) { try TenantLoader.load(path: path) }
        #expect(syntax.fileName == keysPath && syntax.line == 1)
        #expect(syntax.message.hasPrefix("invalid JSON: "))
    }

    /// A private key in a connection's key set is refused: a relying party needs only public keys.
    @Test("private key in jwks")
    func privateKey() throws {
        let key = JWK(try P256PrivateKey(), keyID: "k")
        let text = """
            connections:
              - name: partner
                kind: openid
                issuer: https://idp.example
                audience: a
                jwks: {"keys": [\(key.json.serializedString())]}
            """
        let error = try #require(throws: TenantError.self) {
            try TenantLoader.load(bytes: Array(text.utf8), fileName: "t.yaml")
        }
        #expect(error.line == 6 && error.column == 21)
        #expect(error.message == "this key has a private part (d); list public keys only")
    }
}

/// A P-256 key's members, base64url, for client keys written into tenant files.
private let clientTestKey = try! P256PrivateKey(random: SeededRandom(seed: 41))
private let ecX = Base64URL.encode(clientTestKey.publicKey.x)
private let ecY = Base64URL.encode(clientTestKey.publicKey.y)
private let ecD = Base64URL.encode(clientTestKey.rawScalar)
