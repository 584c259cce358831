import JSON
import Scenario

/// Applying a `Redaction` to the parts of an exchange a HAR shows.
extension Redaction {
    /// A header with its secret part replaced; a `Location` gets its query hidden like a URL.
    func redacted(_ field: HeaderField) -> HeaderField {
        let name = field.name.lowercased()
        if basicCredentials, name == "authorization" || name == "proxy-authorization" {
            let value = field.value.drop(while: { $0 == " " })
            if value.prefix(6).lowercased() == "basic ", value.count > 6 {
                return HeaderField(field.name, "Basic " + Self.placeholder(for: "basic-credentials"))
            }
        }
        if name == "location" { return HeaderField(field.name, redacted(url: field.value)) }
        return field
    }

    /// A URL with hidden parameters of its query and fragment replaced. The placeholder is
    /// percent-encoded there, because `<` and `>` are not allowed in a URL (RFC 3986 §2) and
    /// strict parsers would refuse it; `queryString` shows it decoded.
    func redacted(url: String) -> String {
        guard let question = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        var output = String(url[..<question])
        var rest = url[question...]
        while let delimiter = rest.first {
            rest = rest.dropFirst()
            let end = delimiter == "?" ? (rest.firstIndex(of: "#") ?? rest.endIndex) : rest.endIndex
            output.append(delimiter)
            output += redacted(pairsIn: rest[..<end], placeholderEncoding: FormURLCoding.encode)
            rest = rest[end...]
        }
        return output
    }

    /// A form body with hidden values replaced. The placeholder is written as is, which form
    /// decoders read back unchanged, so that the text stays recognisable.
    func redacted(formText text: String) -> String {
        redacted(pairsIn: text[...], placeholderEncoding: { $0 })
    }

    /// Decoded name/value pairs (a query, form parameters) with hidden values replaced.
    func redacted(pairs: [FormURLCoding.Pair]) -> [(name: String, value: String)] {
        pairs.map { pair in
            let name = pair.name
            return (name, hidesParameter(named: name) ? Self.placeholder(for: name) : pair.value)
        }
    }

    /// JSON text with hidden members replaced, or nil when nothing was hidden (or the text is
    /// not JSON), so that untouched bodies are shown exactly as they were sent.
    func redacted(jsonText text: String) -> String? {
        guard let first = text.utf8.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let value = try? JSONValue.parse(text)
        else { return nil }
        let redacted = redacted(value)
        return redacted == value ? nil : redacted.serializedString()
    }

    private func redacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(redacted))
        case .object(let members):
            let keyType = members["kty"]?.stringValue
            var output: [String: JSONValue] = [:]
            for (name, member) in members {
                let hidden =
                    hidesParameter(named: name)
                    || keyType.map { hidesKeyMember(named: name, keyType: $0) } == true
                output[name] = hidden ? .string(Self.placeholder(for: name)) : redacted(member)
            }
            return .object(output)
        default:
            return value
        }
    }

    private func redacted(pairsIn text: Substring, placeholderEncoding: (String) -> String) -> String {
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { raw -> String in
            guard let equals = raw.firstIndex(of: "=") else { return String(raw) }
            let name = FormURLCoding.decode(raw[..<equals])
            guard hidesParameter(named: name) else { return String(raw) }
            changed = true
            return raw[...equals] + placeholderEncoding(Self.placeholder(for: name))
        }
        return changed ? pairs.joined(separator: "&") : String(text)
    }
}
