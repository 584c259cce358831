import HTTPCore
import JSON
import OAuthCore

/// The parameters of a back-channel request (token, revocation): a form (RFC 6749 §3.2,
/// Appendix B) or, as Auth0's own SDKs send it, a JSON object of strings.
///
/// Strict: another content type, bytes that are not UTF-8, a malformed body, a repeated
/// parameter (RFC 6749 §3.1) or a JSON value that is not a string is `invalid_request`. No token
/// parameter is numeric, so JSON numbers are refused rather than guessed at. Parameters sent
/// with an empty value count as omitted (RFC 6749 §3.1).
struct OAuthRequestParameters: Sendable {
    private var values: [String: String]

    /// Largest JSON body read; form bodies are bounded by `FormURLEncoding.maximumLength`.
    static let maximumJSONSize = 4 * 1024 * 1024

    init(_ values: [String: String]) {
        // Filtering builds a second dictionary: only when there is something to drop.
        self.values = values.values.contains(where: \.isEmpty) ? values.filter { !$0.value.isEmpty } : values
    }

    init(request: HTTPRequest) throws(OAuthError) {
        guard let mediaType = request.mediaType else {
            throw .invalidRequest(
                "the request has no Content-Type; send application/x-www-form-urlencoded (RFC 6749 §3.2)"
                    + " or application/json")
        }
        var values: [String: String] = [:]
        if mediaType == MediaType.formURLEncoded {
            guard let text = String(validating: request.body, as: UTF8.self) else {
                throw .invalidRequest("the form body is not valid UTF-8")
            }
            let form: FormParameters
            do {
                form = try FormURLEncoding.decode(text)
            } catch {
                throw .invalidRequest("the form body is malformed: \(error.message)")
            }
            values.reserveCapacity(form.count)
            for pair in form where values.updateValue(pair.value, forKey: pair.name) != nil {
                throw .invalidRequest(
                    "parameter \(OAuthRequestParameters.quoted(pair.name)) is repeated; RFC 6749 §3.1 allows each once"
                )
            }
        } else if MediaType.isJSON(mediaType) {
            let members: [String: JSONValue]
            do {
                members = try JSONValue.parseObject(
                    request.body, maximumSize: OAuthRequestParameters.maximumJSONSize)
            } catch {
                throw .invalidRequest("the JSON body is not a JSON object: \(error.message)")
            }
            for (name, value) in members {
                guard let text = value.stringValue else {
                    throw .invalidRequest(
                        "parameter \(OAuthRequestParameters.quoted(name)) must be a JSON string, not a \(value.typeName)"
                    )
                }
                values[name] = text
            }
        } else {
            throw .invalidRequest(
                "Content-Type \(OAuthRequestParameters.quoted(mediaType)) is not accepted; send"
                    + " application/x-www-form-urlencoded or application/json")
        }
        self.init(values)
    }

    /// The value of a parameter, or `nil` when it is absent or empty.
    subscript(name: String) -> String? { values[name] }

    /// Every parameter with a value.
    var dictionary: [String: String] { values }

    /// The value of a required parameter.
    func required(_ name: String) throws(OAuthError) -> String {
        guard let value = values[name] else { throw .invalidRequest("\(name) is required") }
        return value
    }

    /// A name or value from the request, shortened and quoted for an error description.
    static func quoted(_ text: String) -> String {
        let printable = text.unicodeScalars.prefix(64).map {
            $0.value < 0x20 || $0 == "\"" ? "?" : Character($0)
        }
        return "\"" + String(printable) + (text.unicodeScalars.count > 64 ? "…" : "") + "\""
    }
}
