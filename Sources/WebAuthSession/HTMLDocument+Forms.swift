import Foundation
import HTTPCore

extension HTMLDocument {
    /// The forms among `elements` (document order), each with the controls inside it.
    static func forms(in elements: [LibXML2Node], pageURL: String) -> [HTMLForm] {
        elements.filter { $0.isNamed("form") }.map { form(from: $0, pageURL: pageURL) }
    }

    private static func form(from element: LibXML2Node, pageURL: String) -> HTMLForm {
        let method: HTTPMethod = element.attribute("method")?.lowercased() == "post" ? .post : .get
        let encodingType = element.attribute("enctype").map { $0.lowercased() } ?? MediaType.formURLEncoded
        var controls: [HTMLForm.Control] = []
        var buttonCount = 0
        for node in element.descendants() where !isDisabled(node) {
            switch node.name {
            case "input":
                if let control = inputControl(node, buttonIndex: buttonCount) {
                    if case .submitButton = control { buttonCount += 1 }
                    controls.append(control)
                }
            case "button":
                let type = node.attribute("type").map { HTMLWhitespace.strip($0).lowercased() } ?? "submit"
                // An invalid type is the submit state too (§4.10.6).
                guard type != "reset", type != "button" else { continue }
                controls.append(
                    .submitButton(
                        HTMLSubmitButton(
                            name: node.attribute("name"), value: node.attribute("value") ?? "",
                            label: node.visibleText(), index: buttonCount)))
                buttonCount += 1
            case "select":
                if let field = selectField(node) { controls.append(.field(field)) }
            case "textarea":
                guard let name = node.attribute("name"), !name.isEmpty else { continue }
                controls.append(.field(HTMLFormField(name: name, value: rawText(node), kind: .textarea)))
            default:
                continue
            }
        }
        return HTMLForm(
            method: method, action: resolve(element.attribute("action"), against: pageURL),
            encodingType: encodingType, id: element.attribute("id"), name: element.attribute("name"),
            controls: controls)
    }

    /// An `<input>` as a control, or `nil` when it contributes nothing (§4.10.21.4 step 5).
    private static func inputControl(_ node: LibXML2Node, buttonIndex: Int) -> HTMLForm.Control? {
        let type = node.attribute("type").map { HTMLWhitespace.strip($0).lowercased() } ?? "text"
        let name = node.attribute("name") ?? ""
        let value = node.attribute("value")
        if type == "submit" {
            let label = value ?? "Submit"
            return .submitButton(
                HTMLSubmitButton(
                    name: name.isEmpty ? nil : name, value: value ?? "", label: label, index: buttonIndex))
        }
        guard !name.isEmpty else { return nil }
        let kind: HTMLFormField.Kind
        switch type {
        case "password": kind = .password
        case "hidden": kind = .hidden
        case "checkbox", "radio":
            guard node.has("checked") else { return nil }
            kind = type == "checkbox" ? .checkbox : .radio
            return .field(HTMLFormField(name: name, value: value ?? "on", kind: kind, inputType: type))
        case "image", "reset", "button", "file":
            return nil
        default: kind = .text
        }
        return .field(HTMLFormField(name: name, value: value ?? "", kind: kind, inputType: type))
    }

    /// A select's entry: its selected option, or its first enabled option when none is
    /// selected and it is a drop-down (§4.10.7 "selectedness setting algorithm").
    private static func selectField(_ node: LibXML2Node) -> HTMLFormField? {
        guard let name = node.attribute("name"), !name.isEmpty else { return nil }
        let options = node.descendants().filter { $0.isNamed("option") && !$0.has("disabled") }
        let values = options.map { $0.attribute("value") ?? $0.visibleText() }
        guard !values.isEmpty else { return nil }
        let selected = options.firstIndex { $0.has("selected") } ?? 0
        return HTMLFormField(name: name, value: values[selected], kind: .select, options: values)
    }

    /// A control is disabled by its own attribute or a disabled `<fieldset>` around it.
    private static func isDisabled(_ node: LibXML2Node) -> Bool {
        if node.has("disabled") { return true }
        var ancestor = node.parent
        while let current = ancestor, !current.isNamed("form") {
            if current.isNamed("fieldset"), current.has("disabled") { return true }
            ancestor = current.parent
        }
        return false
    }

    /// A text area's raw text: its text nodes, a leading newline dropped as the parser does.
    private static func rawText(_ node: LibXML2Node) -> String {
        var text = ""
        var child = node.firstChild
        while let current = child {
            if current.isText { text += current.textContent }
            child = current.nextSibling
        }
        if text.hasPrefix("\n") { text.removeFirst() }
        return text
    }

    /// Resolves a form action against the page URL (RFC 3986 §5.2); empty or missing means
    /// the page itself (§4.10.21.3 step 9).
    static func resolve(_ reference: String?, against pageURL: String) -> String {
        let reference = HTMLWhitespace.strip(reference ?? "")
        guard !reference.isEmpty else { return pageURL }
        guard let base = URL(string: pageURL), let resolved = URL(string: reference, relativeTo: base) else {
            return reference
        }
        return resolved.absoluteString
    }
}
