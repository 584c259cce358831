public import JSON

/// A scenario document (as `ScenarioEncoder` writes it) printed as the YAML a person would
/// write: the header's keys in their usual order, a folded `description`, the tenant as a block,
/// each step on one line in flow style (`- signIn: {username: bob@example.com}`), a `parallel`
/// block's branches indented under it. Strings are quoted whenever a plain scalar could be read
/// as something else (YAML 1.2 core schema: numbers, booleans, null; `: `, ` #`, leading
/// indicators), so that `ScenarioLoader` reads back exactly what was written.
public enum ScenarioYAML {
    /// The header keys in the order scenario files list them; others follow, sorted.
    static let headerOrder = [
        "name", "description", "tags", "seed", "timeout", "env", "issuer", "device", "apps", "profile",
        "browser", "steps",
    ]

    public static func render(_ document: JSONValue) -> String {
        guard case .object(let members) = document else { return flow(document) + "\n" }
        var lines: [String] = []
        for key in orderedKeys(members, order: headerOrder) {
            guard let value = members[key] else { continue }
            switch key {
            case "description":
                lines.append("description: >")
                lines += wrapped(value.stringValue ?? "", width: 92).map { "  " + $0 }
            case "steps":
                lines.append("steps:")
                if case .array(let steps) = value {
                    for step in steps { lines += stepLines(step, indent: "  ") }
                }
            default:
                lines += block(key: key, value: value, indent: "")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A step: one line, or for `parallel` its branches below it.
    static func stepLines(_ step: JSONValue, indent: String) -> [String] {
        if case .object(let members) = step, members.count == 1, let branches = members["parallel"],
            case .array(let items) = branches
        {
            var lines = [indent + "- parallel:"]
            for item in items {
                if case .array(let sequence) = item {
                    // A branch of several steps: a list of them.
                    guard let first = sequence.first else { continue }
                    lines.append(indent + "    - - " + inline(first))
                    for next in sequence.dropFirst() { lines.append(indent + "      - " + inline(next)) }
                } else {
                    lines.append(indent + "    - " + inline(item))
                }
            }
            return lines
        }
        return [indent + "- " + inline(step)]
    }

    /// A step on one line: `name` or `name: {arguments}`.
    static func inline(_ step: JSONValue) -> String {
        if case .object(let members) = step, members.count == 1, let (name, arguments) = members.first {
            return key(name) + ": " + flow(arguments)
        }
        return flow(step)
    }

    /// `key: value`, with mappings and lists of mappings as blocks and the rest in flow style.
    static func block(key name: String, value: JSONValue, indent: String) -> [String] {
        switch value {
        case .object(let members) where !members.isEmpty && !fitsOnALine(value):
            var lines = [indent + key(name) + ":"]
            for member in orderedKeys(members, order: []) {
                if let inner = members[member] {
                    lines += block(key: member, value: inner, indent: indent + "  ")
                }
            }
            return lines
        case .array(let items) where items.contains(where: { $0.objectValue != nil }) && !fitsOnALine(value):
            var lines = [indent + key(name) + ":"]
            for item in items { lines.append(indent + "  - " + flow(item)) }
            return lines
        default:
            return [indent + key(name) + ": " + flow(value)]
        }
    }

    static func fitsOnALine(_ value: JSONValue) -> Bool { flow(value).count <= 80 }

    /// A value in flow style: `{a: 1, b: [x, y]}`.
    public static func flow(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return scalar(text)
        case .array(let items): return "[" + items.map(flow).joined(separator: ", ") + "]"
        case .object(let members):
            return "{"
                + orderedKeys(members, order: leadingKeys).compactMap { name in
                    members[name].map { key(name) + ": " + flow($0) }
                }.joined(separator: ", ") + "}"
        }
    }

    /// Keys that say what a mapping is, written first (`{fault: http-delay, count: 1}`).
    static let leadingKeys = ["id", "client_id", "email", "fault", "username", "password"]

    static func key(_ name: String) -> String { scalar(name) }

    /// A string as a plain scalar when that reads back as the same string, else double-quoted.
    static func scalar(_ text: String) -> String {
        isPlainSafe(text) ? text : quoted(text)
    }

    static func isPlainSafe(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        if first == " " || last == " " { return false }
        if "-?:,[]{}#&*!|>'\"%@`".unicodeScalars.contains(first) { return false }
        if text.contains(": ") || text.contains(" #") || text.hasSuffix(":") { return false }
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { return false }
            if ",[]{}".unicodeScalars.contains(scalar) { return false }
        }
        // Anything the core schema reads as another type stays a string only when quoted.
        let lower = text.lowercased()
        if ["true", "false", "null", "~", "yes", "no", "on", "off", "y", "n"].contains(lower) {
            return false
        }
        if Double(text) != nil || Int(text) != nil { return false }
        if lower.hasPrefix("0x") || lower.hasPrefix("0o") || lower == ".inf" || lower == "-.inf"
            || lower == ".nan"
        {
            return false
        }
        return true
    }

    /// A YAML double-quoted scalar.
    static func quoted(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    escaped += "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped + "\""
    }

    static func orderedKeys(_ members: [String: JSONValue], order: [String]) -> [String] {
        order.filter { members[$0] != nil } + members.keys.filter { !order.contains($0) }.sorted()
    }

    /// Words wrapped at `width` columns, for a folded block.
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            lines.append(line)
        }
        return lines
    }
}
