import Foundation

/// OAuth client credentials in an `Authorization: Basic` field (RFC 7617, with RFC 6749
/// §2.3.1's form-urlencoding of the id and secret before the Basic encoding).
public enum BasicCredentials {
    /// What an `Authorization` field value holds.
    public enum Reading: Equatable, Sendable {
        /// Another scheme (Bearer, DPoP…): not client authentication.
        case otherScheme
        /// `Basic` with its credentials text (after the scheme) not `base64(id:secret)` in UTF-8.
        case malformed(credentials: String)
        /// The decoded id and secret are not form-urlencoded; the text after the colon as it is.
        case notFormEncoded(rawSecret: String)
        case credentials(id: String, secret: String)
    }

    /// Reads one `Authorization` field value.
    public static func read(_ value: String) -> Reading {
        let field = value.drop { $0 == " " }
        guard field.count >= 5, field.prefix(5).lowercased() == "basic",
            field.count == 5 || field.dropFirst(5).first == " "
        else { return .otherScheme }
        let encoded = field.dropFirst(5).trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let text = String(validating: data, as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return .malformed(credentials: encoded) }
        let rawSecret = text[text.index(after: colon)...]
        do throws(HTTPError) {
            return .credentials(
                id: try FormURLEncoding.unescape(text[..<colon]),
                secret: try FormURLEncoding.unescape(rawSecret))
        } catch {
            return .notFormEncoded(rawSecret: String(rawSecret))
        }
    }
}
