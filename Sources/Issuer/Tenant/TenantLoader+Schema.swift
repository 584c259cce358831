import Cryptography
import Errors
import HTTPCore
import JOSE
import OAuthCore
import WorldVocabulary
import YAML

/// The tenant file's keys, and how each merges into the tenant the file starts from.
///
/// Entries in `clients`, `users`, `audiences` and `connections` that name an existing one
/// (by `client_id`; by `user_id` or case-insensitive `email`; by `identifier`; by `name`)
/// change it, others are added. For clients and users only the fields written change; an
/// audience's `scopes` and a whole connection are replaced.
extension TenantDecoder {
    static let topLevelKeys = [
        "replace_defaults", "signing_algorithm", "require_dpop_nonce", "pages", "default_audience",
        "lifetimes", "clients", "users", "audiences", "connections", "refresh_rotation",
        "refresh_token_reuse", "deviations", "pushed_authorization_requests",
    ]
    static let clientKeys = [
        "client_id", "client_secret", "name", "redirect_uris", "post_logout_redirect_uris", "grant_types",
        "require_dpop", "lifetimes", "refresh_rotation", "rotate_refresh_tokens",
        "token_endpoint_auth_method",
        "jwks", "jwks_file",
    ]
    static let userKeys = [
        "user_id", "email", "password", "name", "given_name", "family_name", "email_verified",
    ]
    static let audienceKeys = ["identifier", "scopes"]
    static let openIDConnectionKeys = ["issuer", "audience", "jwks", "jwks_file"]
    static let appleConnectionKeys = [
        "apple_url", "team_id", "key_id", "private_key_pem", "private_key_file", "bundle_ids", "reject_nonce",
        "accept_authorization_codes", "refuse_unlinked_accounts",
    ]
    static let connectionKeys = ["name", "kind"] + openIDConnectionKeys + appleConnectionKeys
    /// The grants the issuer implements (RFC 6749 §4.1, §6; RFC 8693).
    static let grantTypes = [
        GrantType.authorizationCode, GrantType.refreshToken, GrantType.tokenExchange,
    ]
    static let signingAlgorithms: [JWSAlgorithm] = [.es256, .rs256]
    /// The longest lifetime accepted: ten years, far from overflowing `now + lifetime`.
    static let longestLifetime: Int64 = 10 * 365 * 86400

    /// Each lifetime's key and its field.
    static let lifetimeFields: [(key: String, field: any WritableKeyPath<TokenLifetimes, Int64> & Sendable)] =
        [
            ("authorization_code", \.authorizationCode),
            ("access_token", \.accessToken),
            ("id_token", \.idToken),
            ("refresh_token", \.refreshToken),
            ("session", \.session),
            ("transaction", \.transaction),
            ("dpop_proof_window", \.dpopProofWindow),
            ("pushed_request", \.pushedRequest),
        ]

    /// What `replace_defaults: true` starts from: nothing but the built-in settings.
    static let emptyTenant = Tenant(
        clients: [], users: [], audiences: [], connections: [], defaultAudience: nil)

    /// The tenant a document describes; no document (an empty file) is `Tenant.default`.
    func tenant(from root: YAMLNode?) throws(TenantError) -> Tenant {
        guard let root, !root.isNull else { return .default }
        let fields = try fields(root, of: "the tenant file", allowed: Self.topLevelKeys)
        var tenant = Tenant.default
        // Sections are applied in this order whatever order the file lists them in, so that
        // clients' lifetimes start from the file's tenant lifetimes, default_audience can name
        // an audience the file adds, and clients' redirect URIs are checked with the file's
        // deviations.
        if let node = fields["replace_defaults"], try bool(node, "replace_defaults") {
            tenant = Self.emptyTenant
        }
        if let node = fields["signing_algorithm"] {
            let name = try string(node, "signing_algorithm")
            guard let algorithm = Self.signingAlgorithms.first(where: { $0.rawValue == name }) else {
                let known = Self.signingAlgorithms.map(\.rawValue).joined(separator: " or ")
                throw failure(
                    "unknown signing_algorithm \"\(name.prefix(32))\"; expected \(known)", at: node.mark)
            }
            tenant.signingAlgorithm = algorithm
        }
        if let node = fields["require_dpop_nonce"] {
            tenant.requireDPoPNonce = try bool(node, "require_dpop_nonce")
        }
        if let node = fields["pages"] { tenant.pageStyle = try pageStyle(node) }
        if let node = fields["pushed_authorization_requests"] {
            tenant.pushedAuthorizationRequests = try pushedAuthorizationPolicy(node)
        }
        if let node = fields["deviations"] { tenant.deviations = try deviations(node) }
        var legacyGrace: YAMLNode?
        if let node = fields["lifetimes"] {
            (tenant.lifetimes, legacyGrace) = try lifetimes(node, base: tenant.lifetimes, of: "lifetimes")
        }
        tenant.refreshRotation = try tenantRotation(
            fields, legacyGrace: legacyGrace, base: tenant.refreshRotation)
        if let node = fields["audiences"] { try mergeAudiences(node, into: &tenant) }
        if let node = fields["default_audience"] {
            let identifier = try optionalString(node, "default_audience")
            if let identifier, tenant.audience(identifier) == nil {
                let known = tenant.audiences.map(\.identifier).joined(separator: ", ")
                throw failure(
                    "default_audience \"\(identifier.prefix(200))\" is not one of the audiences ("
                        + (known.isEmpty ? "there are none" : known) + ")", at: node.mark)
            }
            tenant.defaultAudience = identifier
        }
        if let node = fields["clients"] { try mergeClients(node, into: &tenant) }
        if let node = fields["users"] { try mergeUsers(node, into: &tenant) }
        if let node = fields["connections"] { try mergeConnections(node, into: &tenant) }
        return tenant
    }

    /// `pages`: `html` (forms in the served HTML) or `javascript` (forms a script renders).
    private func pageStyle(_ node: YAMLNode) throws(TenantError) -> LoginPageStyle {
        let name = try string(node, "pages")
        guard let style = LoginPageStyle(rawValue: name) else {
            throw failure(
                "unknown pages \"\(name.prefix(32))\""
                    + NearMiss.alternatives(for: name, among: LoginPageStyle.allCases.map(\.rawValue)),
                at: node.mark)
        }
        return style
    }

    /// `pushed_authorization_requests`: `off`, `allowed` or `required` (RFC 9126 §5).
    private func pushedAuthorizationPolicy(_ node: YAMLNode) throws(TenantError) -> PushedAuthorizationPolicy
    {
        let known = PushedAuthorizationPolicy.allCases.map(\.rawValue)
        guard let name = node.string else {
            throw failure(
                "pushed_authorization_requests must be off, allowed or required, found \(node.typeDescription)",
                at: node.mark)
        }
        guard let policy = PushedAuthorizationPolicy(rawValue: name) else {
            throw failure(
                "unknown pushed_authorization_requests \"\(name.prefix(32))\""
                    + NearMiss.alternatives(for: name, among: known),
                at: node.mark)
        }
        return policy
    }

    /// `deviations`: a list of `IssuerDeviation` names, each a rule the issuer breaks.
    private func deviations(_ node: YAMLNode) throws(TenantError) -> Set<IssuerDeviation> {
        var result = Set<IssuerDeviation>()
        for (name, item) in try strings(node, "deviations") {
            guard let deviation = IssuerDeviation(rawValue: name) else {
                throw failure(
                    "unknown deviation \"\(name.prefix(64))\""
                        + NearMiss.alternatives(for: name, among: IssuerDeviation.allCases.map(\.rawValue)),
                    at: item.mark)
            }
            result.insert(deviation)
        }
        return result
    }

    // MARK: - Lifetimes

    /// `base` with the lifetimes the mapping lists, each a positive number of seconds, and the
    /// node of `refresh_reuse_grace` (the older spelling of the `signinsim` profile's grace,
    /// which is no lifetime: `tenantRotation` and `clientRotation` take it).
    func lifetimes(_ node: YAMLNode, base: TokenLifetimes, of what: String) throws(TenantError)
        -> (TokenLifetimes, legacyGrace: YAMLNode?)
    {
        let fields = try fields(
            node, of: what, allowed: Self.lifetimeFields.map(\.key) + [Self.legacyGraceKey])
        var result = base
        for pair in fields.mapping.pairs {
            guard let key = pair.key.scalar?.value,
                let entry = Self.lifetimeFields.first(where: { $0.key == key })
            else { continue }
            let seconds = try integer(pair.value, key)
            if seconds <= 0 {
                throw failure(
                    "\(key) must be a positive number of seconds, found \(seconds)", at: pair.value.mark)
            }
            if seconds > Self.longestLifetime {
                throw failure(
                    "\(key) must be at most \(Self.longestLifetime) seconds (ten years), found \(seconds)",
                    at: pair.value.mark)
            }
            result[keyPath: entry.field] = seconds
        }
        return (result, fields[Self.legacyGraceKey])
    }

    // MARK: - Clients

    private func mergeClients(_ node: YAMLNode, into tenant: inout Tenant) throws(TenantError) {
        var seen: [String: YAMLMark] = [:]
        for item in try sequence(node, "clients") {
            let fields = try fields(item, of: "a client", allowed: Self.clientKeys)
            let idNode = try required("client_id", in: fields, of: "a client")
            let id = try nonEmptyString(idNode, "client_id")
            if let first = seen[id] {
                throw failure(
                    "client_id \"\(id.prefix(200))\" appears twice in this file (first at line \(first.line))",
                    at: idNode.mark)
            }
            seen[id] = idNode.mark
            let index = tenant.clients.firstIndex { $0.id == id }
            var client = index.map { tenant.clients[$0] } ?? ClientRegistration(id: id, redirectURIs: [])
            if let node = fields["client_secret"] {
                client.secret = try optionalString(node, "client_secret")
            }
            if let node = fields["name"] { client.name = try nonEmptyString(node, "name") }
            if let node = fields["redirect_uris"] {
                client.redirectURIs = try redirectURIs(node, "redirect_uris", deviations: tenant.deviations)
            }
            if let node = fields["post_logout_redirect_uris"] {
                client.postLogoutRedirectURIs = try redirectURIs(
                    node, "post_logout_redirect_uris", deviations: tenant.deviations)
            }
            if let node = fields["grant_types"] { client.grantTypes = try grantTypes(node) }
            if let node = fields["require_dpop"] { client.requireDPoP = try bool(node, "require_dpop") }
            var legacyGrace: YAMLNode?
            if let node = fields["lifetimes"] {
                if node.isNull {
                    client.lifetimes = nil
                } else {
                    (client.lifetimes, legacyGrace) = try lifetimes(
                        node, base: client.lifetimes ?? tenant.lifetimes,
                        of: "the lifetimes of client \"\(id.prefix(200))\"")
                }
            }
            client.refreshRotation = try clientRotation(
                fields, legacyGrace: legacyGrace, base: client.refreshRotation, tenant: tenant.refreshRotation
            )
            try clientAuthentication(fields, into: &client)
            if let index { tenant.clients[index] = client } else { tenant.clients.append(client) }
        }
    }

    /// `token_endpoint_auth_method` and the client's keys (`jwks` or `jwks_file`), checked
    /// against the client as merged: the method has the credential it needs, and the client
    /// has no credential the method would ignore.
    private func clientAuthentication(_ fields: TenantFields, into client: inout ClientRegistration)
        throws(TenantError)
    {
        let methodNode = fields["token_endpoint_auth_method"]
        if let node = methodNode {
            if node.isNull {
                client.authenticationMethod = nil
            } else {
                let name = try string(node, "token_endpoint_auth_method")
                guard let method = TokenEndpointAuthMethod(rawValue: name) else {
                    throw failure(
                        "unknown token_endpoint_auth_method \"\(name.prefix(64))\"; expected one of "
                            + TokenEndpointAuthMethod.spelledOut, at: node.mark)
                }
                client.authenticationMethod = method
            }
        }
        switch (fields["jwks"], fields.mapping.pair(forKey: "jwks_file")) {
        case (let inline?, nil):
            client.keys = inline.isNull ? nil : try keySet(inline, of: "jwks")
        case (nil, let file?):
            client.keys = try keySet(file: file.value, of: "client \"\(client.id.prefix(200))\"")
        case (_?, let file?):
            throw failure("give jwks or jwks_file, not both", at: file.key.mark)
        case (nil, nil):
            break
        }
        if let problem = client.authenticationProblem {
            throw failure(problem, at: methodNode?.mark ?? fields.mark)
        }
    }

    /// Redirect URIs a native app may register (RFC 8252 §7), each refused at its own line.
    /// `deviations` are the tenant's, which `tenant(from:)` reads before the clients
    /// (`allow-localhost-redirects` lets `http://localhost` be registered).
    private func redirectURIs(_ node: YAMLNode, _ name: String, deviations: Set<IssuerDeviation>)
        throws(TenantError) -> [String]
    {
        var uris: [String] = []
        for (uri, item) in try strings(node, name) {
            if let problem = RedirectURIPolicy.registrationProblem(uri, deviations: deviations) {
                throw failure("\(name): \(problem)", at: item.mark)
            }
            uris.append(uri)
        }
        return uris
    }

    private func grantTypes(_ node: YAMLNode) throws(TenantError) -> Set<String> {
        let listed = try strings(node, "grant_types")
        guard !listed.isEmpty else {
            throw failure("grant_types must list at least one grant type", at: node.mark)
        }
        for (grant, item) in listed where !Self.grantTypes.contains(grant) {
            throw failure(
                "unknown grant type \"\(grant.prefix(100))\"; expected one of "
                    + Self.grantTypes.joined(separator: ", "), at: item.mark)
        }
        return Set(listed.map(\.value))
    }

    // MARK: - Users

    private func mergeUsers(_ node: YAMLNode, into tenant: inout Tenant) throws(TenantError) {
        var seenEmails: [String: YAMLMark] = [:]
        var seenIDs: [String: YAMLMark] = [:]
        for item in try sequence(node, "users") {
            let fields = try fields(item, of: "a user", allowed: Self.userKeys)
            var email: String?
            if let node = fields["email"] {
                let value = try nonEmptyString(node, "email")
                guard value.contains("@") else {
                    throw failure("email \"\(value.prefix(200))\" is not an email address", at: node.mark)
                }
                if let first = seenEmails[value.lowercased()] {
                    throw failure(
                        "email \"\(value.prefix(200))\" appears twice in this file (first at line \(first.line))",
                        at: node.mark)
                }
                seenEmails[value.lowercased()] = node.mark
                email = value
            }
            var id: String?
            if let node = fields["user_id"] {
                let value = try nonEmptyString(node, "user_id")
                if let first = seenIDs[value] {
                    throw failure(
                        "user_id \"\(value.prefix(200))\" appears twice in this file (first at line \(first.line))",
                        at: node.mark)
                }
                seenIDs[value] = node.mark
                id = value
            }
            let byID = id.flatMap { wanted in tenant.users.firstIndex { $0.id == wanted } }
            let byEmail = email.flatMap { wanted in
                tenant.users.firstIndex { $0.email?.lowercased() == wanted.lowercased() }
            }
            if let byID, let byEmail, byID != byEmail, let email, let id, let node = fields["email"] {
                throw failure(
                    "email \"\(email.prefix(200))\" belongs to user \"\(tenant.users[byEmail].id.prefix(200))\", "
                        + "not to \"\(id.prefix(200))\"", at: node.mark)
            }
            let index = byID ?? byEmail
            var user: UserAccount
            if let index {
                user = tenant.users[index]
            } else if let identifier = id ?? email.map(Self.derivedUserID) {
                user = UserAccount(id: identifier)
            } else {
                throw failure("a user needs email or user_id", at: fields.mark)
            }
            if let id { user.id = id }
            if let email { user.email = email }
            if let node = fields["password"] { user.password = try optionalString(node, "password") }
            if let node = fields["name"] { user.name = try optionalString(node, "name") }
            if let node = fields["given_name"] { user.givenName = try optionalString(node, "given_name") }
            if let node = fields["family_name"] { user.familyName = try optionalString(node, "family_name") }
            if let node = fields["email_verified"] { user.emailVerified = try bool(node, "email_verified") }
            if let index { tenant.users[index] = user } else { tenant.users.append(user) }
        }
    }

    /// A stable `sub` for a user the file gives no `user_id`: the same email gives the same id
    /// on every run, so recorded scenarios stay comparable.
    static func derivedUserID(email: String) -> String {
        let digest = SHA256.hash(Array(email.lowercased().utf8))
        let hex = digest.prefix(12).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        return "auth0|" + hex.joined()
    }

    // MARK: - Audiences

    private func mergeAudiences(_ node: YAMLNode, into tenant: inout Tenant) throws(TenantError) {
        var seen: [String: YAMLMark] = [:]
        for item in try sequence(node, "audiences") {
            let fields = try fields(item, of: "an audience", allowed: Self.audienceKeys)
            let identifierNode = try required("identifier", in: fields, of: "an audience")
            let identifier = try nonEmptyString(identifierNode, "identifier")
            if let first = seen[identifier] {
                throw failure(
                    "audience \"\(identifier.prefix(200))\" appears twice in this file (first at line \(first.line))",
                    at: identifierNode.mark)
            }
            seen[identifier] = identifierNode.mark
            var scopes: [String]?
            if let node = fields["scopes"] {
                scopes = []
                for (scope, scopeNode) in try strings(node, "scopes") {
                    guard Self.isScopeToken(scope) else {
                        throw failure(
                            "scope \"\(scope.prefix(100))\" has a character a scope cannot have (RFC 6749 §3.3)",
                            at: scopeNode.mark)
                    }
                    scopes?.append(scope)
                }
            }
            if let index = tenant.audiences.firstIndex(where: { $0.identifier == identifier }) {
                if let scopes { tenant.audiences[index].scopes = scopes }
            } else {
                tenant.audiences.append(APIAudience(identifier: identifier, scopes: scopes ?? []))
            }
        }
    }

    /// RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`.
    static func isScopeToken(_ scope: String) -> Bool {
        !scope.isEmpty
            && scope.utf8.allSatisfy { byte in
                byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
            }
    }

    // MARK: - Connections

    private func mergeConnections(_ node: YAMLNode, into tenant: inout Tenant) throws(TenantError) {
        var seen: [String: YAMLMark] = [:]
        for item in try sequence(node, "connections") {
            let fields = try fields(item, of: "a connection", allowed: Self.connectionKeys)
            let nameNode = try required("name", in: fields, of: "a connection")
            let name = try nonEmptyString(nameNode, "name")
            if let first = seen[name] {
                throw failure(
                    "connection \"\(name.prefix(200))\" appears twice in this file (first at line \(first.line))",
                    at: nameNode.mark)
            }
            seen[name] = nameNode.mark
            let kindNode = try required("kind", in: fields, of: "a connection")
            let connection: ConnectionConfiguration
            switch try string(kindNode, "kind") {
            case "apple":
                for key in Self.openIDConnectionKeys {
                    if let pair = fields.mapping.pair(forKey: key) {
                        throw failure("\(key) applies only to connections of kind openid", at: pair.key.mark)
                    }
                }
                connection = ConnectionConfiguration(
                    name: name, kind: .apple, apple: try appleSettings(fields))
            case "openid":
                for key in Self.appleConnectionKeys {
                    if let pair = fields.mapping.pair(forKey: key) {
                        throw failure("\(key) applies only to connections of kind apple", at: pair.key.mark)
                    }
                }
                connection = ConnectionConfiguration(name: name, kind: try openIDProvider(fields, name: name))
            case let other:
                throw failure(
                    "unknown connection kind \"\(other.prefix(64))\"; expected apple or openid",
                    at: kindNode.mark)
            }
            if let index = tenant.connections.firstIndex(where: { $0.name == name }) {
                tenant.connections[index] = connection
            } else {
                tenant.connections.append(connection)
            }
        }
    }

    private func openIDProvider(_ fields: TenantFields, name: String) throws(TenantError)
        -> ConnectionConfiguration.Kind
    {
        let issuerNode = try required("issuer", in: fields, of: "a connection of kind openid")
        let issuer = try nonEmptyString(issuerNode, "issuer")
        guard let parts = URLParts(issuer), parts.host != nil,
            parts.scheme == "https" || (parts.scheme == "http" && parts.isLoopback)
        else {
            throw failure(
                "issuer \"\(issuer.prefix(200))\" must be an https URL (http only for loopback)",
                at: issuerNode.mark)
        }
        let audienceNode = try required("audience", in: fields, of: "a connection of kind openid")
        let audience = try nonEmptyString(audienceNode, "audience")
        let keys: JWKSet
        switch (fields["jwks"], fields.mapping.pair(forKey: "jwks_file")) {
        case (let inline?, nil):
            keys = try keySet(inline, of: "jwks")
        case (nil, let file?):
            keys = try keySet(file: file.value, of: "connection \"\(name.prefix(200))\"")
        case (_?, let file?):
            throw failure("give jwks or jwks_file, not both", at: file.key.mark)
        case (nil, nil):
            throw failure("a connection of kind openid needs jwks or jwks_file", at: fields.mark)
        }
        return .openIDProvider(issuer: issuer, audience: audience, keys: keys)
    }

    /// A JWK Set (RFC 7517 §5) of usable public keys; each bad key is refused at its own line.
    func keySet(_ node: YAMLNode, of what: String) throws(TenantError) -> JWKSet {
        guard case .mapping = node else {
            throw failure(
                "\(what) must be a JWK Set (a mapping with keys), found \(node.typeDescription)",
                at: node.mark)
        }
        guard let keysNode = node["keys"] else {
            throw failure("\(what) has no keys member (RFC 7517 §5)", at: node.mark)
        }
        let items = try sequence(keysNode, "keys")
        guard !items.isEmpty else { throw failure("\(what) has no keys", at: keysNode.mark) }
        var keys: [JWK] = []
        for item in items {
            let value = try json(item)
            let key: JWK
            do throws(JOSEError) {
                key = try JWK(json: value)
                _ = try key.verificationKey()
            } catch {
                throw failure("not a usable public key: \(error.message)", at: item.mark)
            }
            if key.isPrivate {
                throw failure("this key has a private part (d); list public keys only", at: item.mark)
            }
            // RSA factors without `d` are private all the same (RFC 7518 §6.3.2).
            let secrets = JWK.privateMembers(in: value)
            if !secrets.isEmpty {
                throw failure(
                    "this key has private members (\(secrets.joined(separator: ", "))); list public keys only",
                    at: item.mark)
            }
            keys.append(key)
        }
        return JWKSet(keys: keys)
    }

    /// The JWK Set in a JSON file named relative to the tenant file. Problems inside that file
    /// are reported at their place in it, with a note of where the tenant file names it.
    private func keySet(file node: YAMLNode, of owner: String) throws(TenantError) -> JWKSet {
        let relative = try nonEmptyString(node, "jwks_file")
        let path = TenantLoader.resolve(relative, relativeTo: directory)
        let bytes: [UInt8]
        do {
            bytes = try TenantLoader.readFile(path, limit: JWKSet.maximumSize, reportedAs: path)
        } catch {
            throw failure(
                "cannot use jwks_file \"\(relative.prefix(200))\": \(path): \(error.message)", at: node.mark)
        }
        do throws(TenantError) {
            guard let root = try TenantLoader.parse(bytes, format: .json, fileName: path) else {
                throw TenantError(fileName: path, message: "the file is empty; expected a JWK Set")
            }
            let decoder = TenantDecoder(fileName: path, directory: TenantLoader.directory(of: path))
            return try decoder.keySet(root, of: "the JWK Set")
        } catch {
            let reference = " (the jwks_file of \(owner), \(fileName):\(node.mark.line):\(node.mark.column))"
            throw TenantError(
                fileName: error.fileName, line: error.line, column: error.column,
                message: error.message + reference)
        }
    }
}
