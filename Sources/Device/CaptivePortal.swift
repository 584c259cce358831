public import HTTPCore

/// A captive portal's login page, served instead of any real answer (RFC 8952 §1: the portal
/// intercepts traffic until the user logs in).
public struct CaptivePortal: Hashable, Sendable {
    public var loginURL: String

    public init(loginURL: String = "http://captive.portal.example/login") {
        self.loginURL = loginURL
    }

    /// The page: a 200 `text/html` login form that a JSON-expecting client cannot parse.
    public var response: HTTPResponse {
        .html(
            """
            <!DOCTYPE html>
            <html><head><title>Wi-Fi Login</title></head>
            <body><h1>Welcome to the hotspot</h1>
            <form method="post" action="\(loginURL)"><input name="room"><button>Connect</button></form>
            </body></html>
            """)
    }
}
