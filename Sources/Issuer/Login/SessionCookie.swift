import HTTPCore

/// The issuer's session cookie: the browser's single sign-on state (RFC 6265).
///
/// The value is 32 random bytes, base64url; the issuer keeps only its hash. Without `Max-Age`
/// the cookie lasts as long as the browser keeps it, while the issuer ends the session itself
/// after `TokenLifetimes.session`.
enum SessionCookie {
    static let name = "signinsim_session"

    /// Most cookie values of that name looked at in one request.
    static let maximumValues = 8

    /// The values of every `signinsim_session` cookie in the request's `Cookie` fields
    /// (RFC 6265 §5.4 allows several with one name, from different paths or domains).
    static func values(in headers: HTTPHeaders) -> [String] {
        var values: [String] = []
        for field in headers.values(for: "Cookie") {
            for piece in field.split(separator: ";") {
                let pair = piece.drop { $0 == " " || $0 == "\t" }
                guard let equals = pair.firstIndex(of: "="), pair[..<equals] == name else { continue }
                var value = pair[pair.index(after: equals)...]
                while value.last == " " || value.last == "\t" { value.removeLast() }
                // Our values are 43 base64url characters; anything much longer is not ours.
                if !value.isEmpty, value.utf8.count <= 256, values.count < maximumValues {
                    values.append(String(value))
                }
            }
        }
        return values
    }

    /// `Set-Cookie` for a new session: not readable by scripts, not sent on cross-site
    /// subrequests, and `Secure` whenever the issuer is served over HTTPS.
    static func setting(_ value: String, secure: Bool) -> String {
        "\(name)=\(value); Path=/\(secure ? "; Secure" : ""); HttpOnly; SameSite=Lax"
    }

    /// `Set-Cookie` that makes the browser forget the session (RFC 6265 §5.3 step 11).
    static func clearing(secure: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0\(secure ? "; Secure" : ""); HttpOnly; SameSite=Lax"
    }
}
