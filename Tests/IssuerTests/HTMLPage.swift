import Foundation
import FoundationXML
import HTTPCore

/// A page of the issuer read with libxml2 through FoundationXML: the pages are HTML5 that is
/// also well-formed XML, so a strict XML parse doubles as a check that nothing broke the markup.
struct HTMLPage: Sendable {
    struct ParseFailure: Error, CustomStringConvertible {
        var description: String
    }

    let title: String?
    let forms: [HTMLForm]
    /// The text of every element whose `class` is `error`.
    let errors: [String]
    /// The text of every `<li>`.
    let listItems: [String]
    /// The text of every `<strong>`.
    let strongTexts: [String]
    /// The whole body as sent.
    let source: String

    init(_ response: HTTPResponse) throws {
        guard let source = response.bodyText else { throw ParseFailure(description: "the page is not UTF-8") }
        let document: XMLDocument
        do {
            document = try XMLDocument(data: Data(response.body), options: [.nodeLoadExternalEntitiesNever])
        } catch {
            throw ParseFailure(description: "the page is not well-formed XML: \(error)\n\(source)")
        }
        func texts(_ xpath: String) throws -> [String] {
            try document.nodes(forXPath: xpath).map { $0.stringValue ?? "" }
        }
        self.source = source
        title = try texts("/html/head/title").first
        errors = try texts("//*[@class='error']")
        listItems = try texts("//li")
        strongTexts = try texts("//strong")
        forms = try document.nodes(forXPath: "//form").compactMap { $0 as? XMLElement }.map(HTMLForm.init)
    }

    /// The only form of the page.
    func form() throws -> HTMLForm {
        guard forms.count == 1 else {
            throw ParseFailure(description: "expected one form, found \(forms.count)\n\(source)")
        }
        return forms[0]
    }
}

/// A form as a browser sees it: where it goes, its inputs, and its submit buttons.
struct HTMLForm: Sendable {
    struct Input: Sendable {
        var name: String
        var type: String
        var value: String
    }

    struct Button: Sendable {
        var name: String?
        var value: String?
        var type: String
    }

    var method: String
    var action: String
    var inputs: [Input]
    var buttons: [Button]

    init(_ element: XMLElement) throws {
        func attribute(_ node: XMLElement, _ name: String) -> String? {
            node.attribute(forName: name)?.stringValue
        }
        method = attribute(element, "method") ?? "get"
        action = attribute(element, "action") ?? ""
        inputs = try element.nodes(forXPath: ".//input").compactMap { $0 as? XMLElement }.compactMap {
            input in
            guard let name = attribute(input, "name") else { return nil }
            return Input(
                name: name, type: attribute(input, "type") ?? "text", value: attribute(input, "value") ?? "")
        }
        buttons = try element.nodes(forXPath: ".//button").compactMap { $0 as? XMLElement }.map { button in
            Button(
                name: attribute(button, "name"), value: attribute(button, "value"),
                type: attribute(button, "type") ?? "submit")
        }
    }

    /// The hidden inputs by name.
    var hiddenFields: [String: String] {
        Dictionary(
            inputs.filter { $0.type == "hidden" }.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }
        )
    }

    func input(_ name: String) -> Input? { inputs.first { $0.name == name } }

    /// What a browser sends: every named input (with `values` typed over them), then the
    /// pressed button's name and value.
    func submission(_ values: [String: String] = [:], pressing buttonValue: String? = nil) -> FormParameters {
        var parameters = FormParameters()
        for input in inputs { parameters.append(input.name, values[input.name] ?? input.value) }
        if let buttonValue, let button = buttons.first(where: { $0.value == buttonValue }),
            let name = button.name
        {
            parameters.append(name, buttonValue)
        }
        return parameters
    }
}
