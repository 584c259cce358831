import HTTPCore
import OAuthCore

/// The issuer's own pages: login, consent, errors and "signed out".
///
/// Each page is HTML5 that is also well-formed XML (every element closed, every attribute
/// quoted, only the five XML entities), so that tests and scripted user agents can read the
/// forms with any XML parser. Every interpolated value goes through `HTMLText.escape`: nothing
/// a client or user sent reaches the markup unescaped.
enum LoginPages {
    /// Hidden inputs every interactive form echoes: the transaction and its CSRF token.
    struct FormBinding: Sendable {
        var transactionID: String
        var csrfToken: String
    }

    /// One requested scope as the consent page lists it.
    struct ScopeLine: Sendable {
        var scope: String
        var explanation: String
    }

    /// What a `javascript` logout page asks before the session ends (RP-Initiated Logout 1.0 §2).
    struct LogoutQuestion: Sendable, Equatable {
        /// The logout request's parameters, which the page's form posts back with `logout=yes`.
        var parameters: [FormParameters.Pair]
        /// Where "No" goes: the client's post-logout redirect URI with `state`, when the request
        /// named one validly; `nil` to stay on the page.
        var declineLocation: String?
    }

    /// The login form (`POST /u/login`), optionally with an error from the last attempt.
    static func login(
        clientName: String, binding: FormBinding, username: String?, error: String?
    ) -> String {
        var body = """
            <h1>Sign in</h1>
            <p class="client">to continue to <strong>\(HTMLText.escape(clientName))</strong></p>

            """
        if let error {
            body += "<p class=\"error\" role=\"alert\">\(HTMLText.escape(error))</p>\n"
        }
        body += """
            <form method="post" action="\(HTMLText.escape(Issuer.Path.login))">
            \(hiddenInputs(binding))
            <label for="username">Email</label>
            <input id="username" type="text" inputmode="email" name="username" value="\(HTMLText.escape(username ?? ""))" autocomplete="username" required="required"/>
            <label for="password">Password</label>
            <input id="password" type="password" name="password" autocomplete="current-password" required="required"/>
            <button type="submit">Continue</button>
            </form>
            """
        return document(title: "Sign in", body: body)
    }

    /// The consent form (`POST /u/consent`) listing what the client asks for.
    static func consent(
        clientName: String, userLabel: String, scopes: [ScopeLine], binding: FormBinding
    ) -> String {
        let items = scopes.map { line in
            "<li><code>\(HTMLText.escape(line.scope))</code> \(HTMLText.escape(line.explanation))</li>"
        }
        let body = """
            <h1>Authorize \(HTMLText.escape(clientName))</h1>
            <p class="user">Signed in as <strong>\(HTMLText.escape(userLabel))</strong></p>
            <p><strong>\(HTMLText.escape(clientName))</strong> is asking to:</p>
            <ul class="scopes">
            \(items.joined(separator: "\n"))
            </ul>
            <form method="post" action="\(HTMLText.escape(Issuer.Path.consent))">
            \(hiddenInputs(binding))
            <button type="submit" name="action" value="approve">Accept</button>
            <button type="submit" name="action" value="deny">Decline</button>
            </form>
            """
        return document(title: "Authorize \(clientName)", body: body)
    }

    /// A page that ends the interaction: nothing is sent back to the client.
    static func error(title: String, message: String) -> String {
        document(
            title: title,
            body: """
                <h1>\(HTMLText.escape(title))</h1>
                <p class="error" role="alert">\(HTMLText.escape(message))</p>
                <p>Go back to the app and start again.</p>
                """)
    }

    /// RP-Initiated Logout without a redirect: the user is told, and stays here.
    static func signedOut() -> String {
        document(
            title: "Signed out",
            body: """
                <h1>Signed out</h1>
                <p class="status">You are signed out. You can close this window.</p>
                """)
    }

    /// How the consent page explains a scope.
    static func explanation(of scope: String, audience: String?) -> String {
        switch scope {
        case StandardScope.openID: "Sign you in and know who you are"
        case StandardScope.profile: "See your name"
        case StandardScope.email: "See your email address"
        case StandardScope.offlineAccess: "Stay signed in when you are not using it"
        default: audience.map { "Use \(scope) on \($0)" } ?? "Use \(scope)"
        }
    }

    private static func hiddenInputs(_ binding: FormBinding) -> String {
        """
        <input type="hidden" name="transaction" value="\(HTMLText.escape(binding.transactionID))"/>
        <input type="hidden" name="csrf" value="\(HTMLText.escape(binding.csrfToken))"/>
        """
    }

    /// A whole page around `body`, which must already be markup (its values escaped).
    static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <meta name="robots" content="noindex, nofollow"/>
        <title>\(HTMLText.escape(title)) - SignInSim</title>
        <style>\(stylesheet)</style>
        </head>
        <body>
        <main>
        \(body)
        </main>
        </body>
        </html>

        """
    }

    /// Inline so the page needs no other request; no `<` or `&`, so it stays well-formed XML.
    private static let stylesheet =
        "body{font-family:system-ui,sans-serif;margin:0;background:#f4f4f6;color:#1c1c1e}"
        + "main{max-width:24rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:.75rem}"
        + "label,input,button{display:block;width:100%;box-sizing:border-box}"
        + "input{margin:.25rem 0 1rem;padding:.6rem;font-size:1rem}"
        + "button{margin-top:.5rem;padding:.7rem;font-size:1rem}"
        + ".error{color:#b00020}"
}

/// Escaping for text and attribute values in HTML that must also be well-formed XML.
enum HTMLText {
    /// Escapes `& < > " '` and replaces characters that neither HTML nor XML 1.0 allow in a
    /// document (C0 and C1 controls other than tab, line feed and carriage return; noncharacters)
    /// with U+FFFD, so that no input can break the markup or the parse.
    static func escape(_ text: some StringProtocol) -> String {
        // Most values (tokens, names, paths) are printable ASCII with nothing to escape: every
        // login page writes several of them.
        let isPlain = text.utf8.allSatisfy { byte in
            byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "&") && byte != UInt8(ascii: "<")
                && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'")
        }
        if isPlain { return String(text) }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            default:
                escaped.unicodeScalars.append(isAllowed(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return escaped
    }

    /// Whether HTML and XML 1.0 both allow the character in a document as it is.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return false }
        if (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE { return false }
        return true
    }
}
