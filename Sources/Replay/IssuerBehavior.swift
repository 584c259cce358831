import HTTPCore
import Issuer
import JOSE
import JSON
import OAuthCore
import Recordings
import Scenario
import WorldVocabulary

/// What a capture shows of the recorded issuer, as the embedded issuer's configuration (a
/// tenant) and faults armed before the steps that met them.
///
/// - The tenant: each client (its redirect URIs, secret, whether it rotates refresh tokens),
///   each user who typed a password that was accepted (with the claims the issuer gave), the
///   signing algorithm, token lifetimes (access tokens' from `expires_in`, ID tokens' from
///   `exp` − `iat`), the refresh rotation (`refresh_rotation`: the `signinsim` profile's reuse
///   grace and what a rotated refresh token presented again does, the `keycloak` profile when a
///   token was refused after a number of uses, or `none` for a client whose refreshes answer no
///   refresh token), whether DPoP proofs need a server nonce.
/// - Faults: ID tokens that a relying party must refuse become the RP conformance fault that
///   makes them (a wrong `iss`, `aud`, `nonce`, `at_hash`, a bad or missing signature, a key
///   the first key set did not hold…); a callback whose `state` is not the request's becomes
///   `callback-state-altered`, and so does one whose code the app never redeemed for a cause
///   the capture does not show (the cause assumed: a state the app did not store); server errors, HTML error pages and rate limits the transport
///   faults that answer them; a race (a `parallel` block) a delay on its first request, so
///   that the calls overlap at the embedded issuer as they did at the recorded one.
///
/// Answers the embedded issuer gives by itself (an `invalid_grant` for a reused token) are
/// not armed: `ScenarioDerivation` checks the derived scenario and cans only what differs.
struct IssuerBehavior {
    /// The tenant document (the format of `serve --tenant`).
    var tenant: [String: JSONValue] = [:]
    /// Issuer steps to insert before each story step (by number, from 1).
    var before: [Int: [Step]] = [:]
    /// What was derived, with the entries that show it, for the scenario's description.
    var findings: [String] = []

    /// The embedded issuer's path for each endpoint role.
    static let embeddedPaths: [CaptureAnalysis.Role: String] = [
        .discovery: "/.well-known/openid-configuration", .jwks: "/.well-known/jwks.json",
        .authorization: "/authorize", .login: "/u/login", .consent: "/u/consent", .token: "/oauth/token",
        .userinfo: "/userinfo", .revocation: "/oauth/revoke", .endSession: "/oidc/logout",
    ]

    private let analysis: CaptureAnalysis
    private let story: ReplayStory
    private let stepOf: [Int: Int]

    init(_ analysis: CaptureAnalysis, story: ReplayStory, apps: [AppSetup], users: [[String: JSONValue]]) {
        self.analysis = analysis
        self.story = story
        var stepOf: [Int: Int] = [:]
        for (step, entries) in story.stepEntries { for entry in entries { stepOf[entry] = step } }
        self.stepOf = stepOf
        tenant = tenantDocument(apps: apps, users: users)
        derivePages()
        deriveIssParameterOmitted()
        // A race's delay first: faults are taken in the order they were armed.
        deriveRaces()
        deriveTokenFaults()
        deriveCallbackAndLogoutFaults()
        deriveConsentFaults()
        deriveTransportFaults()
    }

    private func number(_ index: Int) -> Int { analysis.capture.entryNumber(of: index) }

    /// An issuer step for the story step holding `index` (or `step`).
    private mutating func arm(
        _ action: IssuerAction, for index: Int?, step: Int? = nil, because reason: String
    ) {
        guard let target = step ?? index.flatMap({ stepOf[$0] }) else { return }
        let location = SourceLocation(
            file: story.scenario.location.file, line: index.map(number) ?? 1, column: 1)
        // One fault armed twice before one step counts twice.
        if case .fault(let setup) = action, var steps = before[target],
            let existing = steps.firstIndex(where: {
                if case .world(.issuer(.fault(let other))) = $0.action {
                    return other.fault == setup.fault && other.path == setup.path
                        && other.status == setup.status
                        && other.error == setup.error && other.delayMilliseconds == setup.delayMilliseconds
                }
                return false
            }), case .world(.issuer(.fault(var other))) = steps[existing].action
        {
            other.count += 1
            steps[existing] = Step(.world(.issuer(.fault(other))), name: "issuer", location: location)
            before[target] = steps
        } else {
            before[target, default: []].append(
                Step(.world(.issuer(action)), name: "issuer", location: location))
        }
        findings.append(reason)
    }

    // MARK: The tenant

    /// `pages: javascript` when the capture shows the issuer's login page as a script shell
    /// (`CaptureAnalysis.scriptShellPages`): the embedded issuer's pages are then script shells
    /// too, so that an engine that runs no script stops where the recorded one did, and one
    /// that runs them signs in through the script as the recorded one did.
    private mutating func derivePages() {
        guard analysis.showsScriptShellLogin else { return }
        tenant["pages"] = .string(LoginPageStyle.javascript.rawValue)
        let entries = analysis.scriptShellPages.map(number)
        findings.append(
            "entr\(entries.count == 1 ? "y" : "ies") \(ReplayReport.ranges(entries)): the login page is a script "
                + "shell (scripts, no form), so the tenant's pages are javascript")
    }

    /// `deviations: [iss-parameter-omitted]` when discovery promised RFC 9207's `iss` on
    /// authorization responses and a code came without one: the embedded issuer then leaves it
    /// out the same way, and an SDK that checks it refuses the response as the recorded one did
    /// (RFC 9207 §2.4). An error without `iss` alone does not count: django-oauth-toolkit sends
    /// its denials so while its codes carry `iss`, and an error carries no code to steal.
    private mutating func deriveIssParameterOmitted() {
        guard analysis.discovery?["authorization_response_iss_parameter_supported"]?.boolValue == true else {
            return
        }
        let bare = analysis.signIns.compactMap(\.callback).filter { callback in
            let query = (try? URLParts.queryParameters(of: callback.url)) ?? FormParameters()
            return query["iss"] == nil && callback.code != nil
        }
        guard let first = bare.first else { return }
        tenant["deviations"] = .array([.string(IssuerDeviation.issParameterOmitted.rawValue)])
        findings.append(
            "entry \(number(first.exchange)): discovery promises iss in authorization responses, but the "
                + "callback's code came without one, so the tenant deviates: iss-parameter-omitted")
    }

    /// The tenant document, setting by setting: the signing algorithm, the token lifetimes,
    /// refresh rotation, DPoP nonces, the clients, the Apple connection and the users.
    private func tenantDocument(apps: [AppSetup], users: [[String: JSONValue]]) -> [String: JSONValue] {
        var document: [String: JSONValue] = [:]
        if let algorithm = signingAlgorithm(), algorithm != "ES256" {
            document["signing_algorithm"] = .string(algorithm)
        }
        let lifetimes = tokenLifetimes()
        if !lifetimes.isEmpty { document["lifetimes"] = .object(lifetimes) }
        if let rotation = refreshRotation() { document["refresh_rotation"] = rotation }
        if analysis.entries.contains(where: { $0.summary.oauthError == OAuthErrorCode.useDPoPNonce }) {
            document["require_dpop_nonce"] = true
        }
        var clients: [JSONValue] = []
        var registered: Set<String> = []
        // Apps that share a client id share its registration: the first app's describes it.
        for app in apps where registered.insert(app.clientID).inserted {
            clients.append(.object(client(app)))
        }
        document["clients"] = .array(clients)
        if let apple = appleConnection(apps) { document["connections"] = [apple] }
        if !users.isEmpty { document["users"] = .array(users.map(JSONValue.object)) }
        return document
    }

    /// The signing algorithm of the first ID token signed with one the issuer offers (RS256, ES256).
    private func signingAlgorithm() -> String? {
        let exchanges = analysis.capture.exchanges
        for index in analysis.timeline where analysis.entries[index].role == .token {
            guard let token = ReplayKeys.idToken(in: exchanges[index]), let jws = try? JWS.parse(token),
                let alg = jws.header.members["alg"]?.stringValue, alg == "RS256" || alg == "ES256"
            else { continue }
            return alg
        }
        return nil
    }

    /// The lifetimes that are not the defaults: the access tokens' (`expires_in` of the first
    /// successful token response) and the ID tokens' (`exp` − `iat` of the first one), which
    /// decides whether a device with a skewed clock accepts them.
    private func tokenLifetimes() -> [String: JSONValue] {
        let exchanges = analysis.capture.exchanges
        var lifetimes: [String: JSONValue] = [:]
        for index in analysis.timeline where analysis.entries[index].role == .token {
            guard exchanges[index].status == 200,
                let body = try? JSONValue.parseObject(exchanges[index].responseBody),
                let expiresIn = body["expires_in"]?.int64Value
            else { continue }
            if expiresIn != 3600, expiresIn > 0 { lifetimes["access_token"] = .int(expiresIn) }
            break
        }
        for index in analysis.timeline where analysis.entries[index].role == .token {
            guard exchanges[index].status == 200, let token = ReplayKeys.idToken(in: exchanges[index]),
                let claims = try? JWS.parse(token).payloadObject(), let issuedAt = claims["iat"]?.int64Value,
                let expiry = claims["exp"]?.int64Value, expiry > issuedAt
            else { continue }
            // The capture's numbers are anyone's: `exp` − `iat` may not fit in Int64.
            let (lifetime, overflowed) = expiry.subtractingReportingOverflow(issuedAt)
            guard !overflowed else { continue }
            if lifetime != TokenLifetimes().idToken {
                lifetimes["id_token"] = .int(lifetime)
            }
            break
        }
        return lifetimes
    }

    /// What a rotated token presented again met: a use count as Keycloak's, or the `signinsim`
    /// profile's grace and reuse policy; nil when the capture shows neither.
    private func refreshRotation() -> JSONValue? {
        let reuse = refreshReuse()
        if reuse.policy == nil, let maxReuse = refreshReuseCount() {
            return [
                "profile": .string(RefreshRotation.Name.keycloak.rawValue),
                "max_reuse": .int(Int64(maxReuse)),
            ]
        }
        guard reuse.grace != nil || reuse.policy != nil else { return nil }
        var rotation: [String: JSONValue] = ["profile": .string(RefreshRotation.Name.signinsim.rawValue)]
        if let grace = reuse.grace { rotation["grace"] = .int(grace) }
        if let policy = reuse.policy { rotation["on_reuse"] = .string(policy.rawValue) }
        return .object(rotation)
    }

    /// The app's client registration: its redirect URIs (the app's and those its sign-ins
    /// sent), post-logout redirect URIs, secret or key, grant types and refresh rotation.
    private func client(_ app: AppSetup) -> [String: JSONValue] {
        var client: [String: JSONValue] = ["client_id": .string(app.clientID)]
        var redirects = [app.redirectURI]
        for flow in analysis.signIns where flow.clientID == app.clientID {
            if let uri = flow.redirectURI, !redirects.contains(uri) { redirects.append(uri) }
        }
        client["redirect_uris"] = .array(redirects.map(JSONValue.string))
        var logouts = analysis.signOuts.compactMap(\.postLogoutRedirectURI)
        if let uri = app.postLogoutRedirectURI, !logouts.contains(uri) { logouts.append(uri) }
        if !logouts.isEmpty {
            client["post_logout_redirect_uris"] = .array(Set(logouts).sorted().map(JSONValue.string))
        }
        if let secret = app.clientSecret { client["client_secret"] = .string(secret) }
        if case .jwk(let json)? = app.clientKey, let key = try? JWK(json: json) {
            client["jwks"] = ["keys": [key.publicKey.json]]
            client["token_endpoint_auth_method"] = .string(TokenEndpointAuthMethod.privateKeyJWT.rawValue)
        }
        client["grant_types"] = .array(grantTypes(app).map(JSONValue.string))
        if !rotatesRefreshTokens(clientID: app.clientID) {
            client["refresh_rotation"] = .string(RefreshRotation.Name.none.rawValue)
        }
        return client
    }

    /// The app's grant types: the authorization code and refresh grants, and token exchange
    /// when its token requests use it.
    private func grantTypes(_ app: AppSetup) -> [String] {
        var grants = [GrantType.authorizationCode, GrantType.refreshToken]
        for (index, entry) in analysis.entries.enumerated() where entry.role == .token {
            let form = CaptureAnalysis.form(analysis.capture.exchanges[index])
            if let grant = entry.grant, !grants.contains(grant),
                (form["client_id"] ?? app.clientID) == app.clientID,
                [GrantType.tokenExchange].contains(grant)
            {
                grants.append(grant)
            }
        }
        return grants
    }

    /// The Apple connection, when apps exchange Apple codes: theirs are its bundle ids (the
    /// connection is replaced whole: its kind and bundle ids).
    private func appleConnection(_ apps: [AppSetup]) -> JSONValue? {
        let exchanges = analysis.capture.exchanges
        let appleApps = apps.filter { app in
            analysis.entries.indices.contains { index in
                analysis.entries[index].grant == GrantType.tokenExchange
                    && (CaptureAnalysis.form(exchanges[index])["client_id"] ?? app.clientID) == app.clientID
                    && CaptureAnalysis.form(exchanges[index])["subject_token_type"]
                        == TokenTypeIdentifier.appleAuthorizationCode
            }
        }
        guard !appleApps.isEmpty else { return nil }
        return [
            "name": "apple", "kind": "apple",
            "bundle_ids": .array(appleApps.map { .string($0.clientID) }),
        ]
    }

    /// Whether the client's successful refreshes hand out a new refresh token.
    private func rotatesRefreshTokens(clientID: String) -> Bool {
        for (index, entry) in analysis.entries.enumerated()
        where entry.role == .token && entry.grant == GrantType.refreshToken {
            let exchange = analysis.capture.exchanges[index]
            guard exchange.status == 200, CaptureAnalysis.form(exchange)["client_id"] ?? clientID == clientID,
                let body = try? JSONValue.parseObject(exchange.responseBody)
            else { continue }
            return body["refresh_token"]?.stringValue != nil
        }
        return true
    }

    /// A refresh token exchanged more than once and then refused with `invalid_grant` before any
    /// token issued for it was presented: a reuse count, as Keycloak's "Refresh Token Max Reuse"
    /// (the token may be used `maxReuse + 1` times), which no grace explains (within a grace the
    /// token would have been accepted again). The exchanges are taken in the order the issuer
    /// finished them (a race's held request finishes last), a lost answer counting as accepted.
    private func refreshReuseCount() -> Int? {
        let exchanges = analysis.capture.exchanges
        let refreshes = analysis.timeline.filter {
            analysis.entries[$0].role == .token
                && CaptureAnalysis.form(exchanges[$0])["grant_type"] == GrantType.refreshToken
        }.sorted {
            exchanges[$0].sendingMoment + exchanges[$0].timeMilliseconds
                < exchanges[$1].sendingMoment + exchanges[$1].timeMilliseconds
        }
        var uses: [String: Int] = [:]
        var successors: [String: Set<String>] = [:]
        var presented = Set<String>()
        var maxReuse: Int?
        for index in refreshes {
            let exchange = exchanges[index]
            guard let token = CaptureAnalysis.form(exchange)["refresh_token"] else { continue }
            let lost =
                exchange.status == nil && exchange.error?.contains("lost after the server processed") == true
            if exchange.status == 200 || lost {
                uses[token, default: 0] += 1
                if let body = try? JSONValue.parseObject(exchange.responseBody),
                    let successor = body["refresh_token"]?.stringValue
                {
                    successors[token, default: []].insert(successor)
                }
            } else if analysis.entries[index].summary.oauthError == OAuthErrorCode.invalidGrant,
                let count = uses[token],
                count >= 2, successors[token, default: []].isDisjoint(with: presented)
            {
                maxReuse = max(maxReuse ?? 0, count - 1)
            }
            presented.insert(token)
        }
        return maxReuse
    }

    /// What a rotated refresh token presented again met: accepted within some seconds (a reuse
    /// grace), or refused with the family kept (a newer token still works afterwards) or revoked.
    private func refreshReuse() -> (grace: Int64?, policy: RefreshTokenReuse?) {
        let exchanges = analysis.capture.exchanges
        // When each token was rotated: on the wall clock (for order) and on the world's (for
        // the grace, which the issuer counts in its own seconds).
        var rotatedAt: [String: (index: Int, at: Double, worldAt: Int64, successor: String)] = [:]
        var grace: Int64?
        var refusedFamilies: [(after: Double, successor: String)] = []
        var policy: RefreshTokenReuse?
        for index in analysis.timeline where analysis.entries[index].role == .token {
            let exchange = exchanges[index]
            let form = CaptureAnalysis.form(exchange)
            let start = exchange.sendingMoment
            guard form["grant_type"] == GrantType.refreshToken, let token = form["refresh_token"] else {
                if exchange.status == 200, let body = try? JSONValue.parseObject(exchange.responseBody),
                    body["refresh_token"]?.stringValue != nil
                {
                    continue
                }
                continue
            }
            let body = try? JSONValue.parseObject(exchange.responseBody)
            // An answer the device lost after the issuer processed the request rotated the
            // token all the same (field bug 2), with a successor nobody saw.
            if exchange.status == nil, exchange.error?.contains("lost after the server processed") == true,
                rotatedAt[token] == nil
            {
                rotatedAt[token] = (
                    index, start + exchange.timeMilliseconds, exchange.startedAtMilliseconds, ""
                )
                continue
            }
            if let previous = rotatedAt[token], start >= previous.at {
                if exchange.status == 200 {
                    let seconds = (exchange.startedAtMilliseconds - previous.worldAt + 999) / 1000
                    grace = max(grace ?? 1, seconds + 1)
                } else if analysis.entries[index].summary.oauthError == OAuthErrorCode.invalidGrant {
                    refusedFamilies.append((start, previous.successor))
                }
            }
            for refused in refusedFamilies where refused.successor == token && start > refused.after {
                policy = exchange.status == 200 ? .refuse : .revokeFamily
            }
            if exchange.status == 200, let successor = body?["refresh_token"]?.stringValue,
                successor != token,
                rotatedAt[token] == nil
            {
                rotatedAt[token] = (
                    index, start + exchange.timeMilliseconds, exchange.startedAtMilliseconds, successor
                )
            }
        }
        // One refresh token accepted twice, the second time while the first was in flight (a
        // race the recorded issuer answered twice): a reuse grace of at least a second.
        var accepted: [String: [Int]] = [:]
        for index in analysis.timeline where analysis.entries[index].grant == GrantType.refreshToken {
            if exchanges[index].status == 200,
                let token = CaptureAnalysis.form(exchanges[index])["refresh_token"]
            {
                accepted[token, default: []].append(index)
            }
        }
        for indices in accepted.values where indices.count > 1 {
            let seconds =
                (exchanges[indices.last ?? 0].startedAtMilliseconds
                    - exchanges[indices[0]].startedAtMilliseconds + 999) / 1000
            grace = max(grace ?? 1, seconds + 1)
        }
        return (grace, policy == .revokeFamily ? nil : policy)
    }

    // MARK: ID tokens

    /// An ID token in a recorded token response, as the checks on it read it.
    private struct RecordedIDToken {
        let index: Int
        let exchange: RecordedExchange
        let jws: JWS
        /// The header's `alg` (empty when absent).
        let alg: String
        let claims: [String: JSONValue]
        /// The token request's form.
        let form: FormParameters
        /// Whether it answers a refresh (not a code exchange).
        let isRefresh: Bool
        /// When the request was sent, in seconds.
        let now: Double
    }

    /// What the ID tokens before the one read showed.
    private struct IDTokenHistory {
        /// The issuer and subject of the last sign-in's ID token.
        var signedIn: (iss: String?, sub: String?)?
        /// The key ids that signed them.
        var seenKeyIDs = Set<String>()
        /// The last subject named.
        var lastSubject: String?
    }

    /// Faults for what the capture's ID tokens and userinfo answers show that an app must
    /// refuse, a key rotation where a token is signed with a key the earlier key set did not
    /// hold, and discovery documents that name another issuer.
    private mutating func deriveTokenFaults() {
        let keySets = recordedKeySets()
        var nonceOfCode: [String: String] = [:]
        for flow in analysis.signIns {
            if let code = flow.callback?.code, let nonce = flow.nonce { nonceOfCode[code] = nonce }
        }
        var history = IDTokenHistory()
        for index in analysis.timeline {
            deriveUserInfoSubjectFault(index, lastSubject: history.lastSubject)
            guard let token = recordedIDToken(index) else { continue }
            var fault = signatureFault(token, keySets: keySets, seenKeyIDs: &history.seenKeyIDs)
            if fault == nil {
                fault = claimsFault(token, signedIn: history.signedIn, nonceOfCode: nonceOfCode)
            }
            if let fault {
                arm(
                    .fault(FaultSetup(fault)), for: index,
                    because: "entry \(number(index)): an ID token an app must refuse (\(fault.rawValue))")
            }
            let subject = token.claims["sub"]?.stringValue
            if !token.isRefresh, token.exchange.status == 200 {
                history.signedIn = (token.claims["iss"]?.stringValue, subject)
            }
            history.lastSubject = subject ?? history.lastSubject
        }
        deriveDiscoveryIssuerFaults()
    }

    /// The key sets the capture's key set requests answered, each with when it was sent.
    private func recordedKeySets() -> [(at: Double, keys: [JWK])] {
        let exchanges = analysis.capture.exchanges
        var keySets: [(at: Double, keys: [JWK])] = []
        for index in analysis.timeline where analysis.entries[index].role == .jwks {
            if let set = try? JWKSet.parse(exchanges[index].responseBody) {
                keySets.append((exchanges[index].sendingMoment, set.keys))
            }
        }
        return keySets
    }

    /// A userinfo answer whose `sub` is not the last ID token's (OpenID Connect Core 1.0 §5.3.2).
    private mutating func deriveUserInfoSubjectFault(_ index: Int, lastSubject: String?) {
        let exchange = analysis.capture.exchanges[index]
        guard analysis.entries[index].role == .userinfo, exchange.status == 200,
            let body = try? JSONValue.parseObject(exchange.responseBody),
            let sub = body["sub"]?.stringValue,
            let expected = lastSubject, sub != expected
        else { return }
        arm(
            .fault(FaultSetup(.userInfoBadSubject)), for: index,
            because: "entry \(number(index)): userinfo's sub is not the ID token's")
    }

    /// The ID token of a recorded token response, nil for any other exchange.
    private func recordedIDToken(_ index: Int) -> RecordedIDToken? {
        let exchange = analysis.capture.exchanges[index]
        guard analysis.entries[index].role == .token, let token = ReplayKeys.idToken(in: exchange),
            let jws = try? JWS.parse(token)
        else { return nil }
        let form = CaptureAnalysis.form(exchange)
        return RecordedIDToken(
            index: index, exchange: exchange, jws: jws, alg: jws.header.members["alg"]?.stringValue ?? "",
            claims: (try? jws.payloadObject()) ?? [:], form: form,
            isRefresh: form["grant_type"] == GrantType.refreshToken,
            now: Double(exchange.startedAtMilliseconds) / 1000)
    }

    /// The fault of an ID token's signature: none, HMAC, a key no recorded set holds or one
    /// that does not verify it, or no `kid` (with one key of its type or several). A token
    /// signed with a key the key sets fetched so far did not hold arms a key rotation.
    private mutating func signatureFault(
        _ token: RecordedIDToken, keySets: [(at: Double, keys: [JWK])], seenKeyIDs: inout Set<String>
    ) -> IssuerFault? {
        let alg = token.alg
        let moment = token.exchange.sendingMoment
        if alg == "none" { return .idTokenUnsigned }
        if alg.hasPrefix("HS") { return .idTokenBadSignatureHS256 }
        guard let keyID = token.jws.header.keyID else {
            let sets = keySets.filter { $0.at >= moment }.first?.keys ?? keySets.last?.keys ?? []
            let candidates = sets.filter { $0.keyType == (alg == "RS256" ? .rsa : .ec) }
            return candidates.count > 1 ? .idTokenKidAbsentMultipleKeys : .idTokenKidAbsentSingleKey
        }
        defer { seenKeyIDs.insert(keyID) }
        let known = keySets.flatMap(\.keys).filter { $0.keyID == keyID }
        // A key no recorded set holds: a signature no key verifies.
        if known.isEmpty || !known.contains(where: { (try? token.jws.verify(with: $0)) != nil }) {
            return alg == "RS256" ? .idTokenBadSignatureRS256 : .idTokenBadSignatureES256
        }
        if !seenKeyIDs.isEmpty, !seenKeyIDs.contains(keyID),
            !keySets.filter({ $0.at <= moment }).flatMap(\.keys).contains(where: { $0.keyID == keyID })
        {
            let newAlgorithm = known.first?.algorithm
            arm(
                .rotateKeys(algorithm: newAlgorithm == "RS256" ? .rs256 : nil), for: token.index,
                because:
                    "entry \(number(token.index)): the ID token is signed with a key the earlier key set did not hold (a key rotation)"
            )
        }
        return nil
    }

    /// The first claim of a validly signed ID token an app must refuse (OpenID Connect Core 1.0
    /// §3.1.3.7, §12.2): the issuer, subject, audience, times (60 seconds' leeway), nonce and
    /// `at_hash`, against the configured issuer and the last sign-in's token.
    private func claimsFault(
        _ token: RecordedIDToken, signedIn: (iss: String?, sub: String?)?, nonceOfCode: [String: String]
    ) -> IssuerFault? {
        let claims = token.claims
        let isRefresh = token.isRefresh
        let now = token.now
        let subject = claims["sub"]?.stringValue
        let audience = claims["aud"]
        let clientID =
            token.form["client_id"] ?? CaptureAnalysis.basicClientID(token.exchange) ?? analysis.clientIDs
            .first
            ?? ""
        if let iss = claims["iss"]?.stringValue,
            JWTValidation.normalizedIssuer(iss) != JWTValidation.normalizedIssuer(analysis.issuer ?? "")
                || (isRefresh && signedIn?.iss != nil && signedIn?.iss != iss)
        {
            return isRefresh ? .refreshedIDTokenIssuerMismatch : .idTokenIssuerMismatch
        } else if subject == nil {
            return .idTokenSubjectMissing
        } else if isRefresh, let sub = signedIn?.sub, sub != subject {
            return .refreshedIDTokenSubjectMismatch
        } else if audience == nil {
            return .idTokenAudienceMissing
        } else if !(audience?.stringValue == clientID
            || (audience?.arrayValue?.contains(.string(clientID)) ?? false))
        {
            return .idTokenAudienceMismatch
        } else if claims["iat"] == nil {
            return .idTokenIssuedAtMissing
        } else if let iat = claims["iat"]?.doubleValue, iat > now + 60 {
            return .idTokenIssuedInFuture
        } else if let nbf = claims["nbf"]?.doubleValue, nbf > now + 60 {
            return .idTokenNotYetValid
        } else if let exp = claims["exp"]?.doubleValue, exp < now - 60 {
            return .idTokenExpired
        } else if !isRefresh, let code = token.form["code"], let nonce = nonceOfCode[code],
            let tokenNonce = claims["nonce"]?.stringValue, tokenNonce != nonce
        {
            return .nonceInvalid
        } else if let hash = claims["at_hash"]?.stringValue,
            let body = try? JSONValue.parseObject(token.exchange.responseBody),
            let accessToken = body["access_token"]?.stringValue,
            (try? HashClaim.leftHalfHash(of: accessToken, algorithm: token.alg)) != hash
        {
            return .idTokenBadAccessTokenHash
        } else if claims["at_hash"] == nil,
            story.scenario.apps.contains(where: { $0.profile.strictness.contains(.requireAccessTokenHash) })
        {
            return .idTokenAccessTokenHashMissing
        }
        return nil
    }

    /// Discovery documents that name another issuer than the one they were fetched for.
    private mutating func deriveDiscoveryIssuerFaults() {
        let exchanges = analysis.capture.exchanges
        let configured = ReplayStory.configuredIssuer(analysis)
        for index in analysis.timeline where analysis.entries[index].role == .discovery {
            guard let document = try? JSONValue.parseObject(exchanges[index].responseBody),
                let named = document["issuer"]?.stringValue,
                JWTValidation.normalizedIssuer(named) != JWTValidation.normalizedIssuer(configured)
            else { continue }
            arm(
                .fault(FaultSetup(.discoveryIssuerMismatch)), for: index,
                because: "entry \(number(index)): discovery names another issuer")
        }
    }

    // MARK: Callbacks and logout

    private mutating func deriveCallbackAndLogoutFaults() {
        for flow in analysis.signIns {
            guard let callback = flow.callback else { continue }
            if callback.state != nil, !callback.stateMatches {
                arm(
                    .fault(FaultSetup(.callbackStateAltered)), for: flow.authorization,
                    because: "entry \(number(callback.exchange)): the callback's state is not the request's")
            } else if story.source == .inferred, analysis.callbackRefusal(flow) == .causeNotShown {
                // The app's own state is not in the traffic: a callback whose state the app did
                // not store is made by altering the state on the way, which the SDK meets alike.
                arm(
                    .fault(FaultSetup(.callbackStateAltered)), for: flow.authorization,
                    because:
                        "entry \(number(callback.exchange)): the app never exchanged the callback's code "
                        + "although its state is the request's; cause assumed: a state the app did not "
                        + "store (state_mismatch), made here by altering the callback's state")
            }
        }
        for flow in analysis.signOuts where flow.state != nil {
            guard let last = flow.exchanges.last,
                let location = analysis.entries[last].summary.location,
                (try? URLParts.queryParameters(of: location))?["state"] == nil,
                flow.postLogoutRedirectURI.map({ location.hasPrefix($0) }) == true
            else { continue }
            arm(
                .fault(FaultSetup(.logoutWithoutState)), for: flow.exchanges[0],
                because: "entry \(number(last)): the post-logout redirect leaves out the state the app sent")
        }
        deriveLogoutsThatEndedNothing()
    }

    /// A sign-out the browser went through to the post-logout redirect, after which the next
    /// sign-in in a browser got a code without a login form: the issuer's session outlived the
    /// sign-out it acknowledged. Only a surviving session lets a sign-in skip the login form (an
    /// ephemeral sheet starts with no cookie), so the logout ended nothing: `logout-ends-nothing`.
    private mutating func deriveLogoutsThatEndedNothing() {
        var position: [Int: Int] = [:]
        for (order, index) in analysis.timeline.enumerated() { position[index] = order }
        for flow in analysis.signOuts where flow.sender == .browser && flow.reachedRedirect {
            guard let first = flow.exchanges.first, let last = flow.exchanges.last, let end = position[last]
            else { continue }
            let next = analysis.signIns
                .filter { (position[$0.authorization] ?? -1) > end }
                .min { (position[$0.authorization] ?? 0) < (position[$1.authorization] ?? 0) }
            guard let next, next.loginAttempts.isEmpty, let callback = next.callback, callback.code != nil
            else { continue }
            arm(
                .fault(FaultSetup(.logoutEndsNothing)), for: first,
                because:
                    "entry \(number(last)): the sign-out came back to the app, yet the next sign-in "
                    + "(entry \(number(next.authorization))) got a code without a login form: the "
                    + "issuer's session outlived it")
        }
    }

    // MARK: Consent

    /// A consent refusal answered with a code: the embedded issuer's `consent-refusal-ignored`
    /// plays it, so that the derived sign-in ends in a session as the recorded one did.
    private mutating func deriveConsentFaults() {
        for flow in analysis.signIns {
            guard let consent = flow.consent, !consent.approved, let callback = flow.callback,
                callback.code != nil, callback.error == nil
            else { continue }
            arm(
                .fault(FaultSetup(.consentRefusalIgnored)), for: flow.authorization,
                because: "entry \(number(callback.exchange)): a code came back after the consent was refused")
        }
    }

    // MARK: Server errors and races

    /// Failure messages of the simulated device's own network: the recorded story's `network`
    /// steps already make those.
    static func isDeviceNetworkFailure(_ exchange: RecordedExchange) -> Bool {
        let text = (exchange.error ?? "") + String(decoding: exchange.responseBody.prefix(200), as: UTF8.self)
        return [
            "the device is offline", "injected connection failure", "lost after the server processed",
            "by the simulated network", "captive", "cancelled",
        ].contains { text.contains($0) }
    }

    /// Whether the exchange is a failure the derived scenario makes (a fault at the issuer, or a
    /// failed connection at the device): no answer, 429 or a 5xx, unless the simulated network
    /// made it. `deriveTransportFaults` arms these, and `deriveRaces` holds none of them.
    static func failed(_ exchange: RecordedExchange, answer: ExchangeSummary.Answer) -> Bool {
        guard !isDeviceNetworkFailure(exchange) else { return false }
        switch answer {
        case .transportFailure: return true
        case .status(let status): return status == 429 || status >= 500
        }
    }

    private mutating func deriveTransportFaults() {
        let exchanges = analysis.capture.exchanges
        for index in analysis.timeline {
            let entry = analysis.entries[index]
            guard entry.sender == .app || entry.sender == .browser, let path = Self.embeddedPaths[entry.role],
                Self.failed(exchanges[index], answer: entry.summary.answer)
            else { continue }
            let summary = entry.summary
            let setup: FaultSetup?
            switch summary.answer {
            case .transportFailure:
                setup =
                    story.source == .recordedSteps ? FaultSetup(.dropConnection, path: path) : nil
                if story.source == .inferred, let step = stepOf[index] {
                    var change = NetworkChange()
                    change.failNext = ArmedRequests(count: 1, path: path)
                    before[step, default: []].append(
                        Step(
                            .world(.network(change)), name: "network",
                            location: SourceLocation(file: "", line: number(index), column: 1)))
                    findings.append("entry \(number(index)): no answer (a failed connection)")
                }
            case .status(let status) where status == 429:
                setup = FaultSetup(.rateLimited, path: path)
            case .status(let status) where status >= 500 && summary.page != nil:
                setup = FaultSetup(.htmlErrorPage, path: path, status: status)
            case .status(let status) where status == 500 && summary.oauthError == OAuthErrorCode.serverError:
                setup = FaultSetup(.internalServerError, path: path)
            case .status(let status)
            where status == 503 && summary.oauthError == OAuthErrorCode.temporarilyUnavailable:
                setup = FaultSetup(.serviceUnavailable, path: path)
            case .status(let status) where status >= 500:
                setup = FaultSetup(
                    .oauthError, path: path, status: status,
                    error: summary.oauthError ?? OAuthErrorCode.serverError,
                    errorDescription: summary.oauthErrorDescription)
            default:
                setup = nil
            }
            if let setup {
                arm(.fault(setup), for: index, because: "entry \(number(index)): \(summary.phrase)")
            }
        }
    }

    /// Each `parallel` step whose calls overlapped at the recorded issuer: its first token
    /// request is held a second at the embedded one, so that the others leave before any
    /// answer is back, as they did.
    /// Requests the recorded issuer held (slow answers, which decide which calls overlap and
    /// which the app outlives) are held as long at the embedded one: an `http-delay` each,
    /// taken in the order they arrived. A race whose requests were all quick gets a delay on
    /// its first one, so that the others leave before any answer is back, as they did. (For a
    /// capture another tool made, whose times are the network's.)
    private mutating func deriveRaces() {
        // A signinsim run's own delays come with its steps (`ScenarioDerivation` keeps them).
        guard story.source == .inferred else { return }
        let exchanges = analysis.capture.exchanges
        var heldSteps = Set<Int>()
        for index in analysis.timeline {
            let entry = analysis.entries[index]
            let exchange = exchanges[index]
            guard entry.sender == .app,
                entry.role == .token || entry.role == .userinfo || entry.role == .discovery,
                let hold = ReplayServer.hold(exchange), let path = Self.embeddedPaths[entry.role]
            else { continue }
            // A held request that then failed gets its failure's fault (deriveTransportFaults):
            // the embedded issuer takes one fault per request, and a delay taken by it would
            // leave the failure to the next request, which the recorded issuer answered.
            if Self.failed(exchange, answer: entry.summary.answer) {
                findings.append(
                    "entry \(number(index)): held \(Int(exchange.timeMilliseconds.rounded())) ms, then "
                        + "\(entry.summary.phrase); the embedded issuer answers the failure without the wait")
                continue
            }
            let milliseconds = Int(min(exchange.timeMilliseconds, 5000).rounded())
            arm(
                .fault(FaultSetup(.delay, count: 1, path: path, delayMilliseconds: milliseconds)),
                for: index,
                because: "entry \(number(index)): the issuer held the request \(milliseconds) ms")
            if let step = stepOf[index] { heldSteps.insert(step) }
            _ = hold
        }
        for (position, step) in story.scenario.steps.enumerated() where !heldSteps.contains(position + 1) {
            guard case .flow(.parallel) = step.action, let entries = story.stepEntries[position + 1] else {
                continue
            }
            // A race: two of the app's requests presenting one refresh token (or code).
            let presented = entries.filter {
                analysis.entries[$0].role == .token && analysis.entries[$0].sender == .app
            }
            .compactMap { index -> String? in
                let form = CaptureAnalysis.form(exchanges[index])
                return form["refresh_token"] ?? form["code"] ?? form["subject_token"]
            }
            guard Set(presented).count < presented.count, let path = Self.embeddedPaths[.token] else {
                continue
            }
            let already =
                before[position + 1]?.contains {
                    if case .world(.issuer(.fault(let setup))) = $0.action { return setup.fault == .delay }
                    return false
                } ?? false
            guard !already else { continue }
            before[position + 1, default: []].append(
                Step(
                    .world(
                        .issuer(.fault(FaultSetup(.delay, count: 1, path: path, delayMilliseconds: 1000)))),
                    name: "issuer", location: step.location))
            findings.append(
                "step \(position + 1): the calls of a race overlap (the first held at the issuer)")
        }
    }
}
