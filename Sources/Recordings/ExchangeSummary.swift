import HTTPCore
import JSON
public import Scenario
public import WebAuthSession
import WorldVocabulary

/// What one recorded exchange shows, in the terms a report needs: an answer (its status, the
/// OAuth error it carries, the HTML page it shows, where it redirects) or no answer (a
/// transport failure, with the client's error).
public struct ExchangeSummary: Hashable, Sendable {
    /// What came back.
    public enum Answer: Hashable, Sendable {
        /// A response with this status.
        case status(Int)
        /// The request got no response: refused, lost, timed out (the client's error).
        case transportFailure(String)
    }

    /// An HTML page's gist.
    public struct Page: Hashable, Sendable {
        public var title: String?
        /// The text of elements marked as errors (a login form's "wrong password" note).
        public var errorNotes: [String]
        /// Whether the page holds a form with a password field (a login form).
        public var hasLoginForm: Bool
        /// Whether the page holds a form whose buttons approve or deny (a consent form).
        public var hasConsentForm: Bool
        /// Whether the page asks to confirm a sign-out (django-oauth-toolkit's and
        /// django-allauth's end-session pages).
        public var hasSignOutForm: Bool = false
    }

    public var answer: Answer
    /// `error` and `error_description` of an RFC 6749 §5.2 JSON body, or of a redirect's query
    /// (§4.1.2.1).
    public var oauthError: String?
    public var oauthErrorDescription: String?
    /// The page, when the answer is HTML.
    public var page: Page?
    /// The redirect's `Location`, when the answer is a redirect.
    public var location: String?

    /// Reads the exchange's answer.
    public init(_ exchange: RecordedExchange) {
        guard let status = exchange.status else {
            answer = .transportFailure(exchange.error ?? "no response")
            return
        }
        answer = .status(status)
        let contentType = exchange.responseHeaders.first { $0.name.lowercased() == "content-type" }?.value
        let essence = MediaType.essence(contentType ?? "")
        if (300..<400).contains(status) {
            location = exchange.responseHeaders.first { $0.name.lowercased() == "location" }?.value
            if let location, let query = try? URLParts.queryParameters(of: location),
                let error = query["error"]
            {
                oauthError = error
                oauthErrorDescription = query["error_description"]
            }
        }
        if MediaType.isJSON(essence) {
            if let body = try? JSONValue.parseObject(exchange.responseBody),
                let error = body["error"]?.stringValue
            {
                oauthError = error
                oauthErrorDescription = body["error_description"]?.stringValue
            }
        } else if essence == MediaType.html || essence == "application/xhtml+xml",
            let document = try? HTMLDocument(
                bytes: exchange.responseBody, contentType: contentType, url: exchange.url)
        {
            page = Page(
                title: document.title, errorNotes: document.errorMessages,
                hasLoginForm: document.forms.contains(where: \.hasPasswordField),
                hasConsentForm: document.forms.contains(where: Self.isConsentForm),
                hasSignOutForm: document.forms.contains(where: WebUserScript.isSignOutForm))
        }
    }

    /// Whether a form is a consent form: no password, and a button that approves or refuses
    /// (the words the simulated user looks for).
    public static func isConsentForm(_ form: HTMLForm) -> Bool {
        !form.hasPasswordField
            && form.submitButtons.contains {
                $0.mentions(any: WebUserScript.approveWords) || $0.mentions(any: WebUserScript.denyWords)
            }
    }

    /// The status, when there was an answer.
    public var status: Int? {
        if case .status(let status) = answer { return status }
        return nil
    }

    /// Whether the answer is a server error (5xx).
    public var isServerError: Bool { (status ?? 0) >= 500 }

    /// `302 → /u/login`, `400 invalid_grant: "…"`, `200 HTML page "Sign in" (note: "Wrong
    /// password")`, `no answer: connection refused`: one phrase for a report.
    public var phrase: String {
        switch answer {
        case .transportFailure(let error):
            return "no answer (transport failure: \(Self.clip(error, 160)))"
        case .status(let status):
            var text = String(status)
            if let oauthError {
                text += " \(oauthError)"
                if let description = oauthErrorDescription, !description.isEmpty {
                    text += ": \"\(Self.clip(description, 160))\""
                }
            }
            if let location {
                text += " → \(Self.describeLocation(location))"
            }
            if let page {
                text += " HTML page"
                if let title = page.title, !title.isEmpty { text += " \"\(Self.clip(title, 80))\"" }
                if page.hasLoginForm {
                    text += " with a login form"
                } else if page.hasSignOutForm {
                    text += " with a sign-out form"
                } else if page.hasConsentForm {
                    text += " with a consent form"
                }
                if !page.errorNotes.isEmpty {
                    text += " (note: \"\(Self.clip(page.errorNotes.joined(separator: " / "), 160))\")"
                }
            }
            return text
        }
    }

    /// A `Location` without its query values: `com.example.app://auth/callback?code&state`.
    static func describeLocation(_ location: String) -> String {
        let base = URLParts.stripQueryAndFragment(location)
        guard let query = try? URLParts.queryParameters(of: location), query.count > 0 else {
            return base
        }
        return base + "?" + query.map(\.name).joined(separator: "&")
    }

    static func clip(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length)) + "…"
    }
}
