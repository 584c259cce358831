import Foundation

/// An instruction for a page the person cannot read by themselves: fill this input, press this
/// button (`fill` and `click` in a scenario, `--fill` and `--click` on `sign-in`).
///
/// Targets are CSS selectors (`#otp`, `input[name=code]`, `button.primary`) or labels
/// (`label:One-time code`, matched against an input's label, `aria-label` or placeholder and a
/// button's text, ignoring case). The `webkit` engine resolves both in the live document; the
/// `lite` engine, which has no CSS engine, understands `#id`, `[name=…]` and labels.
public enum WebPageOverride: Hashable, Sendable {
    case fill(WebElementTarget, value: String)
    case click(WebElementTarget)

    public var target: WebElementTarget {
        switch self {
        case .fill(let target, _), .click(let target): target
        }
    }
}

/// How an override names an element.
public enum WebElementTarget: Hashable, Sendable, CustomStringConvertible {
    case selector(String)
    case label(String)

    /// `label:TEXT` is a label, anything else a selector.
    public init(_ text: String) {
        if text.lowercased().hasPrefix("label:") {
            self = .label(String(text.dropFirst(6)).trimmingCharacters(in: .whitespaces))
        } else {
            self = .selector(text)
        }
    }

    /// Whether a `fill` key is a target rather than a field name: it starts with `label:` or
    /// uses a character no field name in a selector-free world would (`#`, `.`, `[`, space, `>`,
    /// `:`).
    public static func isTarget(_ key: String) -> Bool {
        key.lowercased().hasPrefix("label:") || key.contains { "#.[] >:".contains($0) }
    }

    public var description: String {
        switch self {
        case .selector(let selector): selector
        case .label(let label): "label:\(label)"
        }
    }
}

/// Where an override's target is on a page: the form group and the element's handle.
public struct WebPageOverrideMatch: Hashable, Sendable {
    /// Its place in ``WebUserScript/overrides``.
    public var override: Int
    public var form: Int
    public var ref: Int

    public init(override: Int, form: Int, ref: Int) {
        self.override = override
        self.form = form
        self.ref = ref
    }
}

extension WebPage {
    /// The overrides a page without a CSS engine can match: `#id`, `[name=…]` (quoted or not,
    /// with or without a tag before it) and labels.
    public func liteOverrideMatches(_ overrides: [WebPageOverride]) -> [WebPageOverrideMatch] {
        var matches: [WebPageOverrideMatch] = []
        for (index, override) in overrides.enumerated() {
            for form in forms {
                switch override {
                case .fill(let target, _):
                    if let field = form.fields.first(where: { Self.liteMatches(target, field: $0) }) {
                        matches.append(
                            WebPageOverrideMatch(override: index, form: form.index, ref: field.ref))
                    }
                case .click(let target):
                    if let button = form.buttons.first(where: { Self.liteMatches(target, button: $0) }) {
                        matches.append(
                            WebPageOverrideMatch(override: index, form: form.index, ref: button.ref))
                    }
                }
            }
        }
        return matches
    }

    private static func liteMatches(_ target: WebElementTarget, field: WebPageField) -> Bool {
        switch target {
        case .label(let label):
            return field.label.map { $0.lowercased() == label.lowercased() } ?? false
        case .selector(let selector):
            if selector.hasPrefix("#") { return field.id == String(selector.dropFirst()) }
            return nameInSelector(selector).map { $0 == field.name } ?? false
        }
    }

    private static func liteMatches(_ target: WebElementTarget, button: WebPageButton) -> Bool {
        switch target {
        case .label(let label):
            return button.label.lowercased() == label.lowercased()
        case .selector(let selector):
            return nameInSelector(selector).map { $0 == button.name } ?? false
        }
    }

    /// `x` from `[name=x]`, `[name="x"]` or `input[name='x']`.
    private static func nameInSelector(_ selector: String) -> String? {
        guard let open = selector.range(of: "[name="), selector.hasSuffix("]") else { return nil }
        var value = selector[open.upperBound..<selector.index(before: selector.endIndex)]
        if let first = value.first, first == "\"" || first == "'", value.last == first, value.count >= 2 {
            value = value.dropFirst().dropLast()
        }
        return String(value)
    }
}
