import AppleID
import Cryptography
import Foundation
import HTTPCore
import JOSE
import JSON
import OAuthCore

/// Writes the seeds that the project's own code makes: tokens and keys signed by JOSE, DPoP
/// proofs, the issuer's pages and answers, and request scripts for every endpoint that run a
/// whole sign-in (`SIGNINSIM_FUZZ_MAKE_SEEDS=DIR`, used by `scripts/fuzz --make-seeds`). Seeds
/// of files kept in the repository (scenarios, HAR captures, tenants) are copied by the script.
enum SeedMaker {
    /// RFC 7636 Appendix B's verifier and challenge.
    static let codeVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let codeChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let redirectURI = "com.example.app%3A%2F%2Fauth%2Fcallback"

    static func write(to directory: String) throws {
        let seeds = SeedSet()
        // Requests for every endpoint, and scripts that chain them with values from the answers.
        for (name, script) in issuerScripts { seeds.add("issuer", name, script) }
        let world = FuzzWorld.shared
        let appleScripts = try appleScripts(world)
        for (name, script) in appleScripts { seeds.add("apple", name, script) }
        // Run the scripts once, to keep what the issuer answered: pages, tokens, documents.
        addIssuerAnswers(world, to: seeds)
        addAppleAnswers(appleScripts, world, to: seeds)
        try addJOSE(to: seeds)
        addFormsAndURLs(to: seeds)
        try save(seeds, to: directory)
    }

    /// What the issuer answers to its scripts: pages, JSON documents (and the tokens and keys
    /// in them), and the URLs it redirects to.
    static func addIssuerAnswers(_ world: FuzzWorld, to seeds: SeedSet) {
        for (file, script) in issuerScripts.sorted(by: { $0.key < $1.key }) {
            let name = String(file.prefix { $0 != "." })
            let answers = HandlerTargets.exchange(Array(script.utf8), baseURL: world.issuerURL, world: world)
            FileHandle.standardError.write(
                Data("issuer \(name): \(answers.map { String($0.status) }.joined(separator: " "))\n".utf8))
            for (index, answer) in answers.enumerated() {
                let type = answer.headers["Content-Type"] ?? ""
                if type.hasPrefix("text/html") {
                    seeds.add(
                        "html", "\(name)-\(index).html",
                        "\(type)\n" + String(decoding: answer.body, as: UTF8.self))
                } else if MediaType.isJSON(MediaType.essence(type)), !answer.body.isEmpty {
                    seeds.add("json", "\(name)-\(index).json", answer.body)
                    harvest(answer.body, name: "\(name)-\(index)", add: seeds.add)
                }
                if let location = answer.headers["Location"] {
                    seeds.add("url", "\(name)-\(index).url", location)
                }
            }
        }
    }

    /// What Apple answers to its scripts: JSON documents, and the tokens and keys in them.
    static func addAppleAnswers(_ appleScripts: [String: String], _ world: FuzzWorld, to seeds: SeedSet) {
        for (file, script) in appleScripts.sorted(by: { $0.key < $1.key }) {
            let name = String(file.prefix { $0 != "." })
            let answers = HandlerTargets.exchange(Array(script.utf8), baseURL: world.appleURL, world: world)
            FileHandle.standardError.write(
                Data("apple \(name): \(answers.map { String($0.status) }.joined(separator: " "))\n".utf8))
            for (index, answer) in answers.enumerated() where !answer.body.isEmpty {
                seeds.add("json", "apple-\(name)-\(index).json", answer.body)
                harvest(answer.body, name: "apple-\(name)-\(index)", add: seeds.add)
            }
        }
    }

    /// Keys and tokens of JOSE's own making.
    static func addJOSE(to seeds: SeedSet) throws {
        let key = try P256PrivateKey(random: SeededRandom(seed: 27))
        let signer = try JWSSigner(key: .p256(key), algorithm: .es256, keyID: "fuzz-1")
        seeds.add("jwk", "es256-public.json", signer.publicJWK.json.serialized())
        seeds.add("jwk", "es256-private.pem", key.pemRepresentation())
        seeds.add("jwks", "es256.json", JWKSet(keys: [signer.publicJWK]).json.serialized())
        var claims = JWTClaims()
        claims.issuer = "https://issuer.test"
        claims.subject = "auth0|alice"
        claims.audience = .single("com.example.app")
        claims.issuedAt = 1_700_000_000
        claims.expiresAt = 1_700_000_600
        claims.nonce = "n-0S6_WzA2Mj"
        seeds.add("jws", "es256.jwt", try JWT.sign(claims, signer: signer))
        let proof = try DPoPProof.make(
            signer: signer, method: "POST", url: "https://issuer.test/oauth/token", issuedAt: 1_700_000_000,
            id: "e1j3V_bKic8-LAEB")
        seeds.add("dpop", "token.jwt", proof)
        seeds.add(
            "dpop", "userinfo-ath.jwt",
            try DPoPProof.make(
                signer: signer, method: "GET", url: "https://issuer.test/userinfo?x=1", accessToken: "at",
                nonce: "server-nonce", issuedAt: 1_700_000_000, id: "jti-2"))
        seeds.add("issuer", "token-dpop.txt", dpopTokenScript(proof: proof))
        seeds.add("jws", "dpop.jwt", proof)
    }

    /// Forms and URLs as clients send them.
    static func addFormsAndURLs(to seeds: SeedSet) {
        seeds.add(
            "form", "token.txt",
            "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&redirect_uri=\(redirectURI)")
        seeds.add("form", "escapes.txt", "a=%20b+c&%E2%9C%93=%e2%9c%93&empty=&flag&a=2")
        seeds.add(
            "url", "authorize.url",
            "https://issuer.test/authorize?client_id=com.example.app&scope=openid%20email#frag")
        seeds.add("url", "custom-scheme.url", "com.example.app://auth/callback?code=abc&state=xyz")
        seeds.add("url", "ipv6.url", "http://[::1]:8080/oauth/token?a=b")
        seeds.add("url", "userinfo.url", "https://user:pa%40ss@issuer.test:443/userinfo")
    }

    /// Each target's seeds in a folder of its own under `directory`.
    static func save(_ seeds: SeedSet, to directory: String) throws {
        let fileManager = FileManager.default
        for (target, files) in seeds.files {
            let folder = directory + "/" + target
            try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, bytes) in files {
                guard fileManager.createFile(atPath: folder + "/" + name, contents: Data(bytes)) else {
                    throw CocoaError(.fileWriteUnknown)
                }
            }
        }
    }

    /// Tokens and key sets in a JSON answer go to the JWS and JWK Set corpora.
    static func harvest(_ body: [UInt8], name: String, add: (String, String, [UInt8]) -> Void) {
        guard case .object(let members)? = try? JSONValue.parse(body) else { return }
        for tokenName in ["id_token", "access_token", "identity_token"] {
            if case .string(let token)? = members[tokenName], token.split(separator: ".").count == 3 {
                add("jws", "\(name)-\(tokenName).jwt", Array(token.utf8))
            }
        }
        if case .array(let keys)? = members["keys"] {
            add("jwks", "\(name).json", body)
            for (index, key) in keys.prefix(2).enumerated() {
                add("jwk", "\(name)-\(index).json", key.serialized())
            }
        }
    }

    static func dpopTokenScript(proof: String) -> String {
        """
        POST /oauth/token
        Content-Type: application/x-www-form-urlencoded
        DPoP: \(proof)

        grant_type=refresh_token&client_id=com.example.app&refresh_token=unknown
        """
    }

    static let authorize =
        "GET /authorize?response_type=code&client_id=com.example.app&redirect_uri=\(redirectURI)"
        + "&scope=openid%20profile%20email%20offline_access&state=af0ifjsldkj&nonce=n-0S6_WzA2Mj"
        + "&code_challenge=\(codeChallenge)&code_challenge_method=S256"
        + "&audience=https%3A%2F%2Fapi.example.com"

    static let signIn = """
        \(authorize)
        %%
        POST /u/login
        Content-Type: application/x-www-form-urlencoded

        transaction={{transaction}}&csrf={{csrf}}&username=alice%40example.com&password=alice-password
        %%
        POST /u/consent
        Content-Type: application/x-www-form-urlencoded

        transaction={{transaction}}&csrf={{csrf}}&action=approve
        %%
        POST /oauth/token
        Content-Type: application/x-www-form-urlencoded

        grant_type=authorization_code&client_id=com.example.app&code={{code}}&redirect_uri=\(redirectURI)&code_verifier=\(codeVerifier)
        """

    static let issuerScripts: [String: String] = [
        "discovery.txt": "GET /.well-known/openid-configuration\n\n",
        "jwks.txt": "GET /.well-known/jwks.json\n\n",
        "authorize.txt": authorize + "\n\n",
        "sign-in.txt": signIn,
        "sign-in-refresh-userinfo-logout.txt": signIn + """

            %%
            GET /userinfo
            Authorization: Bearer {{access_token}}

            %%
            POST /oauth/token
            Content-Type: application/x-www-form-urlencoded

            grant_type=refresh_token&client_id=com.example.app&refresh_token={{refresh_token}}
            %%
            POST /oauth/revoke
            Content-Type: application/x-www-form-urlencoded

            client_id=com.example.app&token={{refresh_token}}
            %%
            GET /oidc/logout?id_token_hint={{id_token}}&post_logout_redirect_uri=com.example.app%3A%2F%2Fauth%2Flogout&state=bye

            """,
        "wrong-password.txt": """
        \(authorize)
        %%
        POST /u/login
        Content-Type: application/x-www-form-urlencoded

        transaction={{transaction}}&csrf={{csrf}}&username=alice%40example.com&password=wrong
        """,
        "token-exchange-id-token.txt": signIn + """

            %%
            POST /oauth/token
            Content-Type: application/x-www-form-urlencoded

            grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&client_id=com.example.app&subject_token={{id_token}}&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token
            """,
        "apple-sign-in.txt": """
        POST https://appleid.test/_admin/authorize
        Content-Type: application/json

        {"email":"ada@example.com","given_name":"Ada","family_name":"Lovelace","bundle_id":"com.example.app","nonce":"n1"}
        %%
        POST /oauth/token
        Content-Type: application/x-www-form-urlencoded

        grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&client_id=com.example.app&subject_token={{authorization_code}}&subject_token_type=http%3A%2F%2Fauth0.com%2Foauth%2Ftoken-type%2Fapple-authz-code&user_profile=%7B%22name%22%3A%7B%22firstName%22%3A%22Ada%22%7D%7D
        """,
        "userinfo-post.txt":
            "POST /userinfo\nAuthorization: Bearer abc\nContent-Type: application/x-www-form-urlencoded\n\n",
        "admin-reset.txt": "POST /_admin/reset\n\n",
        "admin-users.txt": """
        POST /_admin/users
        Content-Type: application/json

        {"email":"carol@example.com","password":"carol-password","name":"Carol"}
        %%
        GET /_admin/users

        """,
        "admin-clients.txt": """
        POST /_admin/clients
        Content-Type: application/json

        {"client_id":"com.partner.app","redirect_uris":["com.partner.app://cb"],"grant_types":["authorization_code","refresh_token"],"require_dpop":true}
        %%
        GET /_admin/clients

        """,
        "admin-tokens.txt": """
        POST /_admin/tokens
        Content-Type: application/json

        {"client_id":"com.example.app","user_id":"auth0|alice","count":2}
        %%
        POST /oauth/token
        Content-Type: application/x-www-form-urlencoded

        grant_type=refresh_token&client_id=com.example.app&refresh_token={{refresh_token}}
        """,
        "admin-keys-rotate.txt":
            "POST /_admin/keys/rotate\nContent-Type: application/json\n\n{\"algorithm\":\"ES256\"}",
        "admin-clock.txt": "POST /_admin/clock\nContent-Type: application/json\n\n{\"advance\":3600}",
        "admin-requests.txt": "GET /_admin/requests?limit=5\n\n",
        "admin-faults.txt": """
        POST /_admin/faults
        Content-Type: application/json

        {"fault":"http-500","count":1,"path":"/oauth/token"}
        %%
        GET /_admin/faults

        %%
        POST /oauth/token
        Content-Type: application/x-www-form-urlencoded

        grant_type=refresh_token&client_id=com.example.app&refresh_token=x
        %%
        DELETE /_admin/faults

        """,
        "admin-fault-id-token.txt": """
        POST /_admin/faults
        Content-Type: application/json

        {"fault":"rp-id_token-bad-sig-rs256","count":1}
        %%
        \(signIn)
        """,
    ]

    static func appleScripts(_ world: FuzzWorld) throws -> [String: String] {
        let clientSecret = try AppleClientSecret.make(
            teamID: FuzzWorld.teamID, keyID: FuzzWorld.keyID, clientID: "com.example.app",
            privateKey: world.developerKey, issuedAt: 1_700_000_000, lifetime: 15_000_000)
        let otherKey = try P256PrivateKey(random: SeededRandom(seed: 99)).publicKey.pemRepresentation()
        let otherKeyJSON = JSONValue.string(otherKey).serializedString()
        return appleScriptTemplates.mapValues {
            $0.replacingOccurrences(of: "CLIENT_SECRET", with: clientSecret)
                .replacingOccurrences(of: "\"PUBLIC_KEY_PEM\"", with: otherKeyJSON)
        }
    }

    static let appleScriptTemplates: [String: String] = [
        "keys.txt": "GET /auth/keys\n\n",
        "authorize-revoke.txt": """
        POST /_admin/authorize
        Content-Type: application/json

        {"email":"ada@example.com","bundle_id":"com.example.app","scopes":["fullName","email"],"private_email":true}
        %%
        POST /auth/token
        Content-Type: application/x-www-form-urlencoded

        grant_type=authorization_code&client_id=com.example.app&client_secret=CLIENT_SECRET&code={{authorization_code}}
        %%
        POST /auth/token
        Content-Type: application/x-www-form-urlencoded

        grant_type=refresh_token&client_id=com.example.app&client_secret=CLIENT_SECRET&refresh_token={{refresh_token}}
        %%
        POST /auth/revoke
        Content-Type: application/x-www-form-urlencoded

        client_id=com.example.app&client_secret=CLIENT_SECRET&token={{refresh_token}}&token_type_hint=refresh_token
        %%
        GET /_admin/credential-state?email=ada%40example.com&bundle_id=com.example.app

        %%
        POST /_admin/revoke-consent
        Content-Type: application/json

        {"email":"ada@example.com","bundle_id":"com.example.app"}
        """,
        "token.txt": """
        POST /auth/token
        Content-Type: application/x-www-form-urlencoded

        grant_type=authorization_code&client_id=com.example.app&client_secret=eyJhbGciOiJFUzI1NiJ9.e30.c2ln&code=c.0.abc
        """,
        "revoke.txt": """
        POST /auth/revoke
        Content-Type: application/x-www-form-urlencoded

        client_id=com.example.app&client_secret=x&token=abc&token_type_hint=refresh_token
        """,
        "developer-keys.txt": """
        POST /_admin/developer-keys
        Content-Type: application/json

        {"team_id":"TEAM000002","key_id":"KEY0000002","public_key_pem":"PUBLIC_KEY_PEM"}
        """,
        "rotate.txt": "POST /_admin/keys/rotate\n\n",
        "transfer.txt": """
        POST /_admin/transfer
        Content-Type: application/json

        {"bundle_id":"com.example.app","team_id":"TEAM000002"}
        """,
    ]
}

/// The seeds made so far: file contents by target and file name.
final class SeedSet {
    private(set) var files: [String: [String: [UInt8]]] = [:]

    func add(_ target: String, _ name: String, _ bytes: [UInt8]) {
        files[target, default: [:]][name] = bytes
    }

    func add(_ target: String, _ name: String, _ text: String) { add(target, name, Array(text.utf8)) }
}
