import Foundation
import HTTPCore

/// A page as the person in the sheet sees it, whichever engine showed it: its forms (or, on a
/// page built by script, the groups of controls a form would hold), what it says is wrong, and
/// its text.
///
/// The `lite` engine reads it from the HTML a server sent (``init(_:scriptCount:)``); the
/// `webkit` engine from the live document after its scripts ran. The person (``WebPerson``)
/// decides on this value alone, so both engines act alike on alike pages.
public struct WebPage: Hashable, Sendable {
    public var url: String
    public var title: String?
    /// Forms in document order; controls outside any form make one more group at the end.
    public var forms: [WebPageForm]
    /// Texts the page shows as errors: `role="alert"`, `aria-live` regions (not `off`), and
    /// elements whose class or id says "error" or "alert" (both engines read the same markers;
    /// `webkit` after the page's scripts wrote into them).
    public var alerts: [String]
    /// The visible text of the body, whitespace collapsed.
    public var text: String
    /// How many `<script>` elements the page has: a page with scripts and nothing to act on
    /// probably renders its forms with JavaScript.
    public var scriptCount: Int
    /// Whether this is the live document after its scripts ran (`webkit`), not the HTML as the
    /// server sent it (`lite`).
    public var isRendered: Bool
    /// Where the script's overrides (``WebUserScript/overrides``) point on this page; the engine
    /// that read the page resolves them.
    public var overrideMatches: [WebPageOverrideMatch]

    public init(
        url: String, title: String? = nil, forms: [WebPageForm] = [], alerts: [String] = [],
        text: String = "",
        scriptCount: Int = 0, isRendered: Bool = false, overrideMatches: [WebPageOverrideMatch] = []
    ) {
        self.url = url
        self.title = title
        self.forms = forms
        self.alerts = alerts
        self.text = text
        self.scriptCount = scriptCount
        self.isRendered = isRendered
        self.overrideMatches = overrideMatches
    }

    /// A page read from server HTML: each form's fields and submit buttons, referenced by
    /// their index in the form's ``HTMLForm/fields`` and ``HTMLForm/submitButtons``.
    public init(_ document: HTMLDocument, scriptCount: Int? = nil) {
        self.init(
            url: document.url, title: document.title,
            forms: document.forms.enumerated().map { index, form in WebPageForm(form, index: index) },
            alerts: document.errorMessages, text: document.text,
            scriptCount: scriptCount ?? document.scriptCount)
    }
}

/// A form, or the controls of a page that live outside any form.
public struct WebPageForm: Hashable, Sendable {
    /// Its place in ``WebPage/forms``.
    public var index: Int
    public var fields: [WebPageField]
    public var buttons: [WebPageButton]
    /// Whether the form has an `onsubmit` handler (read from the HTML by `lite`).
    public var hasSubmitHandler: Bool

    public init(index: Int, fields: [WebPageField], buttons: [WebPageButton], hasSubmitHandler: Bool = false)
    {
        self.index = index
        self.fields = fields
        self.buttons = buttons
        self.hasSubmitHandler = hasSubmitHandler
    }

    init(_ form: HTMLForm, index: Int) {
        self.index = index
        fields = form.fields.enumerated().map { position, field in
            WebPageField(
                ref: position, name: field.name, id: field.id, kind: field.kind, inputType: field.inputType,
                autocomplete: field.autocomplete, label: field.label, isVisible: field.kind != .hidden,
                isChecked: field.kind == .checkbox || field.kind == .radio)
        }
        buttons = form.submitButtons.enumerated().map { position, button in
            WebPageButton(
                ref: position, name: button.name, value: button.value, label: button.label,
                hasClickHandler: button.hasClickHandler)
        }
        hasSubmitHandler = form.hasSubmitHandler
    }

    /// The visible password inputs.
    public var passwordFields: [WebPageField] { fields.filter { $0.kind == .password && $0.isVisible } }
    public var hasPasswordField: Bool { !passwordFields.isEmpty }
}

/// An input, select or text area the person may type into or leave alone.
public struct WebPageField: Hashable, Sendable {
    /// The engine's handle on the element (an index it gave out when it read the page).
    public var ref: Int
    /// The `name` attribute; `""` when it has none (common on pages built by script).
    public var name: String
    public var id: String?
    public var kind: HTMLFormField.Kind
    /// The `type` attribute, lowercased, for inputs.
    public var inputType: String?
    /// The `autocomplete` attribute, lowercased (HTML §4.10.18.7.1: `username`,
    /// `current-password`, `email`, `one-time-code`, …).
    public var autocomplete: String?
    /// What a person reads for it: its `<label>`, `aria-label` or placeholder.
    public var label: String?
    public var isVisible: Bool
    /// For a checkbox or radio button: whether it is ticked.
    public var isChecked: Bool

    public init(
        ref: Int, name: String, id: String? = nil, kind: HTMLFormField.Kind, inputType: String? = nil,
        autocomplete: String? = nil, label: String? = nil, isVisible: Bool = true, isChecked: Bool = false
    ) {
        self.ref = ref
        self.name = name
        self.id = id
        self.kind = kind
        self.inputType = inputType
        self.autocomplete = autocomplete
        self.label = label
        self.isVisible = isVisible
        self.isChecked = isChecked
    }

    /// Whether a person can type into it (text-like inputs, passwords, selects, text areas).
    public var isEditable: Bool {
        switch kind {
        case .text, .password, .select, .textarea: isVisible
        case .hidden, .checkbox, .radio: false
        }
    }

    /// How a report names it: `name`, else `#id`, else its label.
    public var displayName: String {
        if !name.isEmpty { return name }
        if let id, !id.isEmpty { return "#" + id }
        return label.map { "\"\($0)\"" } ?? "an unnamed \(inputType ?? "field")"
    }
}

/// Something the person can press: a submit button, or on a page built by script any button.
public struct WebPageButton: Hashable, Sendable {
    public var ref: Int
    public var name: String?
    public var value: String
    /// Its text (or an input's value, or `aria-label`).
    public var label: String
    /// Whether it has an `onclick` handler (read from the HTML by `lite`).
    public var hasClickHandler: Bool

    public init(
        ref: Int, name: String? = nil, value: String = "", label: String, hasClickHandler: Bool = false
    ) {
        self.ref = ref
        self.name = name
        self.value = value
        self.label = label
        self.hasClickHandler = hasClickHandler
    }

    /// The name, value or label contains one of the words, ignoring case.
    public func mentions(any words: [String]) -> Bool {
        let texts = [name ?? "", value, label].map { $0.lowercased() }
        return words.contains { word in
            let word = word.lowercased()
            return !word.isEmpty && texts.contains { $0.range(of: word, options: .literal) != nil }
        }
    }

    /// The label, whole words compared: `No` is not `Now`.
    func says(any words: [String]) -> Bool {
        let spoken = WebPage.words(in: label.isEmpty ? value : label)
        return words.contains { word in
            let wanted = WebPage.words(in: word)
            guard !wanted.isEmpty, wanted.count <= spoken.count else { return false }
            return (0...(spoken.count - wanted.count)).contains {
                Array(spoken[$0..<$0 + wanted.count]) == wanted
            }
        }
    }

    /// How a report names it: its text, else its value.
    public var displayName: String {
        label.isEmpty ? (value.isEmpty ? "an unlabelled button" : value) : label
    }
}

extension WebPage {
    /// Lowercased runs of letters and digits.
    static func words(in text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }
}
