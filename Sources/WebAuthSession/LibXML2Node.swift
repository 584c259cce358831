import CLibXML2

/// Whether libxml2's global state is initialised; Swift runs the initialiser once, thread-safely.
private let libXML2Initialized: Bool = {
    xmlInitParser()
    return true
}()

/// A parsed libxml2 HTML tree, freed when the value goes away. Used only inside one call.
final class LibXML2HTMLTree {
    private let document: htmlDocPtr

    /// Parses with libxml2's HTML parser, recovering from broken markup, never fetching
    /// anything, never printing. `encoding` nil lets libxml2 read UTF-8 and honour a
    /// `<meta charset>`; `nil` comes back only when libxml2 gives up (empty input, unknown
    /// encoding).
    init?(bytes: [UInt8], encoding: String?, url: String) {
        _ = libXML2Initialized
        let options =
            Int32(HTML_PARSE_RECOVER.rawValue) | Int32(HTML_PARSE_NOERROR.rawValue)
            | Int32(HTML_PARSE_NOWARNING.rawValue) | Int32(HTML_PARSE_NONET.rawValue)
            | Int32(HTML_PARSE_COMPACT.rawValue)
        let parsed: htmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                htmlReadMemory(chars.baseAddress, Int32(chars.count), url, encoding, options)
            }
        }
        guard let parsed else { return nil }
        document = parsed
    }

    deinit { xmlFreeDoc(document) }

    /// The root element (`<html>`), if the tree has one.
    var root: LibXML2Node? { xmlDocGetRootElement(document).map(LibXML2Node.init) }
}

/// One node of a `LibXML2HTMLTree`, valid while the tree lives.
struct LibXML2Node {
    let pointer: xmlNodePtr

    var isElement: Bool { pointer.pointee.type == XML_ELEMENT_NODE }
    var isText: Bool {
        pointer.pointee.type == XML_TEXT_NODE || pointer.pointee.type == XML_CDATA_SECTION_NODE
    }

    /// The element name, lowercased (libxml2's HTML parser already lowercases known tags).
    var name: String {
        guard let name = pointer.pointee.name else { return "" }
        return String(cString: name).lowercased()
    }

    var firstChild: LibXML2Node? { pointer.pointee.children.map(LibXML2Node.init) }
    var nextSibling: LibXML2Node? { pointer.pointee.next.map(LibXML2Node.init) }
    var parent: LibXML2Node? {
        guard let parent = pointer.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else {
            return nil
        }
        return LibXML2Node(pointer: parent)
    }

    /// A text node's characters, entities already decoded by the parser.
    var textContent: String {
        guard let content = pointer.pointee.content else { return "" }
        return String(cString: content)
    }

    /// The value of an attribute (names compared case-insensitively), entities decoded; `nil`
    /// when absent. A boolean attribute without a value (`checked`) gives `""`.
    func attribute(_ wanted: String) -> String? {
        var attribute = pointer.pointee.properties
        while let current = attribute {
            if let name = current.pointee.name, String(cString: name).caseInsensitiveEquals(wanted) {
                var value = ""
                var child = current.pointee.children
                while let node = child {
                    if let content = node.pointee.content { value += String(cString: content) }
                    child = node.pointee.next
                }
                return value
            }
            attribute = current.pointee.next
        }
        return nil
    }

    func has(_ attribute: String) -> Bool { self.attribute(attribute) != nil }

    /// Every element below this one in document order, this one excluded, iteratively (a
    /// broken page can nest deeply).
    func descendants() -> [LibXML2Node] {
        var result: [LibXML2Node] = []
        var stack: [LibXML2Node] = []
        var child = firstChild
        while let node = child {
            stack.append(node)
            child = node.nextSibling
        }
        stack.reverse()
        while let node = stack.popLast() {
            guard node.isElement else { continue }
            result.append(node)
            var children: [LibXML2Node] = []
            var next = node.firstChild
            while let current = next {
                children.append(current)
                next = current.nextSibling
            }
            stack.append(contentsOf: children.reversed())
        }
        return result
    }

    /// The text a reader sees: every text node below, in order, without `<script>`, `<style>`
    /// and `<template>` content, a space around block elements, whitespace collapsed (HTML
    /// `innerText`, roughly).
    func visibleText() -> String {
        enum Item {
            case node(LibXML2Node)
            case space
        }
        var text = ""
        var stack: [Item] = [.node(self)]
        while let item = stack.popLast() {
            guard case .node(let node) = item else {
                text += " "
                continue
            }
            if node.isText {
                text += node.textContent
                continue
            }
            guard node.isElement, !Self.hiddenElements.contains(node.name) else { continue }
            let isInline = Self.inlineElements.contains(node.name)
            if !isInline { stack.append(.space) }
            var children: [LibXML2Node] = []
            var next = node.firstChild
            while let current = next {
                children.append(current)
                next = current.nextSibling
            }
            stack.append(contentsOf: children.reversed().map(Item.node))
            if !isInline { stack.append(.space) }
        }
        return HTMLWhitespace.collapse(text)
    }

    private static let hiddenElements: Set<String> = ["script", "style", "template", "noscript", "head"]
    private static let inlineElements: Set<String> = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "label", "mark",
        "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var",
    ]
}

/// ASCII whitespace handling from the HTML Living Standard (§2.3.3 "strip and collapse").
enum HTMLWhitespace {
    static func isWhitespace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\n" || character == "\r"
            || character == "\u{0C}" || character == "\r\n"
    }

    /// Strips leading and trailing ASCII whitespace and collapses runs into one space.
    static func collapse(_ text: String) -> String {
        text.split(whereSeparator: isWhitespace).joined(separator: " ")
    }

    /// Strips leading and trailing ASCII whitespace only.
    static func strip(_ text: String) -> String {
        var slice = Substring(text)
        while let first = slice.first, isWhitespace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isWhitespace(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
