import Foundation
import HTTPCore
import WorldVocabulary

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

    /// The person's decisions and their counts for this sheet.
    private var person: WebPerson

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
        person = WebPerson(user: user, purpose: purpose, maximumSubmissions: limits.maximumFormSubmissions)
    }

    /// What the user does on a page.
    private enum PageStep {
        case submit(HTTPRequest, WebPerson.WebPageAct)
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
            case .success((let document, .submit(let next, let act))):
                if let limit = person.submissionLimitReached(on: WebPage(document), status: response.status) {
                    return fail(request, response.status, limit)
                }
                record(
                    request, response.status, document.title, act.action, rules: act.rules,
                    scriptDependence: act.scriptDependence)
                person.performed(act)
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

    /// The user's move on an HTML page, as ``WebPerson`` decides it, made into the request the
    /// form submission sends.
    private func step(on document: HTMLDocument, request: HTTPRequest, status: Int)
        -> Result<PageStep, WebAuthenticationError>
    {
        var page = WebPage(document)
        page.overrideMatches = page.liteOverrideMatches(user.overrides)
        handle.notePageRead()
        switch person.move(on: page, status: status) {
        case .act(let act):
            let form = document.forms[act.form]
            var values = FormParameters()
            for fill in act.fills { values[fill.field.name] = fill.value }
            let button = act.press.flatMap { pressed in
                form.submitButtons.indices.contains(pressed.ref) ? form.submitButtons[pressed.ref] : nil
            }
            return .success(
                .submit(Self.withBrowserHeaders(form.request(filling: values, pressing: button)), act))
        case .close:
            return .success(.close)
        case .interrupt(let interruption):
            return .success(.interrupt(interruption))
        case .nothingToDo(let error), .fail(let error):
            return .failure(error)
        }
    }

    // MARK: Endings

    /// A user scripted to deny consent whose sheet reached a successful callback without ever
    /// showing a consent page (the issuer skips consent for this client, or remembers an earlier
    /// one): the denial never happened, and passing the callback on would sign in. An error
    /// callback (`error=`) is the issuer's answer and passes.
    private func consentNeverShown(callback location: String, request: HTTPRequest) -> WebAuthenticationError?
    {
        guard user.consent == .deny, !person.answeredConsent else { return nil }
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
        _ request: HTTPRequest, _ status: Int?, _ title: String?, _ action: WebPageVisit.Action,
        rules: [String] = [], scriptDependence: [ScriptDependence] = []
    ) {
        handle.record(
            WebPageVisit(
                method: request.method, url: request.url, status: status, title: title, action: action,
                rules: rules, scriptDependence: scriptDependence))
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
    static func describe(_ url: String) -> String { WebPerson.describe(url) }

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
