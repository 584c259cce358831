import CLibXML2
import Foundation
import HTTPCore

/// Whether libxml2's global state is initialised; Swift runs the initialiser once, thread-safely.
private let libXML2Initialized: Bool = {
    xmlInitParser()
    return true
}()

/// Reads what `HTMLDocument` keeps from a page in one pass over libxml2's SAX events.
///
/// libxml2's HTML parser (HTML Living Standard §13.2, as far as libxml2 goes) reports its
/// recovered structure as events: implied and auto-closed elements arrive as start and end
/// events, entities are already decoded. Its own tree builder is only one such handler. The
/// reader gathers the title, forms, error texts and visible text straight from the events, so
/// no node is allocated, walked and freed per element and text run.
///
/// What it buys over the plain version (libxml2's tree from `htmlReadMemory`, walked): a web
/// flow reads three pages, in 139-151 µs here and 256-265 µs through the tree, so the reader
/// saves 114-118 µs, 3-5% of the flow's time in `scripts/bench client --rows web` (three runs,
/// docs/benchmarks.md).
///
/// What each result means is the same as on a tree: "descendants" are the elements started
/// while an element is open, in start order (document order); text belongs to every element
/// open when it arrives. Markup after `</html>` makes libxml2 open a second `<html>`; its
/// elements count as the page's, as a browser moves them into the body (the "after after body"
/// insertion mode, §13.2.6.4).
struct HTMLPageReader {
    /// The page's title, forms, error texts and body text, as `HTMLDocument` exposes them.
    struct Page {
        var title: String?
        var forms: [HTMLForm]
        var errorMessages: [String]
        var text: String
        var scriptCount: Int
    }

    /// Parses with libxml2's HTML parser, recovering from broken markup, never fetching
    /// anything, never printing. A charset libxml2 knows (`encoding`) is used whatever the page
    /// says; otherwise libxml2 reads UTF-8 and honours a `<meta charset>`. `nil` when libxml2
    /// finds no element at all (an empty body).
    static func read(bytes: [UInt8], encoding: String?, url: String) -> Page? {
        _ = libXML2Initialized
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return nil }
        // libxml2 calls back with a pointer of ours; state behind a plain pointer also spares
        // the exclusivity checks a class's stored properties would cost on every event.
        let reader = UnsafeMutablePointer<HTMLPageReader>.allocate(capacity: 1)
        reader.initialize(to: HTMLPageReader(pageURL: url))
        defer { reader.deinitialize(count: 1).deallocate() }
        let parsed: Bool = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                // The context `htmlReadMemory` makes: `htmlCreateMemoryParserCtxt`'s would read a
                // page without a declared charset as Latin-1, not UTF-8.
                guard let context = xmlCreateMemoryParserCtxt(chars.baseAddress, Int32(chars.count)) else {
                    return false
                }
                defer { htmlFreeParserCtxt(context) }
                install(reader, on: context, encoding: encoding)
                _ = htmlParseDocument(context)
                return true
            }
        }
        guard parsed else { return nil }
        return reader.pointee.finish()
    }

    /// Points the context's SAX handler at `reader`: elements and text only. No tree, no error
    /// reports (libxml2 still recovers from every error), no DTD, no comments.
    private static func install(
        _ reader: UnsafeMutablePointer<HTMLPageReader>, on context: htmlParserCtxtPtr, encoding: String?
    ) {
        if let sax = context.pointee.sax {
            sax.pointee = htmlSAXHandler()
            sax.pointee.startElement = { context, name, attributes in
                guard let context, let name else { return }
                HTMLPageReader.from(context).pointee.elementStarted(name, Attributes(list: attributes))
            }
            sax.pointee.endElement = { context, _ in
                guard let context else { return }
                HTMLPageReader.from(context).pointee.elementEnded()
            }
            sax.pointee.characters = { context, characters, length in
                guard let context, let characters, length > 0 else { return }
                HTMLPageReader.from(context).pointee.textRead(
                    UnsafeBufferPointer(start: characters, count: Int(length)))
            }
        }
        context.pointee.userData = UnsafeMutableRawPointer(reader)
        let options =
            Int32(HTML_PARSE_RECOVER.rawValue) | Int32(HTML_PARSE_NOERROR.rawValue)
            | Int32(HTML_PARSE_NOWARNING.rawValue) | Int32(HTML_PARSE_NONET.rawValue)
        _ = htmlCtxtUseOptions(context, options)
        context.pointee.html = 1
        // As `htmlReadMemory` does with an encoding: switch to it and mark the input's encoding
        // as known, so that a `<meta charset>` does not switch again. An unknown name is ignored.
        // A fresh memory input has no encoding yet; the context frees the copy with the input.
        if let encoding, let handler = xmlFindCharEncodingHandler(encoding), let input = context.pointee.input
        {
            _ = xmlSwitchToEncoding(context, handler)
            if input.pointee.encoding == nil { input.pointee.encoding = UnsafePointer(xmlStrdup(encoding)) }
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer) -> UnsafeMutablePointer<HTMLPageReader> {
        context.assumingMemoryBound(to: HTMLPageReader.self)
    }

    // MARK: - State

    /// An element between its start and end events.
    private struct OpenElement {
        var isBlock: Bool
        /// Hidden elements (`<script>`, `<head>`…) open from the root down to this one, this
        /// one included.
        var hiddenCount: Int
        var isForm = false
        /// A `<fieldset disabled>`: controls inside it, up to the nearest form, are disabled.
        var disablesControls = false
        /// A `role="alert"` or `class*=error` element whose text is an error message.
        var isCountedError = false
        /// Text captures started at this element (the last ones on the capture stack).
        var captureCount = 0
        var control: PendingControl?
        /// For a `<textarea>` that is a control: the text directly inside it.
        var directText: [UInt8]?
        /// For an `<option>`: its places in the selects open around it.
        var optionPlaces: [(select: Int, option: Int)] = []
    }

    /// A control whose entry needs what is inside it: a button's label, a select's options, a
    /// text area's text. Its slots in the open forms are reserved at its start, so controls
    /// stay in tree order.
    private enum PendingControl {
        case button(name: String?, value: String, hasClickHandler: Bool, slots: [ControlSlot])
        case select(Int)
        case textarea(name: String, slots: [ControlSlot])
    }

    /// Where a control goes: a form, the index of its control, and its index among that form's
    /// submit buttons.
    private struct ControlSlot {
        var form: Int
        var control: Int
        var buttonIndex: Int
    }

    private struct FormInProgress {
        var method: HTTPMethod
        var action: String
        var encodingType: String
        var id: String?
        var name: String?
        var hasSubmitHandler: Bool
        var controls: [HTMLForm.Control?] = []
        var buttonCount = 0
    }

    private struct SelectInProgress {
        var name: String
        var slots: [ControlSlot]
        var options: [(value: String?, label: String, selected: Bool)] = []
    }

    /// Visible text being collected below one element (HTML `innerText`, roughly).
    private struct TextCapture {
        enum Purpose {
            case root, body, title
            case error(Int)
            case buttonLabel, optionLabel
            /// A `<label for>`: the id it names.
            case label(String)
        }
        /// What makes a capture see no more text (the root's once a body is found): no element
        /// has that many hidden ones around it.
        static let neverVisible = Int.max
        var purpose: Purpose
        /// Hidden elements open above the capture's element: only text with no more hidden
        /// elements around it is visible.
        var hiddenAbove: Int
        var bytes: [UInt8] = []
    }

    private let pageURL: String
    private var stack: [OpenElement] = []
    private var captures: [TextCapture] = []
    private var forms: [FormInProgress] = []
    private var openForms: [Int] = []
    private var selects: [SelectInProgress] = []
    private var openSelects: [Int] = []
    private var errorSlots: [String?] = []
    private var openCountedErrors = 0
    private var rootSeen = false
    private var title: String?
    private var titleSeen = false
    private var bodySeen = false
    private var rootText = ""
    private var bodyText = ""
    private var scriptCount = 0
    /// `<label for>` texts by the id they name, the first label of an id winning.
    private var labels: [String: String] = [:]

    private init(pageURL: String) { self.pageURL = pageURL }

    // MARK: - Events

    private mutating func elementStarted(_ rawName: UnsafePointer<xmlChar>, _ attributes: Attributes) {
        let traits = Self.elementTraits[Self.lowercasedName(rawName)] ?? ElementTraits()
        let isRoot = !rootSeen
        rootSeen = true
        let hiddenAbove = stack.last?.hiddenCount ?? 0
        var element = OpenElement(
            isBlock: !traits.isInline, hiddenCount: hiddenAbove + (traits.isHidden ? 1 : 0))

        if isRoot {
            startCapture(&element, .root)
        } else {
            if traits.kind == .title && !titleSeen {
                titleSeen = true
                startCapture(&element, .title)
            }
            if traits.kind == .body && !bodySeen {
                bodySeen = true
                for index in captures.indices {
                    guard case .root = captures[index].purpose else { continue }
                    captures[index].hiddenAbove = TextCapture.neverVisible
                }
                startCapture(&element, .body)
            }
            if openCountedErrors == 0, traits.kind != .body, attributes.looksLikeAnError {
                element.isCountedError = true
                openCountedErrors += 1
                startCapture(&element, .error(errorSlots.count))
                errorSlots.append(nil)
            }
        }

        switch traits.kind {
        case .script:
            scriptCount += 1
        case .label:
            if let target = attributes.value("for"), !target.isEmpty {
                startCapture(&element, .label(target))
            }
        case .form:
            formStarted(attributes)
            element.isForm = true
        case .fieldset:
            element.disablesControls = attributes.has("disabled")
        case .input, .button, .select, .textarea:
            guard !openForms.isEmpty, !isDisabled(attributes) else { break }
            element.control = controlStarted(traits.kind, attributes)
            switch element.control {
            case .button: startCapture(&element, .buttonLabel)
            case .textarea: element.directText = []
            case .select, nil: break
            }
        case .option:
            guard !openSelects.isEmpty, !attributes.has("disabled") else { break }
            let value = attributes.value("value")
            let selected = attributes.has("selected")
            for select in openSelects {
                element.optionPlaces.append((select, selects[select].options.count))
                selects[select].options.append((value, "", selected))
            }
            if value == nil { startCapture(&element, .optionLabel) }
        case .title, .body, .other:
            break
        }

        stack.append(element)
        if element.isBlock { appendToVisibleCaptures(Self.space) }
    }

    /// Starts collecting the visible text of `element`, which is about to be opened.
    private mutating func startCapture(_ element: inout OpenElement, _ purpose: TextCapture.Purpose) {
        let hiddenAbove = stack.last?.hiddenCount ?? 0
        captures.append(TextCapture(purpose: purpose, hiddenAbove: hiddenAbove))
        element.captureCount += 1
    }

    private mutating func elementEnded() {
        guard let element = stack.last else { return }
        if element.isBlock { appendToVisibleCaptures(Self.space) }
        stack.removeLast()

        var label = ""
        for capture in captures.suffix(element.captureCount).reversed() {
            let text = HTMLWhitespace.collapse(capture.bytes)
            switch capture.purpose {
            case .root: rootText = text
            case .body: bodyText = text
            case .title: title = text
            case .error(let slot): errorSlots[slot] = text.isEmpty ? nil : text
            case .buttonLabel, .optionLabel: label = text
            case .label(let target): if labels[target] == nil, !text.isEmpty { labels[target] = text }
            }
        }
        captures.removeLast(element.captureCount)
        for place in element.optionPlaces { selects[place.select].options[place.option].label = label }
        if element.isCountedError { openCountedErrors -= 1 }
        if element.isForm { openForms.removeLast() }
        switch element.control {
        case .button(let name, let value, let hasClickHandler, let slots):
            for slot in slots {
                forms[slot.form].controls[slot.control] = .submitButton(
                    HTMLSubmitButton(
                        name: name, value: value, label: label, index: slot.buttonIndex,
                        hasClickHandler: hasClickHandler))
            }
        case .select(let index):
            openSelects.removeLast()
            selectEnded(selects[index])
        case .textarea(let name, let slots):
            var text = element.directText ?? []
            // The parser drops a newline right after the start tag (§13.2.6.4.7 "textarea").
            if text.first == UInt8(ascii: "\n") { text.removeFirst() }
            let field = HTMLFormField(
                name: name, value: String(decoding: text, as: UTF8.self), kind: .textarea)
            for slot in slots { forms[slot.form].controls[slot.control] = .field(field) }
        case nil:
            break
        }
    }

    private mutating func textRead(_ characters: UnsafeBufferPointer<xmlChar>) {
        guard !stack.isEmpty else { return }
        let top = stack.count - 1
        let hidden = stack[top].hiddenCount
        for index in captures.indices where captures[index].hiddenAbove == hidden {
            captures[index].bytes.append(contentsOf: characters)
        }
        // In place: a copy of the element would make the append copy the text.
        if stack[top].directText != nil { stack[top].directText?.append(contentsOf: characters) }
    }

    private static let space: UInt8 = 0x20

    /// Adds a byte to every capture for which the innermost open element is visible.
    private mutating func appendToVisibleCaptures(_ byte: UInt8) {
        let hidden = stack.last?.hiddenCount ?? 0
        for index in captures.indices where captures[index].hiddenAbove == hidden {
            captures[index].bytes.append(byte)
        }
    }

    // MARK: - Forms (HTML §4.10.21)

    private mutating func formStarted(_ attributes: Attributes) {
        openForms.append(forms.count)
        forms.append(
            FormInProgress(
                method: attributes.value("method")?.lowercased() == "post" ? .post : .get,
                action: Self.resolve(attributes.value("action"), against: pageURL),
                encodingType: attributes.value("enctype").map { $0.lowercased() } ?? MediaType.formURLEncoded,
                id: attributes.value("id"), name: attributes.value("name"),
                hasSubmitHandler: attributes.has("onsubmit")))
    }

    /// Resolves a form action against the page URL with Foundation's `URL` (RFC 3986 §5.2);
    /// empty or missing means the page itself (§4.10.21.3 step 9).
    static func resolve(_ reference: String?, against pageURL: String) -> String {
        let reference = HTMLWhitespace.strip(reference ?? "")
        guard !reference.isEmpty else { return pageURL }
        guard let base = URL(string: pageURL), let resolved = URL(string: reference, relativeTo: base) else {
            return reference
        }
        return resolved.absoluteString
    }

    /// Reserves a slot in every open form, in tree order.
    private mutating func reserveSlots(submitButton: Bool) -> [ControlSlot] {
        openForms.map { form in
            let slot = ControlSlot(
                form: form, control: forms[form].controls.count, buttonIndex: forms[form].buttonCount)
            forms[form].controls.append(nil)
            if submitButton { forms[form].buttonCount += 1 }
            return slot
        }
    }

    /// Starts a control inside the open forms: an input is complete at once, the others when
    /// they end.
    private mutating func controlStarted(_ kind: ElementTraits.Kind, _ attributes: Attributes)
        -> PendingControl?
    {
        switch kind {
        case .input:
            let type = attributes.value("type").map { HTMLWhitespace.strip($0).lowercased() } ?? "text"
            guard let control = Self.inputControl(type: type, attributes) else { return nil }
            let isButton = if case .submitButton = control { true } else { false }
            for slot in reserveSlots(submitButton: isButton) {
                var placed = control
                if case .submitButton(var button) = control {
                    button.index = slot.buttonIndex
                    placed = .submitButton(button)
                }
                forms[slot.form].controls[slot.control] = placed
            }
            return nil
        case .button:
            let type = attributes.value("type").map { HTMLWhitespace.strip($0).lowercased() } ?? "submit"
            // An invalid type is the submit state too (§4.10.6).
            guard type != "reset", type != "button" else { return nil }
            return .button(
                name: attributes.value("name"), value: attributes.value("value") ?? "",
                hasClickHandler: attributes.has("onclick"), slots: reserveSlots(submitButton: true))
        case .select:
            guard let name = attributes.value("name"), !name.isEmpty else { return nil }
            openSelects.append(selects.count)
            selects.append(SelectInProgress(name: name, slots: reserveSlots(submitButton: false)))
            return .select(selects.count - 1)
        case .textarea:
            guard let name = attributes.value("name"), !name.isEmpty else { return nil }
            return .textarea(name: name, slots: reserveSlots(submitButton: false))
        case .form, .fieldset, .option, .title, .body, .script, .label, .other:
            return nil
        }
    }

    /// An `<input>` as a control, or `nil` when it contributes nothing (§4.10.21.4 step 5).
    /// A submit button's index is set per form by the caller.
    private static func inputControl(type: String, _ attributes: Attributes) -> HTMLForm.Control? {
        let name = attributes.value("name") ?? ""
        let value = attributes.value("value")
        if type == "submit" {
            return .submitButton(
                HTMLSubmitButton(
                    name: name.isEmpty ? nil : name, value: value ?? "", label: value ?? "Submit", index: 0,
                    hasClickHandler: attributes.has("onclick")))
        }
        guard !name.isEmpty else { return nil }
        let kind: HTMLFormField.Kind
        switch type {
        case "password": kind = .password
        case "hidden": kind = .hidden
        case "checkbox", "radio":
            guard attributes.has("checked") else { return nil }
            kind = type == "checkbox" ? .checkbox : .radio
            return .field(HTMLFormField(name: name, value: value ?? "on", kind: kind, inputType: type))
        case "image", "reset", "button", "file":
            return nil
        default: kind = .text
        }
        return .field(
            HTMLFormField(
                name: name, value: value ?? "", kind: kind, inputType: type, id: attributes.value("id"),
                autocomplete: attributes.value("autocomplete").map { HTMLWhitespace.strip($0).lowercased() },
                label: attributes.value("aria-label") ?? attributes.value("placeholder")))
    }

    /// A select's entry: its selected option, or its first enabled option when none is
    /// selected and it is a drop-down (§4.10.7 "selectedness setting algorithm"); nothing
    /// without options.
    private mutating func selectEnded(_ select: SelectInProgress) {
        let values = select.options.map { $0.value ?? $0.label }
        guard !values.isEmpty else { return }
        let selected = select.options.firstIndex { $0.selected } ?? 0
        let field = HTMLFormField(name: select.name, value: values[selected], kind: .select, options: values)
        for slot in select.slots { forms[slot.form].controls[slot.control] = .field(field) }
    }

    /// A control is disabled by its own attribute or by a disabled `<fieldset>` between it and
    /// the nearest form.
    private func isDisabled(_ attributes: Attributes) -> Bool {
        if attributes.has("disabled") { return true }
        for element in stack.reversed() {
            if element.isForm { return false }
            if element.disablesControls { return true }
        }
        return false
    }

    // MARK: - Result

    private mutating func finish() -> Page? {
        guard rootSeen else { return nil }
        // libxml2 closes what is open at the end of the input; this is only a safeguard.
        while !stack.isEmpty { elementEnded() }
        return Page(
            title: title,
            forms: forms.map { form in
                HTMLForm(
                    method: form.method, action: form.action,
                    encodingType: form.encodingType, id: form.id, name: form.name,
                    controls: form.controls.compactMap { $0.map(labelled) },
                    hasSubmitHandler: form.hasSubmitHandler)
            },
            errorMessages: errorSlots.compactMap { $0 },
            text: bodySeen ? bodyText : rootText, scriptCount: scriptCount)
    }

    /// A field with the text of the `<label for>` that names its id, which wins over the
    /// `aria-label` or placeholder it was read with.
    private func labelled(_ control: HTMLForm.Control) -> HTMLForm.Control {
        guard case .field(var field) = control, let id = field.id, let text = labels[id] else {
            return control
        }
        field.label = text
        return .field(field)
    }

    // MARK: - Names

    /// The element name, lowercased (libxml2's HTML parser already lowercases ASCII names).
    private static func lowercasedName(_ name: UnsafePointer<xmlChar>) -> String {
        let string = String(cString: name)
        return string.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
            ? string.lowercased() : string
    }

    /// What the reader does with an element, looked up once per start tag.
    private struct ElementTraits {
        enum Kind {
            case other, title, body, form, fieldset, input, button, select, textarea, option, script, label
        }
        var kind = Kind.other
        /// Text inside is not visible: `<script>`, `<style>`, `<template>`, `<noscript>`, `<head>`.
        var isHidden = false
        /// Phrasing content that adds no space around its text (HTML §3.2.5.2.5).
        var isInline = false
    }

    private static let elementTraits: [String: ElementTraits] = {
        var traits: [String: ElementTraits] = [:]
        for name in ["style", "template", "noscript", "head"] {
            traits[name] = ElementTraits(isHidden: true)
        }
        traits["script"] = ElementTraits(kind: .script, isHidden: true)
        for name in [
            "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "mark",
            "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var",
        ] {
            traits[name] = ElementTraits(isInline: true)
        }
        let kinds: [String: ElementTraits.Kind] = [
            "title": .title, "body": .body, "form": .form, "fieldset": .fieldset, "input": .input,
            "button": .button, "select": .select, "textarea": .textarea, "option": .option,
        ]
        for (name, kind) in kinds { traits[name] = ElementTraits(kind: kind) }
        traits["label"] = ElementTraits(kind: .label, isInline: true)
        return traits
    }()
}

/// An element's attributes as libxml2's SAX start event gives them: name, value, name, value,
/// …, then `NULL`. Values have entities decoded; a boolean attribute (`checked`) has no value.
private struct Attributes {
    let list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    /// The value of an attribute (names compared case-insensitively); `""` for one without a
    /// value, `nil` when absent.
    func value(_ wanted: StaticString) -> String? {
        guard let list else { return nil }
        var index = 0
        while let name = list[index] {
            if xmlStrcasecmp(name, wanted.utf8Start) == 0 {
                return list[index + 1].map { String(cString: $0) } ?? ""
            }
            index += 2
        }
        return nil
    }

    func has(_ wanted: StaticString) -> Bool { value(wanted) != nil }

    /// Whether the element looks like an error message, as the `webkit` engine's page reader
    /// finds them: `role="alert"`, an `aria-live` region (not `off`), or a `class` or `id`
    /// containing "error" or "alert", ignoring ASCII case.
    var looksLikeAnError: Bool {
        guard let list else { return false }
        var index = 0
        while let name = list[index] {
            if let value = list[index + 1] {
                if xmlStrcasecmp(name, ("role" as StaticString).utf8Start) == 0 {
                    if xmlStrcasecmp(value, ("alert" as StaticString).utf8Start) == 0 { return true }
                } else if xmlStrcasecmp(name, ("aria-live" as StaticString).utf8Start) == 0 {
                    if xmlStrcasecmp(value, ("off" as StaticString).utf8Start) != 0 { return true }
                } else if xmlStrcasecmp(name, ("class" as StaticString).utf8Start) == 0
                    || xmlStrcasecmp(name, ("id" as StaticString).utf8Start) == 0
                {
                    if Self.namesAnError(value) { return true }
                }
            }
            index += 2
        }
        return false
    }

    /// Whether a NUL-terminated value contains "error" or "alert" in any case.
    private static func namesAnError(_ value: UnsafePointer<xmlChar>) -> Bool {
        let lowered = String(cString: value).lowercased()
        return lowered.range(of: "error", options: .literal) != nil
            || lowered.range(of: "alert", options: .literal) != nil
    }
}

/// ASCII whitespace handling from the HTML Living Standard (§2.3.3 "strip and collapse"):
/// ASCII whitespace is U+0009, U+000A, U+000C, U+000D and U+0020, code points rather than
/// grapheme clusters, so the text is read as UTF-8 bytes (every one of them is a single byte,
/// and no byte of a multi-byte sequence is below 0x80).
enum HTMLWhitespace {
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    /// Strips leading and trailing ASCII whitespace and collapses runs into one space.
    static func collapse(_ utf8: some Collection<UInt8>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var pendingSpace = false
        for byte in utf8 {
            if isWhitespace(byte) {
                pendingSpace = !bytes.isEmpty
                continue
            }
            if pendingSpace {
                bytes.append(0x20)
                pendingSpace = false
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Strips leading and trailing ASCII whitespace from bytes, without copying them.
    static func strip(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var bytes = bytes
        while let first = bytes.first, isWhitespace(first) { bytes.removeFirst() }
        while let last = bytes.last, isWhitespace(last) { bytes.removeLast() }
        return bytes
    }

    /// Strips leading and trailing ASCII whitespace only.
    static func strip(_ text: String) -> String {
        String(Substring(strip(Substring(text).utf8)))
    }
}
