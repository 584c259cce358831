import AppleID
import Device
import HTTPCore
import Issuer
import JOSE
import JSON
import Scenario
import SignInSDK
import Simulator

/// What an `expect` item came to, when it did not fail.
enum ExpectationResult: Equatable {
    case passed
    /// Passed, on evidence the report names.
    case passedOn(evidence: String)
    /// The target cannot make this check, for this reason.
    case notChecked(String)
}

/// Checks `expect` items against the world. A failed check throws `StepStop` with what was
/// expected and what was found; a check the target cannot make returns the reason.
struct ExpectationChecker {
    let world: ScenarioWorld
    let lastError: SignInError.Code?
    /// Each app's last sign-out, by bundle id.
    var signOuts: [String: SignOutRecord] = [:]

    /// Checks one `expect` item: a decision per kind, each in its own method below.
    func check(_ expectation: Expectation, step: Step) async throws -> ExpectationResult {
        let site = CheckSite(step: step, location: expectation.location)
        switch expectation.kind {
        case .session(let present, let app):
            return try await checkSession(present: present, app: app, at: site)
        case .refreshToken(let present, let app):
            return try await checkRefreshToken(present: present, app: app, at: site)
        case .claims(let matches, let app):
            return try await checkClaims(matches, app: app, at: site)
        case .tokenType(let type, let app):
            return try await checkTokenType(type, app: app, at: site)
        case .scopes(let scopes, let app):
            return try await checkScopes(scopes, app: app, at: site)
        case .lastError(let code):
            return try checkLastError(code, at: site)
        case .requests(let requests):
            return try await checkRequests(requests, at: site)
        case .keychainItems(let count):
            return try checkKeychainItems(count, at: site)
        case .browserCookies(let count, let name):
            return try await checkBrowserCookies(count: count, named: name, at: site)
        case .issuerUser(let email, let fields):
            return try checkIssuerUser(email: email, fields: fields, at: site)
        case .issuerRefreshTokens(let verdict):
            return try checkIssuerRefreshTokens(verdict, at: site)
        case .appleCredential(let state, let app):
            return try checkAppleCredential(state, app: app, at: site)
        case .appPhase(let phase, let app):
            return try checkAppPhase(phase, app: app, at: site)
        case .signedOutAtIssuer(let ended, let app):
            return try await checkSignedOutAtIssuer(ended, app: app, at: site)
        case .loginForms(let expected, let app):
            return try checkLoginForms(expected, app: app, at: site)
        case .sheet(let expected, let app):
            return try checkSheet(expected, app: app, at: site)
        }
    }

    /// Where a check runs, for the failure it reports: the step and the `expect` item's location.
    private struct CheckSite {
        let step: Step
        let location: SourceLocation

        /// The stop for a failed check: what it looked at, what was expected and what was found.
        func failure(_ message: String, expected: String, actual: String) -> StepStop {
            StepStop(
                failure: StepFailure(
                    step: step.name, location: location, message: message, expected: expected, actual: actual)
            )
        }
    }

    /// `session`: whether the app has a stored session, read through the SDK without refreshing.
    private func checkSession(present: Bool, app: String?, at site: CheckSite) async throws
        -> ExpectationResult
    {
        let session = try await storedSession(app, at: site)
        guard (session != nil) == present else {
            throw site.failure(
                "expected the session to be \(present ? "present" : "absent")",
                expected: present ? "present" : "absent",
                actual: session.map(describe) ?? "absent")
        }
        return .passed
    }

    /// `refresh_token`: whether the stored session holds a refresh token.
    private func checkRefreshToken(present: Bool, app: String?, at site: CheckSite) async throws
        -> ExpectationResult
    {
        let session = try await storedSession(app, at: site)
        let actual = session?.refreshToken != nil
        guard actual == present else {
            throw site.failure(
                "expected a refresh token to be \(present ? "held" : "absent")",
                expected: present ? "present" : "absent",
                actual: session == nil ? "no session" : (actual ? "present" : "absent"))
        }
        return .passed
    }

    /// `claims`: each named claim of the stored session's ID token matches, in name order.
    private func checkClaims(_ matches: [String: ClaimMatch], app: String?, at site: CheckSite) async throws
        -> ExpectationResult
    {
        guard let session = try await storedSession(app, at: site) else {
            throw site.failure(
                "expected ID token claims, but no session is stored", expected: "a session", actual: "absent")
        }
        let claims = session.claims.json.objectValue ?? [:]
        for (name, match) in matches.sorted(by: { $0.key < $1.key }) {
            if let problem = Self.mismatch(claims[name], match) {
                throw site.failure(
                    "claim \(name): \(problem)", expected: "\(name): \(match)",
                    actual: Self.describe(claims[name]))
            }
        }
        return .passed
    }

    /// `token_type`: the stored session's token type, compared case-insensitively.
    private func checkTokenType(_ type: String, app: String?, at site: CheckSite) async throws
        -> ExpectationResult
    {
        guard let session = try await storedSession(app, at: site) else {
            throw site.failure(
                "expected a token type, but no session is stored", expected: type, actual: "no session")
        }
        guard session.tokenType.lowercased() == type.lowercased() else {
            throw site.failure("the stored token type", expected: type, actual: session.tokenType)
        }
        return .passed
    }

    /// `scopes`: every listed scope is in the stored session's granted scope.
    private func checkScopes(_ scopes: [String], app: String?, at site: CheckSite) async throws
        -> ExpectationResult
    {
        guard let session = try await storedSession(app, at: site) else {
            throw site.failure(
                "expected granted scopes, but no session is stored", expected: "a session", actual: "absent")
        }
        let granted = Set((session.scope ?? "").split(separator: " ").map(String.init))
        let missing = scopes.filter { !granted.contains($0) }
        guard missing.isEmpty else {
            throw site.failure(
                "scopes not granted: \(missing.joined(separator: " "))",
                expected: scopes.joined(separator: " "),
                actual: session.scope ?? "(none)")
        }
        return .passed
    }

    /// `error`: the previous SDK call's error code, or that it succeeded (nil).
    private func checkLastError(_ code: SignInError.Code?, at site: CheckSite) throws -> ExpectationResult {
        guard lastError == code else {
            throw site.failure(
                "the last SDK call's error", expected: code?.rawValue ?? "no error",
                actual: lastError?.rawValue ?? "no error")
        }
        return .passed
    }

    /// `keychain`: how many items the device's keychain holds.
    private func checkKeychainItems(_ count: Int, at site: CheckSite) throws -> ExpectationResult {
        let actual = world.phone.device.keychain.count
        guard actual == count else {
            throw site.failure("keychain items on the device", expected: "\(count)", actual: "\(actual)")
        }
        return .passed
    }

    /// `cookies`: the issuer host's cookies (optionally one name) in the jar of the first app's
    /// browser engine: exactly `count` of them, or at least one when no count is given.
    private func checkBrowserCookies(count: Int?, named name: String?, at site: CheckSite) async throws
        -> ExpectationResult
    {
        let issuerHost = URLParts(world.issuerURL)?.host ?? ""
        let engine = world.apps[world.firstApp]?.configuration.browser ?? .lite
        var cookies = await world.phone.browserCookies(engine).filter {
            $0.domain.trimmingPrefix(".").lowercased() == issuerHost
        }
        if let name { cookies = cookies.filter { $0.name == name } }
        let actual = cookies.count
        if let count {
            guard actual == count else {
                throw site.failure(
                    "cookies for the issuer in the device browser's jar\(name.map { " named \($0)" } ?? "")",
                    expected: "\(count)",
                    actual: "\(actual): \(cookies.map(\.name).joined(separator: ", "))")
            }
        } else if actual == 0 {
            throw site.failure(
                "no cookie\(name.map { " \($0)" } ?? "") for the issuer in the device browser's jar",
                expected: "at least 1", actual: "0")
        }
        return .passed
    }

    /// `issuer_user`: the embedded issuer's user with this email, its fields as the admin API
    /// lists them by claim name, each matching in name order.
    private func checkIssuerUser(email: String, fields: [String: ClaimMatch], at site: CheckSite) throws
        -> ExpectationResult
    {
        guard let issuer = world.world.identity?.issuer else {
            return .notChecked("issuer_user needs the embedded issuer")
        }
        guard let account = issuer.user(email: email), let user = Issuer.userJSON(account).objectValue else {
            throw site.failure("no user \(email) at the issuer", expected: email, actual: "no such user")
        }
        for (name, match) in fields.sorted(by: { $0.key < $1.key }) {
            if let problem = Self.mismatch(user[name], match) {
                throw site.failure(
                    "user \(email), \(name): \(problem)", expected: "\(name): \(match)",
                    actual: Self.describe(user[name]))
            }
        }
        return .passed
    }

    /// `issuer_refresh_tokens`: the embedded issuer's status of every refresh token in the token
    /// responses the device received: all revoked (or unknown, with at least one revoked), or
    /// the newest one active.
    private func checkIssuerRefreshTokens(_ verdict: RefreshTokenVerdict, at site: CheckSite) throws
        -> ExpectationResult
    {
        guard let issuer = world.world.identity?.issuer else {
            return .notChecked("issuer_refresh_tokens needs the embedded issuer")
        }
        let tokens = receivedRefreshTokens()
        guard let newest = tokens.last else {
            throw site.failure(
                "no refresh token was received", expected: verdict.rawValue, actual: "none received")
        }
        let statuses = tokens.map { issuer.refreshTokenStatus($0) }
        switch verdict {
        case .revoked:
            guard statuses.allSatisfy({ $0 == .revoked || $0 == .unknown }), statuses.contains(.revoked)
            else {
                throw site.failure(
                    "the refresh tokens the device received, at the issuer", expected: "all revoked",
                    actual: statuses.map(\.rawValue).joined(separator: ", "))
            }
        case .active:
            let standing = issuer.refreshTokenStatus(newest)
            guard standing == .active else {
                throw site.failure(
                    "the newest refresh token the device received, at the issuer", expected: "active",
                    actual: standing.rawValue)
            }
        }
        return .passed
    }

    /// `apple_credential`: the embedded Apple's credential state for the phone's Apple ID and
    /// the app's bundle id.
    private func checkAppleCredential(_ state: AppleIDCredentialState, app: String?, at site: CheckSite)
        throws
        -> ExpectationResult
    {
        guard let apple = world.world.identity?.apple else {
            return .notChecked("apple_credential needs the embedded Apple")
        }
        guard let account = world.phone.appleAccount else {
            throw site.failure(
                "no Apple ID is signed in on the phone", expected: state.rawValue, actual: "no Apple ID")
        }
        let actual = AppleIDCredentialState(
            apple.credentialState(email: account.email, bundleID: world.app(app).bundleID))
        guard actual == state else {
            throw site.failure(
                "Apple's credential state for \(account.email)", expected: state.rawValue,
                actual: actual.rawValue)
        }
        return .passed
    }

    /// `phase`: the app's lifecycle phase.
    private func checkAppPhase(_ phase: AppPhase, app: String?, at site: CheckSite) throws
        -> ExpectationResult
    {
        let actual = world.app(app).state.phase
        guard actual == phase else {
            throw site.failure("the app's phase", expected: phase.rawValue, actual: actual.rawValue)
        }
        return .passed
    }

    /// `signed_out_at_issuer`: whether the app's last sign-out ended the issuer's session, by a
    /// `SignOutCheck` made now against that sign-out's record; passes on the check's statement.
    private func checkSignedOutAtIssuer(_ ended: Bool, app: String?, at site: CheckSite) async throws
        -> ExpectationResult
    {
        let target = world.app(app)
        guard let record = signOuts[target.bundleID] else {
            throw site.failure(
                "signed_out_at_issuer needs a signOut before it", expected: "\(ended)", actual: "no sign-out")
        }
        let check = await target.checkSignOut(record)
        guard check.signedOutAtIssuer == ended else {
            throw site.failure(
                "whether the issuer's session ended at the last sign-out", expected: "\(ended)",
                actual: check.statement)
        }
        return .passedOn(evidence: "sign-out \(check.statement)")
    }

    /// `login_forms`: how many login forms the person submitted in the app's web sheets.
    private func checkLoginForms(_ expected: Int, app: String?, at site: CheckSite) throws
        -> ExpectationResult
    {
        let actual = world.app(app).loginFormsSubmitted
        guard actual == expected else {
            throw site.failure(
                "login forms submitted in the app's web sheets", expected: "\(expected)", actual: "\(actual)")
        }
        return .passed
    }

    /// `sheet`: how the app's last web sheet ended, at the callback or with an error code.
    private func checkSheet(_ expected: SheetEnding, app: String?, at site: CheckSite) throws
        -> ExpectationResult
    {
        let result = world.app(app).lastSheetResult
        let actual: String =
            switch result {
            case nil: "no sheet"
            case .success?: SheetEnding.callback.name
            case .failure(let error)?: "\(error.code.rawValue) (\(error.message))"
            }
        let matches: Bool =
            switch (expected, result) {
            case (.callback, .success?): true
            case (.failure(let code), .failure(let error)?): error.code == code
            default: false
            }
        guard matches else {
            throw site.failure("how the app's last web sheet ended", expected: expected.name, actual: actual)
        }
        return .passed
    }

    /// The app's stored session, read through the SDK without refreshing; a failed read stops the step.
    private func storedSession(_ app: String?, at site: CheckSite) async throws -> Session? {
        let target = world.app(app)
        do {
            return try await target.perform { try await $0.storedSession() }
        } catch {
            throw StepStop(
                failure: StepFailure(
                    step: site.step.name, location: site.location,
                    message:
                        "cannot read the session of \(target.bundleID): \(error.code.rawValue): \(error.message)"
                ))
        }
    }

    /// The path of an endpoint named by its role, from the first app's discovered metadata.
    private func endpointPath(_ role: EndpointRole, at site: CheckSite) async throws -> String {
        let metadata: ProviderMetadata
        do {
            metadata = try await world.app(nil).perform { try await $0.providerMetadata() }
        } catch {
            throw StepStop(
                failure: StepFailure(
                    step: site.step.name, location: site.location,
                    message:
                        "cannot find the \(role.rawValue) endpoint: \(error.code.rawValue): \(error.message)")
            )
        }
        let url: String? =
            switch role {
            case .discovery: metadata.issuer.trimmingSuffix("/") + "/.well-known/openid-configuration"
            case .jwks: metadata.jwksURI
            case .authorization: metadata.authorizationEndpoint
            case .token: metadata.tokenEndpoint
            case .userinfo: metadata.userinfoEndpoint
            case .end_session: metadata.endSessionEndpoint
            case .revocation: metadata.revocationEndpoint
            }
        guard let url else {
            throw StepStop(
                failure: StepFailure(
                    step: site.step.name, location: site.location,
                    message: "the issuer advertises no \(role.rawValue) endpoint")
            )
        }
        return URLParts.path(of: url)
    }

    /// Every refresh token in the token responses the device received, oldest first.
    private func receivedRefreshTokens() -> [String] {
        world.phone.device.network.log.compactMap { exchange in
            guard case .success(let response) = exchange.outcome, response.status == 200,
                let body = try? JSONValue.parse(response.body)
            else { return nil }
            return body["refresh_token"]?.stringValue
        }
    }

    private func describe(_ session: Session) -> String {
        "present (sub \(session.subject ?? "?"), refresh token \(session.refreshToken == nil ? "absent" : "present"))"
    }

    /// `requests`: how many requests the device sent to a path (or an endpoint named by its role,
    /// found in the discovered metadata) with a method, parameters and headers: exactly `count`,
    /// or at least `at_least` (1 when neither is given), read from the device's network log.
    private func checkRequests(_ requests: RequestExpectation, at site: CheckSite) async throws
        -> ExpectationResult
    {
        var expectation = requests
        if let endpoint = expectation.endpoint {
            expectation.path = try await endpointPath(endpoint, at: site)
        }
        let log = world.phone.device.network.log.filter { exchange in
            if let path = expectation.path, exchange.request.path != path { return false }
            if let method = expectation.method, exchange.request.method.rawValue != method { return false }
            return true
        }
        let matching = log.filter { exchange in
            let parameters = Self.parameters(of: exchange.request)
            return expectation.parameters.allSatisfy { name, match in
                Self.mismatch(parameters[name].map(JSONValue.string), match) == nil
            }
                && expectation.headers.allSatisfy { name, match in
                    Self.mismatch(exchange.request.headers[name].map(JSONValue.string), match) == nil
                }
        }
        let what = [expectation.method, expectation.path].compactMap { $0 }.joined(separator: " ")
        let subject = what.isEmpty ? "requests" : "\(what) requests"
        let condition =
            expectation.parameters.isEmpty
            ? ""
            : " with "
                + expectation.parameters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                .joined(separator: ", ")
        if let count = expectation.count {
            guard matching.count == count else {
                throw site.failure(
                    "\(subject)\(condition)", expected: "\(count)",
                    actual: "\(matching.count) (of \(log.count) \(subject))")
            }
        } else {
            let atLeast = expectation.atLeast ?? 1
            guard matching.count >= atLeast else {
                throw site.failure(
                    "\(subject)\(condition)", expected: "at least \(atLeast)",
                    actual: "\(matching.count) (of \(log.count) \(subject))")
            }
        }
        return .passed
    }

    /// Query and form parameters (the last value of a repeated name).
    static func parameters(of request: HTTPRequest) -> [String: String] {
        var result: [String: String] = [:]
        if let pairs = try? request.queryParameters() {
            for pair in pairs { result[pair.name] = pair.value }
        }
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix(MediaType.formURLEncoded),
            let text = String(validating: request.body, as: UTF8.self),
            let pairs = try? FormURLEncoding.decode(text)
        {
            for pair in pairs { result[pair.name] = pair.value }
        }
        return result
    }

    /// Why `value` does not match, or nil when it does.
    static func mismatch(_ value: JSONValue?, _ match: ClaimMatch) -> String? {
        switch match {
        case .present: return value == nil || value == .null ? "absent, expected present" : nil
        case .absent: return value == nil || value == .null ? nil : "present, expected absent"
        case .equals(let expected):
            guard let value else { return "absent" }
            if value == expected { return nil }
            // A number or boolean written in YAML matches the same text in a form parameter.
            if case .string(let text) = value, text == expected.scalarText { return nil }
            if case .array(let items) = value, items.contains(expected) { return nil }
            return "is \(describe(value))"
        }
    }

    static func describe(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        return String(decoding: value.serialized(), as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

extension JSONValue {
    /// The text of a scalar as it would appear in a form parameter.
    fileprivate var scalarText: String? {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .double(let value): String(value)
        default: nil
        }
    }
}

extension AppleIDCredentialState {
    /// The state the app is told for a state the simulated Apple holds: Apple's four cases on
    /// both sides (`ASAuthorizationAppleIDProvider.CredentialState`).
    init(_ state: AppleCredentialState) {
        switch state {
        case .authorized: self = .authorized
        case .revoked: self = .revoked
        case .notFound: self = .notFound
        case .transferred: self = .transferred
        }
    }
}
