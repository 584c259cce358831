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
