public import JSON
public import Scenario

/// Applying a `Redaction` to a capture: the HAR writer does it before anything is written, and
/// `signinsim replay` / `import-har --redact` right after a capture is read, so both hide the
/// same secrets behind the same placeholders.
extension Redaction {
    /// The exchanges with every hidden secret replaced by its numbered placeholder, in URLs
    /// (query and fragment), `Location` headers, `Authorization: Basic`, form bodies and JSON
    /// bodies alike.
    ///
    /// Two passes, as Betamax's placeholders need the whole cassette: the first collects the
    /// secrets in order of appearance (a refresh token first appears in the token response that
    /// issued it) and numbers them per name, the second replaces them. A value already hidden
    /// elsewhere is also replaced where it appears under an ordinary name, such as a refresh
    /// token revoked as `token` (RFC 7009 §2.1). Placeholders already in the capture are kept and
    /// their numbers not reused, so redacting twice changes nothing.
    public func apply(to exchanges: [RecordedExchange]) -> [RecordedExchange] {
        apply(to: exchanges, documents: []).exchanges
    }

    /// The exchanges and JSON documents that go with them (a recorded run's steps and apps),
    /// redacted together: a password typed in a `signIn` step gets the placeholder it has in
    /// the login form's body, a client secret in an app's settings the one it has in the token
    /// requests. In documents, members with hidden names are hidden, and secrets found in the
    /// exchanges are hidden wherever they appear.
    public func apply(to exchanges: [RecordedExchange], documents: [JSONValue])
        -> (exchanges: [RecordedExchange], documents: [JSONValue])
    {
        guard hidesAnything else { return (exchanges, documents) }
        var ledger = Ledger()
        let note: Replacement = { occurrence in
            if let label = occurrence.label { ledger.note(occurrence.value, label: label) }
            return nil
        }
        for exchange in exchanges { _ = rewritten(exchange, note) }
        for document in documents { _ = rewritten(document, note) }
        ledger.assignNumbers()
        return (
            exchanges.map { exchange in rewritten(exchange) { ledger.placeholder(for: $0) } ?? exchange },
            documents.map { document in rewritten(document) { ledger.placeholder(for: $0) } ?? document }
        )
    }

    /// A value met in an exchange: under a hidden name (`label`), or under an ordinary one,
    /// where it is hidden only when it is a secret found elsewhere.
    struct Occurrence {
        var label: String?
        var value: String
    }

    /// What replaces an occurrence, or nil to keep it.
    typealias Replacement = (Occurrence) -> String?

    /// The exchange with replaced values, or nil when nothing changed.
    func rewritten(_ exchange: RecordedExchange, _ replace: Replacement) -> RecordedExchange? {
        var output = exchange
        var changed = false
        if let url = rewritten(url: exchange.url, replace) {
            output.url = url
            changed = true
        }
        if let headers = rewritten(headers: exchange.requestHeaders, replace) {
            output.requestHeaders = headers
            changed = true
        }
        if let headers = rewritten(headers: exchange.responseHeaders, replace) {
            output.responseHeaders = headers
            changed = true
        }
        let requestType = HTTPMessageParts.value(of: "content-type", in: exchange.requestHeaders)
        if let body = rewritten(body: exchange.requestBody, contentType: requestType, replace) {
            output.requestBody = body
            changed = true
        }
        let responseType = HTTPMessageParts.value(of: "content-type", in: exchange.responseHeaders)
        if let body = rewritten(body: exchange.responseBody, contentType: responseType, replace) {
            output.responseBody = body
            changed = true
        }
        return changed ? output : nil
    }

    /// Headers with Basic credentials hidden and a `Location` rewritten like a URL.
    private func rewritten(headers: [HeaderField], _ replace: Replacement) -> [HeaderField]? {
        var output = headers
        var changed = false
        for (index, field) in headers.enumerated() {
            let name = field.name.lowercased()
            if basicCredentials, name == "authorization" || name == "proxy-authorization" {
                let value = field.value.drop(while: { $0 == " " })
                if value.prefix(6).lowercased() == "basic ", value.count > 6 {
                    let credentials = String(value.dropFirst(6).trimmingSpaces())
                    let occurrence = Occurrence(label: Self.basicCredentialsLabel, value: credentials)
                    if let placeholder = replace(occurrence) {
                        output[index].value = "Basic " + placeholder
                        changed = true
                    }
                }
            }
            if name == "location", let url = rewritten(url: field.value, replace) {
                output[index].value = url
                changed = true
            }
            if cookies, name == "cookie" || name == "set-cookie",
                let value = rewritten(cookieHeader: field.value, isSetCookie: name == "set-cookie", replace)
            {
                output[index].value = value
                changed = true
            }
        }
        return changed ? output : nil
    }

    /// A `Cookie` header (`a=1; b=2`, RFC 6265 §4.2.1) with every value hidden, or a
    /// `Set-Cookie` header (`a=1; Path=/`, §4.1.1) with its cookie's value hidden and its
    /// attributes kept. Empty values (a cookie being deleted) stay.
    private func rewritten(cookieHeader: String, isSetCookie: Bool, _ replace: Replacement) -> String? {
        var changed = false
        let separator: Character = ";"
        var parts = cookieHeader.split(separator: separator, omittingEmptySubsequences: false).map(
            String.init)
        for index in parts.indices {
            if isSetCookie, index > 0 { break }
            let part = parts[index]
            guard let equals = part.firstIndex(of: "=") else { continue }
            let value = String(part[part.index(after: equals)...].trimmingSpaces())
            guard !value.isEmpty,
                let placeholder = replace(Occurrence(label: Self.cookieLabel, value: value))
            else { continue }
            parts[index] = String(part[...equals]) + placeholder
            changed = true
        }
        return changed ? parts.joined(separator: String(separator)) : nil
    }

    /// A URL with the parameters of its query and fragment rewritten. The placeholder is
    /// percent-encoded there, because `<` and `>` are not allowed in a URL (RFC 3986 §2) and
    /// strict parsers would refuse it; a HAR's `queryString` shows it decoded.
    private func rewritten(url: String, _ replace: Replacement) -> String? {
        guard let question = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return nil }
        var output = String(url[..<question])
        var rest = url[question...]
        var changed = false
        while let delimiter = rest.first {
            rest = rest.dropFirst()
            let end = delimiter == "?" ? (rest.firstIndex(of: "#") ?? rest.endIndex) : rest.endIndex
            output.append(delimiter)
            if let pairs = rewritten(
                pairsIn: rest[..<end], placeholderEncoding: FormURLCoding.encode, replace)
            {
                output += pairs
                changed = true
            } else {
                output += rest[..<end]
            }
            rest = rest[end...]
        }
        return changed ? output : nil
    }

    /// A body rewritten as a form (its content type says so, or it has none and is not JSON)
    /// or as JSON; nil when it is neither, is not UTF-8, or holds nothing to hide.
    private func rewritten(body: [UInt8], contentType: String?, _ replace: Replacement) -> [UInt8]? {
        guard !body.isEmpty, let text = String(validating: body, as: UTF8.self) else { return nil }
        let essence = HTTPMessageParts.mediaTypeEssence(contentType)
        let isForm = essence == "application/x-www-form-urlencoded"
        if !isForm, let first = text.utf8.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        {
            guard let value = try? JSONValue.parse(text), let rewritten = rewritten(value, replace) else {
                return nil
            }
            return Array(rewritten.serializedString().utf8)
        }
        guard isForm || essence.isEmpty else { return nil }
        // The placeholder is written as is, which form decoders read back unchanged, so that
        // the text stays recognisable.
        return rewritten(pairsIn: text[...], placeholderEncoding: { $0 }, replace).map { Array($0.utf8) }
    }

    /// JSON with hidden members (and members holding a secret found elsewhere) replaced, or
    /// nil when nothing changed, so that untouched bodies are kept exactly as they were sent.
    private func rewritten(_ value: JSONValue, _ replace: Replacement) -> JSONValue? {
        switch value {
        case .array(let elements):
            var output = elements
            var changed = false
            for (index, element) in elements.enumerated() {
                if let element = rewritten(element, replace) {
                    output[index] = element
                    changed = true
                }
            }
            return changed ? .array(output) : nil
        case .object(let members):
            let keyType = members["kty"]?.stringValue
            var output = members
            var changed = false
            for (name, member) in members {
                let hidden =
                    hidesParameter(named: name)
                    || keyType.map { hidesKeyMember(named: name, keyType: $0) } == true
                let replacement: JSONValue?
                if hidden {
                    let text = member.stringValue ?? member.serializedString()
                    replacement = replace(Occurrence(label: name, value: text)).map(JSONValue.string)
                } else if let text = member.stringValue {
                    replacement = replace(Occurrence(label: nil, value: text)).map(JSONValue.string)
                } else {
                    replacement = rewritten(member, replace)
                }
                if let replacement {
                    output[name] = replacement
                    changed = true
                }
            }
            return changed ? .object(output) : nil
        default:
            return nil
        }
    }

    /// `name=value&…` with replaced values; pairs left alone keep their bytes.
    private func rewritten(
        pairsIn text: Substring, placeholderEncoding: (String) -> String, _ replace: Replacement
    ) -> String? {
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { raw -> String in
            guard let equals = raw.firstIndex(of: "=") else { return String(raw) }
            let name = FormURLCoding.decode(raw[..<equals])
            let value = FormURLCoding.decode(raw[raw.index(after: equals)...])
            let occurrence = Occurrence(label: hidesParameter(named: name) ? name : nil, value: value)
            guard let placeholder = replace(occurrence) else { return String(raw) }
            changed = true
            return raw[...equals] + placeholderEncoding(placeholder)
        }
        return changed ? pairs.joined(separator: "&") : nil
    }
}

extension Redaction {
    /// The numbered placeholder of every secret of one capture.
    struct Ledger {
        /// A secret hidden elsewhere is replaced under an ordinary name only when it is at least
        /// this long: a short password such as `1234` is too likely to be an ordinary value.
        static let shortestFoundElsewhere = 8

        /// Each secret's label (the name it first appeared under), in order of appearance.
        private var labels: [String: String] = [:]
        private var order: [String] = []
        /// Numbers of placeholders already in the capture, per label.
        private var taken: [String: Set<Int>] = [:]
        private var placeholders: [String: String] = [:]

        /// A secret met under the hidden name `label`.
        mutating func note(_ value: String, label: String) {
            if let existing = Redaction.parsePlaceholder(value) {
                if let number = existing.number { taken[existing.name, default: []].insert(number) }
                return
            }
            guard labels[value] == nil else { return }
            labels[value] = label
            order.append(value)
        }

        /// Numbers secrets per label from 1 in order of appearance, skipping numbers taken.
        mutating func assignNumbers() {
            var next: [String: Int] = [:]
            for value in order {
                guard let label = labels[value] else { continue }
                var number = next[label, default: 1]
                while taken[label]?.contains(number) == true { number += 1 }
                next[label] = number + 1
                placeholders[value] = Redaction.placeholder(for: label, number: number)
            }
        }

        func placeholder(for occurrence: Occurrence) -> String? {
            if occurrence.label == nil, occurrence.value.utf8.count < Self.shortestFoundElsewhere {
                return nil
            }
            return placeholders[occurrence.value]
        }
    }
}
