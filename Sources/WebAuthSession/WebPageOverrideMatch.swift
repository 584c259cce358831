public import WorldVocabulary

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
