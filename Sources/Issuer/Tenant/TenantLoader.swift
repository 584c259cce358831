import JSON
public import WorldVocabulary
public import YAML

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads tenant files: YAML or JSON that adds to or overrides `Tenant.default` (the
/// "Tenant files" section of docs/issuer.md lists the keys).
///
/// Both formats become one marked node tree, so one decoder checks them and every refusal names
/// the file, the line and column, and the reason. JSON is read first by the strict JSON parser
/// (JSON's own rules: no duplicate members, no trailing commas) and then once more for the
/// position of each value, because `JSONValue` keeps none.
public enum TenantLoader {
    /// Largest tenant file accepted, in bytes.
    public static let maximumFileSize = 4 << 20

    /// Reads the tenant file at `path`; `.yaml` and `.yml` are YAML, `.json` is JSON.
    public static func load(path: String) throws(TenantError) -> Tenant {
        _ = try Format(fileName: path)
        let bytes = try readFile(path, limit: maximumFileSize, reportedAs: path)
        return try load(bytes: bytes, fileName: path)
    }

    /// Reads a tenant file's bytes; `fileName` picks the format, appears in errors, and anchors
    /// relative `jwks_file` paths.
    public static func load(bytes: [UInt8], fileName: String) throws(TenantError) -> Tenant {
        let format = try Format(fileName: fileName)
        let root = try parse(bytes, format: format, fileName: fileName)
        let decoder = TenantDecoder(fileName: fileName, directory: directory(of: fileName))
        return try decoder.tenant(from: root)
    }

    /// Reads a tenant document already parsed as YAML, such as the `tenant:` of a scenario;
    /// errors carry the node positions in `fileName`.
    public static func load(node: YAMLNode, fileName: String) throws(TenantError) -> Tenant {
        let decoder = TenantDecoder(fileName: fileName, directory: directory(of: fileName))
        return try decoder.tenant(from: node)
    }

    /// Reads a tenant document only to find its problems: a scenario's `tenant:`, checked with
    /// the rest of the scenario (the scenario format's `TenantCheck`).
    public static func check(node: YAMLNode, fileName: String) throws(TenantError) {
        _ = try load(node: node, fileName: fileName)
    }

    enum Format {
        case yaml
        case json

        init(fileName: String) throws(TenantError) {
            let lowered = fileName.lowercased()
            if lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml") {
                self = .yaml
            } else if lowered.hasSuffix(".json") {
                self = .json
            } else {
                throw TenantError(
                    fileName: fileName, message: "a tenant file's name must end in .yaml, .yml or .json")
            }
        }
    }

    /// The document's root node, or `nil` when the file holds nothing (empty, blank, comments).
    static func parse(_ bytes: [UInt8], format: Format, fileName: String) throws(TenantError) -> YAMLNode? {
        guard bytes.count <= maximumFileSize else {
            throw TenantError(
                fileName: fileName,
                message: "the file is \(bytes.count) bytes; the limit is \(maximumFileSize)")
        }
        try checkUTF8(bytes, fileName: fileName)
        switch format {
        case .yaml:
            do {
                return try YAMLParser.parse(bytes, fileName: fileName, maximumSize: maximumFileSize)
            } catch {
                throw TenantError(
                    fileName: fileName, line: error.mark?.line, column: error.mark?.column,
                    message: "invalid YAML: \(error.message)")
            }
        case .json:
            let bodyStart = TextPositions.hasByteOrderMark(bytes) ? 3 : 0
            if bytes[bodyStart...].allSatisfy(JSONPositionReader.isWhitespace) { return nil }
            do {
                _ = try JSONValue.parse(bytes, maximumSize: maximumFileSize)
            } catch {
                var line: Int?
                var column: Int?
                if let errorLine = error.line, let byteColumn = error.column {
                    line = errorLine
                    column = TextPositions.characterColumn(line: errorLine, byteColumn: byteColumn, in: bytes)
                }
                throw TenantError(
                    fileName: fileName, line: line, column: column, message: "invalid JSON: \(error.message)")
            }
            return try JSONPositionReader.tree(of: bytes, fileName: fileName)
        }
    }

    /// Refuses bytes that are not UTF-8 at the line and column of the first bad sequence.
    private static func checkUTF8(_ bytes: [UInt8], fileName: String) throws(TenantError) {
        guard let problem = TextPositions.firstInvalidUTF8(in: bytes) else { return }
        let byte = String(problem.byte, radix: 16, uppercase: true)
        throw TenantError(
            fileName: fileName, line: problem.line, column: problem.column,
            message: "the file is not UTF-8 text (a bad sequence starts with byte 0x\(byte))")
    }

    /// The folder part of a path, `""` for a bare file name.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return path[..<slash].isEmpty ? "/" : String(path[..<slash])
    }

    /// `path` as seen from `directory` (absolute paths stay as they are).
    static func resolve(_ path: String, relativeTo directory: String) -> String {
        if path.hasPrefix("/") || directory.isEmpty { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// Reads a whole regular file of at most `limit` bytes, with the system's reason on failure.
    static func readFile(_ path: String, limit: Int, reportedAs name: String) throws(TenantError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TenantError(fileName: name, message: "cannot open the file: \(systemReason(errno))")
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFDIR {
                throw TenantError(fileName: name, message: "cannot read the file: it is a directory")
            }
            if status.st_size > limit {
                throw TenantError(
                    fileName: name, message: "the file is \(status.st_size) bytes; the limit is \(limit)")
            }
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TenantError(fileName: name, message: "cannot read the file: \(systemReason(errno))")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit {
                throw TenantError(
                    fileName: name, message: "the file is larger than the limit of \(limit) bytes")
            }
        }
    }

    private static func systemReason(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// Line and column arithmetic over UTF-8 bytes, counting columns in characters (Unicode scalars)
/// as the YAML parser's marks do, so that both formats point the same way.
enum TextPositions {
    static func hasByteOrderMark(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// Where the first byte sequence that is not UTF-8 starts, if there is one.
    static func firstInvalidUTF8(in bytes: [UInt8]) -> (line: Int, column: Int, byte: UInt8)? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        var line = 1
        var column = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let isByteOrderMark = offset == 0 && encoded.count == 3 && hasByteOrderMark(bytes)
                offset += encoded.count
                if encoded.count == 1 && encoded.first == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if !isByteOrderMark {
                    column += 1
                }
            case .emptyInput:
                return nil
            case .error:
                return (line, column, bytes[offset])
            }
        }
    }

    /// The character column of a position given as a 1-based byte column on a 1-based line.
    static func characterColumn(line: Int, byteColumn: Int, in bytes: [UInt8]) -> Int {
        var start = 0
        var currentLine = 1
        while currentLine < line, let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            start = newline + 1
            currentLine += 1
        }
        let end = min(bytes.count, start + max(0, byteColumn - 1))
        // The byte order mark takes three bytes of line 1 but no column.
        if line == 1 && hasByteOrderMark(bytes) { start = min(3, end) }
        guard start <= end else { return max(1, byteColumn) }
        return 1 + bytes[start..<end].count { $0 & 0xC0 != 0x80 }
    }
}
