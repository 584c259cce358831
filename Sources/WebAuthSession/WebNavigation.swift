import Foundation
import HTTPCore

/// The browser loop of one session: load, follow redirects, show pages to the scripted user,
/// submit what they fill in, until a `Location` is the callback.
struct WebNavigation: Sendable {
    let startURL: String
    let callback: WebAuthenticationCallback
    let limits: WebAuthenticationSession.Limits
    let user: WebUserScript
    let purpose: WebAuthenticationSession.Purpose
    let transport: any HTTPTransport
    let handle: WebAuthenticationHandle

    /// How many times a password went out: a login form after that means it was refused, and
    /// the user tries again while `user.retries` lasts.
    private var passwordSubmissions = 0
    private var formSubmissions = 0
    /// Whether the user answered a consent page in this session.
    private var answeredConsent = false

    init(
        startURL: String, callback: WebAuthenticationCallback, limits: WebAuthenticationSession.Limits,
        user: WebUserScript, purpose: WebAuthenticationSession.Purpose = .signIn,
        transport: any HTTPTransport,
        handle: WebAuthenticationHandle
    ) {
        self.startURL = startURL
        self.callback = callback
        self.limits = limits
        self.user = user
        self.purpose = purpose
        self.transport = transport
        self.handle = handle
    }

    /// What the user does on a page.
    private enum PageStep {
        case submit(HTTPRequest, WebPageVisit.Action, sendsPassword: Bool)
        case interrupt(WebUserScript.Interruption)
        /// Closes the sheet: a sign-out has nothing more to do here.
        case close
    }

    /// Runs the flow; `nil` when the user abandoned it and the session stays pending.
    mutating func run() async -> Result<String, WebAuthenticationError>? {
        guard let parts = URLParts(startURL), parts.scheme == "http" || parts.scheme == "https" else {
            return .failure(
                WebAuthenticationError(
                    .invalidURL, "the start URL \"\(startURL.prefix(200))\" is not an http or https URL",
                    url: startURL))
        }
        if let interruption = user.interruption, interruption.point == .beforeLoad {
            return interrupt(interruption, request: HTTPRequest(url: startURL), status: nil, title: nil)
        }
        var request = HTTPRequest(url: startURL, headers: Self.browserHeaders)
        var redirects = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                return fail(request, nil, networkError(error, request: request))
            }
            guard response.body.count <= limits.maximumPageSize else {
                return fail(request, response.status, tooLarge(request, response))
            }
            if (300..<400).contains(response.status) {
                redirects += 1
                switch redirect(response, from: request, redirects: redirects) {
                case .success(.callback(let location)):
                    if let refusal = consentNeverShown(callback: location, request: request) {
                        return fail(request, response.status, refusal)
                    }
                    record(request, response.status, nil, .reachedCallback)
                    return .success(location)
                case .success(.next(let next)):
                    record(request, response.status, nil, .followedRedirect(to: next.url))
                    request = next
                case .failure(let error):
                    return fail(request, response.status, error)
                }
                continue
            }
            redirects = 0
            switch page(response, for: request) {
            case .failure(let error):
                return fail(request, response.status, error)
            case .success((let document, .interrupt(let interruption))):
                return interrupt(
                    interruption, request: request, status: response.status, title: document.title)
            case .success((let document, .close)):
                record(request, response.status, document.title, .closed)
                return .failure(
                    WebAuthenticationError(
                        .canceledLogin,
                        "the person closed the sheet on \(Self.describe(request.url)) "
                            + "\"\(document.title ?? "an untitled page")\": the issuer showed its own page "
                            + "and did not redirect back to the app",
                        url: request.url, status: response.status))
            case .success((let document, .submit(let next, let action, let sendsPassword))):
                formSubmissions += 1
                guard formSubmissions <= limits.maximumFormSubmissions else {
                    return fail(
                        request, response.status,
                        WebAuthenticationError(
                            .unexpectedPage,
                            "more than \(limits.maximumFormSubmissions) forms were submitted without "
                                + "reaching the callback; last page \(Self.describe(request.url)) "
                                + "\"\(document.title ?? "untitled")\"",
                            url: request.url, status: response.status))
                }
                record(request, response.status, document.title, action)
                if sendsPassword { passwordSubmissions += 1 }
                if case .deniedConsent = action { answeredConsent = true }
                if case .approvedConsent = action { answeredConsent = true }
                request = next
            }
        }
    }

    // MARK: Redirects

    private enum RedirectStep {
        case callback(String)
        case next(HTTPRequest)
    }

    /// Where a 3xx leads: the callback, the next request, or an error.
    private func redirect(_ response: HTTPResponse, from request: HTTPRequest, redirects: Int)
        -> Result<RedirectStep, WebAuthenticationError>
    {
        let here = Self.describe(request.url)
        guard let location = response.headers["Location"], !location.isEmpty else {
            return .failure(
                WebAuthenticationError(
                    .unexpectedPage, "\(here) answered \(response.status) without a Location",
                    url: request.url, status: response.status))
        }
        let absolute: String
        if URLParts(location) != nil {
            // Compared as sent: the callback must come back byte for byte.
            if callback.matches(location) { return .success(.callback(location)) }
            absolute = location
        } else {
            guard let base = URL(string: request.url), let resolved = URL(string: location, relativeTo: base)
            else {
                return .failure(
                    WebAuthenticationError(
                        .invalidURL, "\(here) redirected to \"\(location.prefix(200))\", which is not a URL",
                        url: request.url, status: response.status))
            }
            absolute = resolved.absoluteString
            if callback.matches(absolute) { return .success(.callback(absolute)) }
        }
        guard let parts = URLParts(absolute) else {
            return .failure(
                WebAuthenticationError(
                    .invalidURL, "\(here) redirected to \"\(location.prefix(200))\", which is not a URL",
                    url: request.url, status: response.status))
        }
        guard parts.scheme == "http" || parts.scheme == "https" else {
            return .failure(
                WebAuthenticationError(
                    .foreignScheme,
                    "\(here) redirected to the scheme \"\(parts.scheme)\", which is neither http(s) nor "
                        + "the callback \(callback)",
                    url: request.url, status: response.status))
        }
        guard redirects <= limits.maximumRedirects else {
            return .failure(
                WebAuthenticationError(
                    .redirectLoop,
                    "more than \(limits.maximumRedirects) redirects in a row; the last from \(here) "
                        + "to \(Self.describe(absolute))",
                    url: request.url, status: response.status))
        }
        // 301 and 302 after a POST, and 303 always, are followed with a GET (RFC 9110 §15.4);
        // 307 and 308 repeat the request.
        let keepsMethod =
            response.status == 307 || response.status == 308
            || (request.method != .post && response.status != 303)
        var next = HTTPRequest(url: absolute, headers: Self.browserHeaders)
        if keepsMethod {
            next.method = request.method
            next.body = request.body
            if let type = request.headers["Content-Type"] { next.headers["Content-Type"] = type }
        }
        return .success(.next(next))
    }

    // MARK: Pages

    /// Reads a non-redirect answer and decides what the user does on it.
    private func page(_ response: HTTPResponse, for request: HTTPRequest)
        -> Result<(HTMLDocument, PageStep), WebAuthenticationError>
    {
        let here = Self.describe(request.url)
        let isHTML = response.mediaType == MediaType.html || response.mediaType == "application/xhtml+xml"
        var document: HTMLDocument?
        if isHTML, !response.body.isEmpty {
            do {
                document = try HTMLDocument(response, url: request.url, maximumSize: limits.maximumPageSize)
            } catch {
                if error.code == .tooLarge { return .failure(tooLarge(request, response)) }
            }
        }
        if response.status >= 400 {
            return .failure(
                WebAuthenticationError(
                    .errorPage,
                    "\(here) answered \(response.status) with an error page: "
                        + Self.pageText(document, response),
                    url: request.url, status: response.status))
        }
        guard response.status == 200, let document else {
            let kind = response.headers["Content-Type"] ?? "no Content-Type"
            return .failure(
                WebAuthenticationError(
                    .unexpectedPage,
                    "\(here) answered \(response.status) (\(kind)) where a redirect or an HTML page "
                        + "was expected: \(Self.pageText(document, response))",
                    url: request.url, status: response.status))
        }
        return step(on: document, request: request, status: response.status).map { (document, $0) }
    }

    /// The user's move on an HTML page: fill in a login form, answer a consent form, or leave.
    private func step(on document: HTMLDocument, request: HTTPRequest, status: Int)
        -> Result<PageStep, WebAuthenticationError>
    {
        let here = Self.describe(request.url)
        if purpose == .signOut {
            // Signing out, the person only confirms; any other page ends what there is to do.
            for form in document.forms {
                guard let button = WebUserScript.signOutButton(in: form) else { continue }
                let next = Self.withBrowserHeaders(form.request(pressing: button))
                let label = button.label.isEmpty ? button.value : button.label
                return .success(.submit(next, .confirmedSignOut(button: label), sendsPassword: false))
            }
            return .success(.close)
        }
        if let login = document.forms.first(where: user.isLoginForm) {
            if passwordSubmissions > user.retries.count, login.hasPasswordField {
                let reason =
                    document.errorMessages.isEmpty
                    ? "no reason shown" : document.errorMessages.joined(separator: " / ")
                return .failure(
                    WebAuthenticationError(
                        .loginRejected,
                        "\(here) showed the login form again after the credentials were submitted: \(reason)",
                        url: request.url, status: status))
            }
            if let interruption = user.interruption, interruption.point == .login {
                return .success(.interrupt(interruption))
            }
            let typing = user.typing(into: login, attempt: passwordSubmissions)
            let missing = login.fields.filter { $0.kind == .password && typing[$0.name] == nil }
            if let field = missing.first {
                return .failure(
                    WebAuthenticationError(
                        .unexpectedPage,
                        "the login form of \(here) asks for the password field \"\(field.name)\", "
                            + "which the script does not fill",
                        url: request.url, status: status))
            }
            let typed = login.fields.filter { $0.isEditable && typing[$0.name] != nil }.map(\.name)
            let next = login.request(filling: typing, pressing: login.submitButtons.first)
            return .success(
                .submit(
                    Self.withBrowserHeaders(next), .submittedLogin(fields: typed),
                    sendsPassword: login.hasPasswordField))
        }
        if let consent = document.forms.first(where: WebUserScript.isConsentForm) {
            if let interruption = user.interruption, interruption.point == .consent {
                return .success(.interrupt(interruption))
            }
            guard let button = user.consentButton(in: consent) else {
                let labels = consent.submitButtons.map { "\"\($0.label)\"" }.joined(separator: ", ")
                return .failure(
                    WebAuthenticationError(
                        .unexpectedPage,
                        "the consent form of \(here) has no button to \(user.consent.rawValue) "
                            + "(buttons: \(labels))",
                        url: request.url, status: status))
            }
            let next = Self.withBrowserHeaders(consent.request(pressing: button))
            let label = button.label.isEmpty ? button.value : button.label
            let action: WebPageVisit.Action =
                user.consent == .approve ? .approvedConsent(button: label) : .deniedConsent(button: label)
            return .success(.submit(next, action, sendsPassword: false))
        }
        let shown =
            document.errorMessages.isEmpty ? "" : ": " + document.errorMessages.joined(separator: " / ")
        return .failure(
            WebAuthenticationError(
                .unexpectedPage,
                "\(here) showed \"\(document.title ?? "an untitled page")\" with \(document.forms.count) "
                    + "form(s), none a login or consent form\(shown)",
                url: request.url, status: status))
    }

    // MARK: Endings

    /// A user scripted to deny consent whose sheet reached a successful callback without ever
    /// showing a consent page (the issuer skips consent for this client, or remembers an earlier
    /// one): the denial never happened, and passing the callback on would sign in. An error
    /// callback (`error=`) is the issuer's answer and passes.
    private func consentNeverShown(callback location: String, request: HTTPRequest) -> WebAuthenticationError?
    {
        guard user.consent == .deny, !answeredConsent else { return nil }
        if let query = try? URLParts.queryParameters(of: location), query["error"] != nil { return nil }
        return WebAuthenticationError(
            .consentNotShown,
            "the user was to deny consent, but \(Self.describe(request.url)) redirected to the callback "
                + "with a code and no consent page was shown (the issuer skips consent for this client "
                + "or remembers an earlier one); nothing was denied",
            url: request.url)
    }

    private func interrupt(
        _ interruption: WebUserScript.Interruption, request: HTTPRequest, status: Int?, title: String?
    ) -> Result<String, WebAuthenticationError>? {
        switch interruption {
        case .cancel(let point):
            record(request, status, title, .canceled)
            return .failure(
                WebAuthenticationError(
                    .canceledLogin, "the user cancelled the sheet (\(point.rawValue))", url: request.url,
                    status: status))
        case .abandon:
            record(request, status, title, .abandoned)
            return nil
        }
    }

    private func fail(_ request: HTTPRequest, _ status: Int?, _ error: WebAuthenticationError)
        -> Result<String, WebAuthenticationError>
    {
        record(request, status, nil, .failed(error.code))
        return .failure(error)
    }

    private func record(
        _ request: HTTPRequest, _ status: Int?, _ title: String?, _ action: WebPageVisit.Action
    ) {
        handle.record(
            WebPageVisit(
                method: request.method, url: request.url, status: status, title: title, action: action))
    }

    private func networkError(_ error: HTTPError, request: HTTPRequest) -> WebAuthenticationError {
        if error.code == .responseTooLarge {
            return WebAuthenticationError(
                .pageTooLarge, "\(Self.describe(request.url)) sent a page larger than the transport accepts",
                url: request.url, cause: error)
        }
        return WebAuthenticationError(
            .network, "\(request.method) \(Self.describe(request.url)) failed: \(error)", url: request.url,
            cause: error)
    }

    private func tooLarge(_ request: HTTPRequest, _ response: HTTPResponse) -> WebAuthenticationError {
        WebAuthenticationError(
            .pageTooLarge,
            "\(Self.describe(request.url)) sent \(response.body.count) bytes, more than the "
                + "\(limits.maximumPageSize) a page may have",
            url: request.url, status: response.status)
    }

    // MARK: Helpers

    /// Headers a browser sends with every navigation.
    private static let browserHeaders: HTTPHeaders = [
        "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
    ]

    private static func withBrowserHeaders(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        for field in browserHeaders { request.headers.replaceOrAdd(name: field.name, value: field.value) }
        return request
    }

    /// A URL for messages: without its query, which may carry codes or tokens.
    static func describe(_ url: String) -> String {
        URLParts.stripQueryAndFragment(url)
    }

    /// What a page says, for error messages: its error texts, else its title and the start of
    /// its text, else the start of a textual body.
    static func pageText(_ document: HTMLDocument?, _ response: HTTPResponse) -> String {
        if let document {
            if !document.errorMessages.isEmpty { return document.errorMessages.joined(separator: " / ") }
            let summary = [document.title, String(document.text.prefix(200))].compactMap { $0 }
                .filter { !$0.isEmpty }.joined(separator: " — ")
            return summary.isEmpty ? "an empty page" : summary
        }
        if let text = response.bodyText, !text.isEmpty {
            return "\"" + String(text.prefix(200)) + "\""
        }
        return response.body.isEmpty ? "an empty body" : "\(response.body.count) bytes that are not text"
    }
}
