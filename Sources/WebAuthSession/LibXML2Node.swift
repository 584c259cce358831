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

    /// Whether the element name is `lowercaseName`, compared as `name` would be but without
    /// building a String: pages are walked node by node, several times.
    func isNamed(_ lowercaseName: String) -> Bool {
        guard let name = pointer.pointee.name else { return lowercaseName.isEmpty }
        return lowercaseName.withCString {
            xmlStrcasecmp(name, UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self)) == 0
        }
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
        wanted.withCString { wantedName in
            attribute(named: UnsafeRawPointer(wantedName).assumingMemoryBound(to: xmlChar.self))
        }
    }

    private func attribute(named wanted: UnsafePointer<xmlChar>) -> String? {
        var attribute = pointer.pointee.properties
        while let current = attribute {
            if let name = current.pointee.name, xmlStrcasecmp(name, wanted) == 0 {
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
            guard node.isElement else { continue }
            let name = node.name
            guard !Self.hiddenElements.contains(name) else { continue }
            let isInline = Self.inlineElements.contains(name)
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

/// ASCII whitespace handling from the HTML Living Standard (§2.3.3 "strip and collapse"):
/// ASCII whitespace is U+0009, U+000A, U+000C, U+000D and U+0020, code points rather than
/// grapheme clusters, so the text is read as UTF-8 bytes (every one of them is a single byte,
/// and no byte of a multi-byte sequence is below 0x80).
enum HTMLWhitespace {
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    /// Strips leading and trailing ASCII whitespace and collapses runs into one space.
    static func collapse(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
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

    /// Strips leading and trailing ASCII whitespace only.
    static func strip(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
            let last = utf8.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(text[first...last])
    }
}
