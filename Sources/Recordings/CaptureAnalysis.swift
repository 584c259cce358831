public import HTTPCore
import JOSE
public import JSON
import OAuthCore
public import Scenario
import WebAuthSession
import WorldVocabulary

/// What each exchange of a capture is in the sign-in story: the endpoint it went to (its role),
/// who sent it (the app or its browser sheet), and the flows it belongs to (a web sign-in from
/// its authorization request to the callback and the code exchange; a sign-out through the
/// browser).
///
/// Roles come from the capture's discovery document when it holds one (OpenID Connect
/// Discovery 1.0 §3), and are inferred from the traffic otherwise: an authorization request
/// carries `response_type` and `client_id` (RFC 6749 §4.1.1), a token request is a form POST
/// with `grant_type` (§4.1.3, §6), a key set is JSON with `keys` (RFC 7517 §5), a login form
/// has a password field. So a capture of any issuer's paths (`/o/token/`,
/// `/oauth2/v1/token`, `/protocol/openid-connect/token`) reads the same.
public struct CaptureAnalysis: Sendable {
    /// What an exchange did, by the endpoint it reached.
    public enum Role: String, Hashable, Sendable, CaseIterable {
        case discovery
        case jwks
        /// The authorization endpoint (RFC 6749 §3.1), loaded by the browser.
        case authorization
        /// A login form, shown (GET) or submitted (POST).
        case login
        /// A consent form submitted.
        case consent
        case token
        case userinfo
        case revocation
        /// RP-Initiated Logout's end-session endpoint.
        case endSession = "end_session"
        /// Another page the browser loaded on the way.
        case page
        /// The phone's Apple ID sheet authorizing the app at Apple.
        case appleAuthorization = "apple_authorization"
        /// The issuer calling another server (redeeming an Apple code).
        case outbound
        /// Anything else (an API call, a favicon).
        case other
    }

    /// Who sent a request.
    public enum Sender: String, Hashable, Sendable {
        case app
        case browser
        /// The phone's Apple ID sheet.
        case apple
        /// The issuer (not the phone).
        case issuer

        /// Whether a replayed phone makes this request itself.
        public var isPhone: Bool { self != .issuer }
    }

    /// One exchange as the analysis reads it.
    public struct Entry: Hashable, Sendable {
        public var role: Role
        public var sender: Sender
        /// A token request's `grant_type`.
        public var grant: String?
        /// What came back.
        public var summary: ExchangeSummary
        /// Whether the request's endpoint was read from the capture's discovery document
        /// (rather than inferred from the traffic).
        public var roleFromDiscovery: Bool
    }

    /// A web sign-in as the browser went through it.
    public struct SignInFlow: Hashable, Sendable {
        /// The authorization request (an exchange index).
        public var authorization: Int
        /// Every browser exchange of the flow, the authorization request first.
        public var exchanges: [Int]
        public var clientID: String?
        public var redirectURI: String?
        /// The authorization request's `state` and `nonce`.
        public var state: String?
        public var nonce: String?
        public var codeChallenge: String?
        public var prompt: String?
        public var scopes: [String]?
        /// Each password typed, in order.
        public var loginAttempts: [LoginAttemptRecord]
        /// The consent form's answer, when one was submitted.
        public var consent: ConsentRecord?
        /// The redirect that reached the app's redirect URI, if any.
        public var callback: CallbackRecord?
        /// The token request that redeemed the callback's code.
        public var codeExchange: Int?
    }

    /// One submitted login form.
    public struct LoginAttemptRecord: Hashable, Sendable {
        public var exchange: Int
        /// The form's editable fields as sent (username, password, …); hidden ones left out
        /// when the page that showed the form is in the capture.
        public var fields: FormParameters
        /// The name of the field that carried the password.
        public var passwordField: String?
        /// The likely username field: the first editable non-password field.
        public var usernameField: String?
        /// Whether the answer showed the login form again.
        public var rejected: Bool
        /// What the page said, when it showed the form again.
        public var errorNotes: [String]
    }

    /// A submitted consent form.
    public struct ConsentRecord: Hashable, Sendable {
        public var exchange: Int
        public var approved: Bool
    }

    /// The redirect to the app's redirect URI (RFC 6749 §4.1.2).
    public struct CallbackRecord: Hashable, Sendable {
        /// The exchange whose `Location` it was.
        public var exchange: Int
        public var url: String
        public var code: String?
        public var error: String?
        public var errorDescription: String?
        public var state: String?
        /// Whether `state` is the one the authorization request sent (RFC 6749 §10.12).
        public var stateMatches: Bool
    }

    /// A sign-out through the end-session endpoint.
    public struct SignOutFlow: Hashable, Sendable {
        public var exchanges: [Int]
        public var sender: Sender
        public var postLogoutRedirectURI: String?
        public var state: String?
        /// Whether the browser reached the post-logout redirect URI.
        public var reachedRedirect: Bool
    }

    public let capture: HARCapture
    /// One per exchange of the capture.
    public private(set) var entries: [Entry]
    /// The exchanges in the order they started (the file's order for ties).
    public private(set) var timeline: [Int]
    /// The recorded discovery document and the exchange that answered it.
    public private(set) var discovery: [String: JSONValue]?
    public private(set) var discoveryExchange: Int?
    /// The issuer: the discovery document's, else the ID tokens' `iss`, else the origin of the
    /// authorization or token endpoint.
    public private(set) var issuer: String?
    /// Each role's URL (without query), from discovery or the first request with that role.
    public private(set) var endpoints: [Role: String] = [:]
    public private(set) var signIns: [SignInFlow] = []
    public private(set) var signOuts: [SignOutFlow] = []
    /// The client ids and redirect URIs the requests name, in order of appearance.
    public private(set) var clientIDs: [String] = []
    public private(set) var redirectURIs: [String] = []
    /// The engine each app's web sheet ran in, as the capture's browser entries say (`_engine`,
    /// which signinsim writes), by the entries' bundle id (`_app`; "" for entries naming none):
    /// `webkit` when any of that app's entries was WebKit's, else `lite`. Empty for captures of
    /// other tools and older signinsim ones, which say nothing of an engine.
    public private(set) var sheetEngines: [String: BrowserEngine] = [:]
    /// The pages (exchange indices) where the capture shows the issuer's login as a script
    /// shell (`isScriptShell`): for each web sign-in, the first page the browser was shown
    /// (the authorization request's own answer when it is a page) and, for a sign-in that never
    /// reached the app's callback, the page the sheet stopped on.
    public private(set) var scriptShellPages: [Int] = []

    public init(_ capture: HARCapture) {
        self.capture = capture
        let exchanges = capture.exchanges
        timeline = exchanges.indices.sorted {
            (exchanges[$0].startedAtMilliseconds, $0) < (exchanges[$1].startedAtMilliseconds, $1)
        }
        entries = []
        entries.reserveCapacity(exchanges.count)
        readDiscovery()
        for exchange in exchanges {
            entries.append(classify(exchange))
        }
        noteClients()
        for index in timeline where endpoints[entries[index].role] == nil {
            switch entries[index].role {
            case .authorization, .token, .userinfo, .revocation, .endSession, .jwks, .discovery:
                endpoints[entries[index].role] = URLParts.stripQueryAndFragment(exchanges[index].url)
            default: break
            }
        }
        issuer =
            issuer ?? Self.issuerFromTokens(exchanges)
            ?? (endpoints[.authorization] ?? endpoints[.token])
            .flatMap(URLParts.origin(of:))
        readFlows()
        readSheetEngines()
        readScriptShells()
    }

    /// Whether the capture shows any OAuth or OpenID Connect traffic at all.
    public var hasOAuthTraffic: Bool {
        entries.contains {
            [.discovery, .authorization, .token, .jwks, .userinfo, .endSession].contains($0.role)
        }
    }

    // MARK: Discovery

    private static let discoverySuffixes = [
        "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server",
    ]

    static func isDiscoveryPath(_ path: String) -> Bool {
        discoverySuffixes.contains { path.hasSuffix($0) }
    }

    /// The first discovery document that names the issuer it was fetched for (one that names
    /// another is what an app must refuse, OpenID Connect Discovery §4.3), else the first.
    private mutating func readDiscovery() {
        var documents: [(index: Int, document: [String: JSONValue], matches: Bool)] = []
        for index in timeline {
            let exchange = capture.exchanges[index]
            guard exchange.method == "GET", Self.isDiscoveryPath(URLParts.path(of: exchange.url)),
                exchange.status == 200, let document = try? JSONValue.parseObject(exchange.responseBody)
            else { continue }
            let url = URLParts.stripQueryAndFragment(exchange.url)
            let base = Self.discoverySuffixes.first(where: url.hasSuffix).map {
                String(url.dropLast($0.count))
            }
            let named = document["issuer"]?.stringValue.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            documents.append((index, document, named != nil && named == base))
        }
        if let chosen = documents.first(where: \.matches) ?? documents.first {
            let index = chosen.index
            let exchange = capture.exchanges[index]
            let document = chosen.document
            discovery = document
            discoveryExchange = index
            issuer = document["issuer"]?.stringValue
            let roles: [(String, Role)] = [
                ("authorization_endpoint", .authorization), ("token_endpoint", .token),
                ("userinfo_endpoint", .userinfo), ("revocation_endpoint", .revocation),
                ("end_session_endpoint", .endSession), ("jwks_uri", .jwks),
            ]
            for (member, role) in roles {
                if let url = document[member]?.stringValue {
                    endpoints[role] = URLParts.stripQueryAndFragment(url)
                }
            }
            endpoints[.discovery] = URLParts.stripQueryAndFragment(exchange.url)
        }
    }

    /// The role whose discovered endpoint has this path.
    private func discoveredRole(path: String) -> Role? {
        guard discovery != nil else { return nil }
        for role in [Role.token, .authorization, .userinfo, .revocation, .endSession, .jwks]
        where endpoints[role].map(URLParts.path(of:)) == path {
            return role
        }
        return nil
    }

    // MARK: Roles and senders

    private func classify(_ exchange: RecordedExchange) -> Entry {
        let summary = ExchangeSummary(exchange)
        let path = URLParts.path(of: exchange.url)
        let query = (try? URLParts.queryParameters(of: exchange.url)) ?? FormParameters()
        let form = Self.form(exchange)
        var role: Role
        var fromDiscovery = false
        switch exchange.source {
        case .apple: role = .appleAuthorization
        case .issuer: role = .outbound
        default:
            if Self.isDiscoveryPath(path) {
                role = .discovery
            } else if let discovered = discoveredRole(path: path) {
                role = discovered
                fromDiscovery = true
            } else {
                role = Self.inferredRole(exchange, path: path, query: query, form: form, summary: summary)
            }
            // Forms posted to the authorization endpoint are consent forms (django-oauth-toolkit
            // answers its consent page there), or login forms when they carry a password.
            if role == .authorization, exchange.method == "POST", exchange.source != .app {
                role = Self.hasPasswordField(form) ? .login : .consent
            }
            if role == .page || role == .other {
                if exchange.method == "POST", Self.hasPasswordField(form) {
                    role = .login
                } else if exchange.method == "GET", summary.page?.hasLoginForm == true {
                    role = .login
                } else if exchange.method == "POST", Self.isBrowserRequest(exchange) {
                    role = .consent
                }
            }
        }
        let sender: Sender
        switch exchange.source {
        case .app: sender = .app
        case .browser: sender = .browser
        case .apple: sender = .apple
        case .issuer: sender = .issuer
        case .device, .unknown: sender = Self.inferredSender(exchange, role: role)
        }
        if sender == .app, role == .consent || role == .page {
            role = .other
        }
        return Entry(
            role: role, sender: sender,
            grant: role == .token ? form["grant_type"] : nil, summary: summary,
            roleFromDiscovery: fromDiscovery)
    }

    /// The role of a request to an endpoint discovery does not name, from what it carries.
    private static func inferredRole(
        _ exchange: RecordedExchange, path: String, query: FormParameters, form: FormParameters,
        summary: ExchangeSummary
    ) -> Role {
        let lowerPath = path.lowercased()
        if form["grant_type"] != nil, exchange.method == "POST" { return .token }
        if query["response_type"] != nil, query["client_id"] != nil { return .authorization }
        if form["response_type"] != nil, form["client_id"] != nil, exchange.method == "POST" {
            return .authorization
        }
        if query["id_token_hint"] != nil || query["post_logout_redirect_uri"] != nil
            || form["id_token_hint"] != nil || lowerPath.hasSuffix("/logout")
            || lowerPath.contains("end_session")
            || lowerPath.contains("endsession") || lowerPath.contains("end-session")
        {
            return .endSession
        }
        if exchange.method == "POST", form["token"] != nil, lowerPath.contains("revo") { return .revocation }
        if exchange.method == "GET", summary.status == 200,
            let body = try? JSONValue.parseObject(exchange.responseBody), body["keys"]?.arrayValue != nil
        {
            return .jwks
        }
        if lowerPath.contains("userinfo") { return .userinfo }
        if isBrowserRequest(exchange) { return .page }
        return .other
    }

    /// Who sent a request a capture does not attribute: the browser for the pages of a sign-in,
    /// the app for the API calls of its SDK; an end-session request by what it carries (a
    /// browser sends cookies and asks for HTML).
    private static func inferredSender(_ exchange: RecordedExchange, role: Role) -> Sender {
        switch role {
        case .authorization, .login, .consent, .page: return .browser
        case .discovery, .jwks, .token, .userinfo, .revocation: return .app
        case .appleAuthorization: return .apple
        case .outbound: return .issuer
        case .endSession, .other: return isBrowserRequest(exchange) ? .browser : .app
        }
    }

    /// Whether a request looks like a browser's: it sends cookies, asks for HTML first, or
    /// names a browser engine in `User-Agent`.
    public static func isBrowserRequest(_ exchange: RecordedExchange) -> Bool {
        for header in exchange.requestHeaders {
            switch header.name.lowercased() {
            case "cookie": return true
            case "accept" where header.value.lowercased().hasPrefix("text/html"): return true
            case "user-agent" where header.value.hasPrefix("Mozilla/"): return true
            default: continue
            }
        }
        return false
    }

    /// The request body as form parameters (empty unless it is a form).
    public static func form(_ exchange: RecordedExchange) -> FormParameters {
        guard !exchange.requestBody.isEmpty, exchange.requestBody.first != UInt8(ascii: "{"),
            let text = String(validating: exchange.requestBody, as: UTF8.self),
            let form = try? FormURLEncoding.decode(text)
        else { return FormParameters() }
        return form
    }

    static func isPasswordFieldName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix("password") || lower == "pass" || lower == "passwd" || lower == "pwd"
    }

    static func hasPasswordField(_ form: FormParameters) -> Bool {
        form.contains { isPasswordFieldName($0.name) }
    }

    /// The `iss` of the first ID token in a token response.
    private static func issuerFromTokens(_ exchanges: [RecordedExchange]) -> String? {
        for exchange in exchanges where exchange.status == 200 {
            guard let body = try? JSONValue.parseObject(exchange.responseBody),
                let idToken = body["id_token"]?.stringValue,
                let issuer = (try? JWT.decodeUnverified(idToken))?.claims["iss"]?.stringValue
            else { continue }
            return issuer
        }
        return nil
    }

    private mutating func noteClients() {
        for index in timeline {
            let exchange = capture.exchanges[index]
            let role = entries[index].role
            guard role == .authorization || role == .token else { continue }
            let query = (try? URLParts.queryParameters(of: exchange.url)) ?? FormParameters()
            let form = Self.form(exchange)
            if let client = query["client_id"] ?? form["client_id"] ?? Self.basicClientID(exchange),
                !clientIDs.contains(client)
            {
                clientIDs.append(client)
            }
            if let uri = query["redirect_uri"] ?? form["redirect_uri"], !redirectURIs.contains(uri) {
                redirectURIs.append(uri)
            }
        }
    }

    /// The client id of `Authorization: Basic` (RFC 6749 §2.3.1).
    public static func basicClientID(_ exchange: RecordedExchange) -> String? {
        guard let header = exchange.requestHeaders.first(where: { $0.name.lowercased() == "authorization" })
        else { return nil }
        if case .credentials(let id, _) = BasicCredentials.read(header.value) { return id }
        return nil
    }

    // MARK: Sheets

    /// The engine the sheets of `app` (a bundle id) ran in, as the capture's entries say; with
    /// no `app`, or none of its entries naming an engine, the engine of the capture's sheets
    /// (`webkit` when any was WebKit's). nil when the capture says nothing of an engine.
    public func sheetEngine(app: String? = nil) -> BrowserEngine? {
        if let app, let engine = sheetEngines[app] { return engine }
        if sheetEngines.values.contains(.webkit) { return .webkit }
        return sheetEngines.isEmpty ? nil : .lite
    }

    private mutating func readSheetEngines() {
        for (index, exchange) in capture.exchanges.enumerated() where entries[index].sender == .browser {
            guard let engine = exchange.engine else { continue }
            let app = exchange.app ?? ""
            if sheetEngines[app] != .webkit { sheetEngines[app] = engine }
        }
    }

    /// Whether a recorded answer is a page built by script: a 200 HTML page with `<script>`
    /// elements and no `<form>` (the shell of Okta's Sign-In Widget, Auth0 Lock, or the
    /// embedded issuer's `pages: javascript`). An engine that runs no script finds nothing to
    /// fill or press on it; a page with a form is not one, whatever scripts it has.
    public static func isScriptShell(_ exchange: RecordedExchange) -> Bool {
        guard exchange.status == 200 else { return false }
        let contentType = exchange.responseHeaders.first { $0.name.lowercased() == "content-type" }?.value
        let essence = MediaType.essence(contentType ?? "")
        guard essence == MediaType.html || essence == "application/xhtml+xml",
            let document = try? HTMLDocument(
                bytes: exchange.responseBody, contentType: contentType, url: exchange.url)
        else { return false }
        return document.scriptCount > 0 && document.forms.isEmpty
    }

    /// Whether the capture shows the issuer's login as a script shell (`scriptShellPages`).
    public var showsScriptShellLogin: Bool { !scriptShellPages.isEmpty }

    private mutating func readScriptShells() {
        var shells: [Int] = []
        for flow in signIns {
            let pages = flow.exchanges.filter {
                entries[$0].summary.page != nil && entries[$0].summary.status == 200
            }
            var candidates = pages.first.map { [$0] } ?? []
            if flow.callback == nil, let last = pages.last, !candidates.contains(last) {
                candidates.append(last)
            }
            for index in candidates
            where !shells.contains(index) && Self.isScriptShell(capture.exchanges[index]) {
                shells.append(index)
            }
        }
        scriptShellPages = shells.sorted()
    }

    // MARK: Flows

    /// The flows being read along the timeline: at most one sign-in and one sign-out open.
    private struct OpenFlows {
        var signIn: SignInFlow?
        var signOut: SignOutFlow?
        /// The last page the open sign-in's browser was shown.
        var lastPage: Int?
    }

    /// The sign-ins and sign-outs, read exchange by exchange along the timeline.
    private mutating func readFlows() {
        var open = OpenFlows()
        for index in timeline {
            let entry = entries[index]
            if entry.role == .token, entry.grant == GrantType.authorizationCode {
                readCodeExchange(index, open: &open)
            } else if entry.role == .endSession {
                readEndSession(index, open: &open)
            } else if entry.sender == .browser {
                readBrowserExchange(index, open: &open)
            }
        }
        closeSignIn(&open)
        if let flow = open.signOut { signOuts.append(flow) }
    }

    /// Ends the open sign-in: it joins `signIns`.
    private mutating func closeSignIn(_ open: inout OpenFlows) {
        if let flow = open.signIn { signIns.append(flow) }
        open.signIn = nil
        open.lastPage = nil
    }

    /// A code exchange: it ends the open sign-in whose callback carried the code, or belongs to
    /// the last closed one that did and was not exchanged yet.
    private mutating func readCodeExchange(_ index: Int, open: inout OpenFlows) {
        guard let code = Self.form(capture.exchanges[index])["code"] else { return }
        if var flow = open.signIn, flow.callback?.code == code {
            flow.codeExchange = index
            open.signIn = flow
            closeSignIn(&open)
        } else if let position = signIns.lastIndex(where: {
            $0.callback?.code == code && $0.codeExchange == nil
        }) {
            signIns[position].codeExchange = index
        }
    }

    /// An end-session request: the end-session page's confirmation form, submitted in the
    /// browser during the open sign-out (and no sign-in), continues it; any other begins a
    /// sign-out, ending the open flows.
    private mutating func readEndSession(_ index: Int, open: inout OpenFlows) {
        let exchange = capture.exchanges[index]
        let entry = entries[index]
        if var flow = open.signOut, entry.sender == .browser, exchange.method == "POST", open.signIn == nil {
            Self.continueSignOut(&flow, with: index, location: entry.summary.location)
            open.signOut = flow
            return
        }
        closeSignIn(&open)
        if let flow = open.signOut { signOuts.append(flow) }
        let query = (try? URLParts.queryParameters(of: exchange.url)) ?? Self.form(exchange)
        var flow = SignOutFlow(
            exchanges: [], sender: entry.sender, postLogoutRedirectURI: query["post_logout_redirect_uri"],
            state: query["state"], reachedRedirect: false)
        Self.continueSignOut(&flow, with: index, location: entry.summary.location)
        open.signOut = flow
    }

    /// Adds an exchange to a sign-out; a redirect to its post-logout redirect URI reaches it.
    private static func continueSignOut(_ flow: inout SignOutFlow, with index: Int, location: String?) {
        flow.exchanges.append(index)
        if let location, let uri = flow.postLogoutRedirectURI, location.hasPrefix(uri) {
            flow.reachedRedirect = true
        }
    }

    /// An exchange of the browser's: an authorization request begins a sign-in (unless it is
    /// the open one's loaded again); otherwise it continues the open sign-out (with no sign-in
    /// open) or the open sign-in before its callback, whose login form, consent and callback
    /// it may be.
    private mutating func readBrowserExchange(_ index: Int, open: inout OpenFlows) {
        let exchange = capture.exchanges[index]
        let entry = entries[index]
        // The same authorization request loaded again (the login page sends the browser
        // back to it) continues the sign-in it began.
        let query = (try? URLParts.queryParameters(of: exchange.url)) ?? FormParameters()
        let resumes =
            open.signIn.map { $0.callback == nil && $0.state != nil && query["state"] == $0.state } ?? false
        if entry.role == .authorization, !resumes {
            closeSignIn(&open)
            if let flow = open.signOut { signOuts.append(flow) }
            open.signOut = nil
            open.signIn = Self.signIn(index, query: query.count > 0 ? query : Self.form(exchange))
        } else if var flow = open.signOut, open.signIn == nil {
            Self.continueSignOut(&flow, with: index, location: entry.summary.location)
            open.signOut = flow
            return
        } else if var flow = open.signIn, flow.callback == nil {
            flow.exchanges.append(index)
            let form = Self.form(exchange)
            if entry.role == .login, exchange.method == "POST" {
                flow.loginAttempts.append(loginAttempt(index, form: form, page: open.lastPage))
            } else if entry.role == .consent {
                flow.consent = ConsentRecord(
                    exchange: index, approved: consentApproved(form: form, page: open.lastPage, index: index))
            }
            open.signIn = flow
        } else {
            return
        }
        if entry.summary.page != nil { open.lastPage = index }
        readCallback(index, open: &open)
    }

    /// A sign-in begun by an authorization request with these parameters.
    private static func signIn(_ index: Int, query: FormParameters) -> SignInFlow {
        SignInFlow(
            authorization: index, exchanges: [index], clientID: query["client_id"],
            redirectURI: query["redirect_uri"], state: query["state"], nonce: query["nonce"],
            codeChallenge: query["code_challenge"], prompt: query["prompt"],
            scopes: query["scope"].map(ScopeList.parse), loginAttempts: [], consent: nil,
            callback: nil,
            codeExchange: nil)
    }

    /// A redirect to the app's redirect URI (the sign-in's, else the first seen) is the open
    /// sign-in's callback (RFC 6749 §4.1.2); one without a code ends the sign-in.
    private mutating func readCallback(_ index: Int, open: inout OpenFlows) {
        guard var flow = open.signIn, flow.callback == nil, let location = entries[index].summary.location,
            let redirectURI = flow.redirectURI ?? redirectURIs.first,
            Self.reaches(location, redirectURI: redirectURI)
        else { return }
        let query = (try? URLParts.queryParameters(of: location)) ?? FormParameters()
        flow.callback = CallbackRecord(
            exchange: index, url: location, code: query["code"], error: query["error"],
            errorDescription: query["error_description"], state: query["state"],
            stateMatches: query["state"] == flow.state)
        if !flow.exchanges.contains(index) { flow.exchanges.append(index) }
        open.signIn = flow
        if flow.callback?.code == nil { closeSignIn(&open) }
    }

    /// Whether a redirect target is the app's redirect URI (with the response in its query).
    static func reaches(_ location: String, redirectURI: String) -> Bool {
        location == redirectURI || location.hasPrefix(redirectURI + "?")
            || location.hasPrefix(redirectURI + "#")
            || (location.hasPrefix(redirectURI) && redirectURI.hasSuffix("/"))
    }

    /// A submitted login form: the editable fields (those of the form on the page that showed
    /// it, when that page is in the capture), and whether the answer showed the form again.
    private func loginAttempt(_ index: Int, form: FormParameters, page: Int?) -> LoginAttemptRecord {
        let exchange = capture.exchanges[index]
        var hidden = Set<String>()
        if let page,
            let document = try? HTMLDocument(
                bytes: capture.exchanges[page].responseBody,
                contentType: capture.exchanges[page].responseHeaders.first {
                    $0.name.lowercased() == "content-type"
                }?.value,
                url: capture.exchanges[page].url)
        {
            for htmlForm in document.forms where htmlForm.hasPasswordField {
                for field in htmlForm.fields where !field.isEditable { hidden.insert(field.name) }
                for button in htmlForm.submitButtons { if let name = button.name { hidden.insert(name) } }
            }
            hidden.formUnion(Self.pageHeldFields(form, page: capture.exchanges[page]))
        }
        var typed = FormParameters()
        for pair in form where !hidden.contains(pair.name) && !Self.isCSRFName(pair.name) {
            typed.append(pair.name, pair.value)
        }
        let passwordField = typed.first { Self.isPasswordFieldName($0.name) }?.name
        let usernameField = typed.first { !Self.isPasswordFieldName($0.name) }?.name
        let summary = entries.indices.contains(index) ? entries[index].summary : ExchangeSummary(exchange)
        if Self.isScriptLoginRefusal(summary) {
            return LoginAttemptRecord(
                exchange: index, fields: typed, passwordField: passwordField, usernameField: usernameField,
                rejected: true,
                errorNotes: [summary.oauthErrorDescription ?? summary.oauthError].compactMap { $0 })
        }
        let rejected = summary.status == 200 && summary.page?.hasLoginForm == true
        return LoginAttemptRecord(
            exchange: index, fields: typed, passwordField: passwordField, usernameField: usernameField,
            rejected: rejected, errorNotes: rejected ? summary.page?.errorNotes ?? [] : [])
    }

    /// Whether the answer to a login POST refused it as a script's login does: a 4xx JSON answer
    /// with an `error` (the page's script shows it and stays; a form page would come again).
    static func isScriptLoginRefusal(_ summary: ExchangeSummary) -> Bool {
        guard let status = summary.status, (400..<500).contains(status) else { return false }
        return summary.oauthError != nil && summary.page == nil
    }

    /// The fields of a form posted from `page` whose values the page's HTML already held, when
    /// the page is a script shell (`isScriptShell`): its script builds the form from the page's
    /// data, which carries the hidden values (a transaction, a token), and those are the
    /// page's, not what the person typed or pressed.
    static func pageHeldFields(_ form: FormParameters, page: RecordedExchange) -> Set<String> {
        guard isScriptShell(page), let html = String(validating: page.responseBody, as: UTF8.self) else {
            return []
        }
        var held = Set<String>()
        for pair in form where pair.value.count >= 8 && html.contains(pair.value) {
            // What the person types may be on the page too (a login hint, the last attempt's).
            let name = pair.name.lowercased()
            guard !isPasswordFieldName(name), !["user", "email", "login"].contains(where: name.contains)
            else { continue }
            held.insert(pair.name)
        }
        return held
    }

    /// Names of anti-forgery fields, which a page fills in, not the person.
    static func isCSRFName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.contains("csrf") || lower.contains("xsrf") || lower == "authenticity_token"
    }

    /// Whether a consent POST approved: the button whose `name=value` it carries says so; a
    /// POST without the form's named approving button pressed its other one.
    private func consentApproved(form: FormParameters, page: Int?, index: Int) -> Bool {
        // A script's consent page holds its transaction and token in its data: random values
        // that may spell anything.
        let held = page.map { Self.pageHeldFields(form, page: capture.exchanges[$0]) } ?? []
        if let page,
            let document = try? HTMLDocument(
                bytes: capture.exchanges[page].responseBody,
                contentType: capture.exchanges[page].responseHeaders.first {
                    $0.name.lowercased() == "content-type"
                }?.value,
                url: capture.exchanges[page].url),
            let consentForm = document.forms.first(where: ExchangeSummary.isConsentForm)
        {
            for button in consentForm.submitButtons {
                guard let name = button.name, form[name] == button.value else { continue }
                if button.mentions(any: WebUserScript.denyWords) { return false }
                if button.mentions(any: WebUserScript.approveWords) { return true }
            }
            if consentForm.submitButtons.contains(where: {
                $0.name != nil && $0.mentions(any: WebUserScript.approveWords)
            }) {
                return false
            }
        }
        for pair in form where !held.contains(pair.name) {
            let text = (pair.name + " " + pair.value).lowercased()
            if WebUserScript.denyWords.contains(where: text.contains) { return false }
            if WebUserScript.approveWords.contains(where: text.contains) { return true }
        }
        // Without the page: the answer tells (a redirect with access_denied is a refusal).
        if let next = entries.indices.contains(index) ? entries[index].summary : nil {
            return next.oauthError != OAuthErrorCode.accessDenied
        }
        return true
    }
}
