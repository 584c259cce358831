import Foundation
public import HTTPCore

/// A form as a browser would submit it (HTML Living Standard §4.10.21 "Form submission").
///
/// `controls` are the form's successful controls in tree order (§4.10.21.4 "Constructing the
/// entry list"): disabled and nameless controls, unchecked checkboxes and radio buttons, and
/// buttons are left out, except that every submit button is kept as a `.submitButton` so the
/// entry of the one pressed can be put where it stands.
public struct HTMLForm: Hashable, Sendable {
    /// One entry of the form's entry list, or a submit button that may become one.
    public enum Control: Hashable, Sendable {
        case field(HTMLFormField)
        case submitButton(HTMLSubmitButton)
    }

    /// `GET` or `POST` (the `method` attribute; anything else, or none, is `GET`).
    public var method: HTTPMethod
    /// The `action` resolved against the page URL (RFC 3986 §5.2); the page URL when empty.
    public var action: String
    /// The `enctype` attribute, lowercased; `application/x-www-form-urlencoded` by default.
    public var encodingType: String
    public var id: String?
    public var name: String?
    public var controls: [Control]
    /// Whether the form has an `onsubmit` handler: script that may change or replace what a
    /// submission sends (HTML §8.1.8.2), which a user agent without scripts skips.
    public var hasSubmitHandler: Bool

    public init(
        method: HTTPMethod, action: String, encodingType: String = MediaType.formURLEncoded,
        id: String? = nil, name: String? = nil, controls: [Control], hasSubmitHandler: Bool = false
    ) {
        self.method = method
        self.action = action
        self.encodingType = encodingType
        self.id = id
        self.name = name
        self.controls = controls
        self.hasSubmitHandler = hasSubmitHandler
    }

    /// The successful fields, buttons left out.
    public var fields: [HTMLFormField] {
        controls.compactMap { control in
            if case .field(let field) = control { return field }
            return nil
        }
    }

    public var submitButtons: [HTMLSubmitButton] {
        controls.compactMap { control in
            if case .submitButton(let button) = control { return button }
            return nil
        }
    }

    /// Whether the form has a password input: what a login form looks like.
    public var hasPasswordField: Bool { fields.contains { $0.kind == .password } }

    /// The first field of that name.
    public func field(named name: String) -> HTMLFormField? { fields.first { $0.name == name } }

    /// The entry list a user would send after typing `values` and pressing `button`.
    ///
    /// A value replaces those of every editable field of that name (text-like inputs,
    /// passwords, text areas, and a select that offers that value); hidden inputs, checkboxes
    /// and radio buttons keep what the page says, as a user cannot change them by typing.
    /// The button's entry, when it has a name, goes where the button stands (§4.10.21.4).
    public func entries(filling values: FormParameters = [:], pressing button: HTMLSubmitButton? = nil)
        -> FormParameters
    {
        var result = FormParameters()
        for control in controls {
            switch control {
            case .field(let field):
                var value = field.value
                if field.isEditable, let typed = values[field.name],
                    field.kind != .select || field.options.contains(typed)
                {
                    value = typed
                }
                result.append(field.name, value)
            case .submitButton(let candidate):
                if candidate == button, let name = candidate.name, !name.isEmpty {
                    result.append(name, candidate.value)
                }
            }
        }
        return result
    }

    /// The request a browser sends for the submission: a `POST` with a form body, or a `GET`
    /// with the entries as the action's query (§4.10.21.3 "mutate action URL", which replaces
    /// any query the action had).
    public func request(
        filling values: FormParameters = [:], pressing button: HTMLSubmitButton? = nil
    ) -> HTTPRequest {
        let entries = entries(filling: values, pressing: button)
        if method == .post {
            return .form(url: action, parameters: entries)
        }
        let base = URLParts.stripQueryAndFragment(action)
        return HTTPRequest(url: entries.isEmpty ? base + "?" : base + "?" + FormURLEncoding.encode(entries))
    }
}

/// A control that contributes an entry to a form's entry list (HTML §4.10.21.4).
public struct HTMLFormField: Hashable, Sendable {
    /// What kind of control gave the entry.
    public enum Kind: String, Hashable, Sendable {
        /// Any text-like `<input>` (`text`, `email`, `search`, `tel`, `url`, `number`, unknown types).
        case text
        case password
        case hidden
        case checkbox
        case radio
        case select
        case textarea
    }

    public var name: String
    public var value: String
    public var kind: Kind
    /// The `type` attribute as written (lowercased), for inputs.
    public var inputType: String?
    /// For a select, the values of its enabled options.
    public var options: [String]
    /// The `id` attribute.
    public var id: String?
    /// The `autocomplete` attribute, lowercased (HTML §4.10.18.7.1).
    public var autocomplete: String?
    /// What a person reads for it: the text of a `<label for>` naming its id, else its
    /// `aria-label`, else its placeholder.
    public var label: String?

    public init(
        name: String, value: String, kind: Kind, inputType: String? = nil, options: [String] = [],
        id: String? = nil, autocomplete: String? = nil, label: String? = nil
    ) {
        self.name = name
        self.value = value
        self.kind = kind
        self.inputType = inputType
        self.options = options
        self.id = id
        self.autocomplete = autocomplete
        self.label = label
    }

    /// Whether a user can change the value by typing or choosing.
    public var isEditable: Bool {
        switch kind {
        case .text, .password, .select, .textarea: true
        case .hidden, .checkbox, .radio: false
        }
    }
}

/// A submit button: `<button>` (whose type defaults to submit) or `<input type=submit>`
/// (HTML §4.10.6, §4.10.5.1.19).
public struct HTMLSubmitButton: Hashable, Sendable {
    public var name: String?
    /// The `value` attribute; `""` when absent (an `<input type=submit>` without a value sends
    /// nothing different: its label is "Submit").
    public var value: String
    /// What the user reads on it: the button's text, or the input's value.
    public var label: String
    /// Position among the form's submit buttons, so that identical buttons stay distinct.
    public var index: Int
    /// Whether the button has an `onclick` handler: script that runs before the submission and
    /// may change what it sends, which a user agent without scripts skips.
    public var hasClickHandler: Bool

    public init(name: String?, value: String, label: String, index: Int, hasClickHandler: Bool = false) {
        self.name = name
        self.value = value
        self.label = label
        self.index = index
        self.hasClickHandler = hasClickHandler
    }

    /// Whether the name, value or label contains any of the words, ignoring case: Foundation's
    /// literal search over the lowercased texts. An empty word matches nothing.
    public func mentions(any words: [String]) -> Bool {
        let texts = [name ?? "", value, label].map { $0.lowercased() }
        return words.contains { word in
            let word = word.lowercased()
            return texts.contains { $0.range(of: word, options: .literal) != nil }
        }
    }
}
