import CYAML

/// Owns one libyaml parser and a copy of its input, and hands out its events one at a time.
///
/// The parser lives on the heap so that libyaml's pointers into it stay put, and `deinit` always
/// runs `yaml_parser_delete`, however parsing ends.
final class LibYAMLEventReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let fileName: String?
    private var parserInitialized = false

    /// The input bytes (valid for the reader's lifetime).
    let input: UnsafeBufferPointer<UInt8>

    init(_ bytes: some Collection<UInt8>, fileName: String?) throws(YAMLError) {
        self.fileName = fileName
        let count = bytes.count
        // libyaml asserts a non-null input pointer, so even empty input gets one byte of storage.
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(repeating: 0)
        _ = storage.initialize(from: bytes)
        input = UnsafeBufferPointer(rebasing: storage[..<count])
        parser = .allocate(capacity: 1)
        guard yaml_parser_initialize(parser) != 0 else {
            throw YAMLError(.outOfMemory, "libyaml could not set up a parser", fileName: fileName)
        }
        parserInitialized = true
        yaml_parser_set_input_string(parser, storage.baseAddress, count)
    }

    deinit {
        if parserInitialized { yaml_parser_delete(parser) }
        parser.deallocate()
        storage.deallocate()
    }

    /// The next event; after `.streamEnd` the caller must stop.
    func next() throws(YAMLError) -> YAMLEvent {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else { throw currentError() }
        defer { yaml_event_delete(&event) }
        let mark = YAMLMark(event.start_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", mark: mark)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let value = String(
                decoding: UnsafeBufferPointer(start: data.value, count: Int(data.length)), as: UTF8.self)
            let scalar = YAMLScalar(
                value, style: Self.style(data.style), tag: Self.string(data.tag), mark: mark)
            return .scalar(scalar, anchor: Self.string(data.anchor))
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return .sequenceStart(
                tag: Self.string(data.tag), anchor: Self.string(data.anchor),
                style: data.style == YAML_FLOW_SEQUENCE_STYLE ? .flow : .block, mark: mark)
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return .mappingStart(
                tag: Self.string(data.tag), anchor: Self.string(data.anchor),
                style: data.style == YAML_FLOW_MAPPING_STYLE ? .flow : .block, mark: mark)
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd
        default:
            // YAML_STREAM_END_EVENT, and YAML_NO_EVENT which libyaml gives only after the stream end.
            return .streamEnd
        }
    }

    /// libyaml's `problem`, `context` and marks as a `YAMLError`.
    private func currentError() -> YAMLError {
        let state = parser.pointee
        let problem = Self.string(state.problem) ?? "libyaml reported an error without a description"
        switch state.error {
        case YAML_MEMORY_ERROR:
            return YAMLError(.outOfMemory, "libyaml ran out of memory", fileName: fileName)
        case YAML_READER_ERROR:
            // Reader problems carry a byte offset instead of a mark.
            var message = problem
            if state.problem_value >= 0 {
                let hex = String(UInt32(state.problem_value), radix: 16, uppercase: true)
                message += " (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))"
            }
            let mark = TextPosition.mark(ofByteOffset: Int(state.problem_offset), in: input)
            return YAMLError(.syntax, message, fileName: fileName, mark: mark)
        default:
            let mark = personMark(state.problem_mark)
            var message = problem
            if let context = Self.string(state.context) {
                let contextMark = personMark(state.context_mark)
                if contextMark == mark {
                    message += " (\(context))"
                } else {
                    message += " (\(context) at line \(contextMark.line), column \(contextMark.column))"
                }
            }
            return YAMLError(.syntax, message, fileName: fileName, mark: mark)
        }
    }

    /// libyaml's mark, except at the end of the stream: libyaml puts that on a line of its own even
    /// when the text has no final line break, which would name a line the file does not have.
    private func personMark(_ mark: yaml_mark_t) -> YAMLMark {
        if mark.index >= TextPosition.scalarCount(of: input) {
            return TextPosition.mark(ofByteOffset: input.count, in: input)
        }
        return YAMLMark(mark)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLScalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }
}

extension YAMLMark {
    /// From libyaml's 0-based mark.
    fileprivate init(_ mark: yaml_mark_t) {
        self.init(line: Int(clamping: mark.line) + 1, column: Int(clamping: mark.column) + 1)
    }
}
