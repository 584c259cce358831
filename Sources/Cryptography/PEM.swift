/// One PEM block (RFC 7468): its label and the DER bytes of its body.
struct PEMBlock {
    let label: String
    let der: [UInt8]
}

/// Textual encoding of DER structures (RFC 7468).
enum PEM {
    /// Largest PEM text accepted; an RSA-8192 private key is about 6.5 KiB.
    static let maximumSize = 64 * 1024

    /// Labels that never hold a key and may sit beside one (`openssl ecparam -genkey` writes this one).
    private static let ignoredLabels: Set<String> = ["EC PARAMETERS"]

    /// The single key block in `text`; text outside blocks is ignored, as RFC 7468 §2 allows.
    static func keyBlock(in text: String) throws(CryptoError) -> PEMBlock {
        let blocks = try parse(text).filter { !ignoredLabels.contains($0.label) }
        guard let block = blocks.first else {
            throw CryptoError(.invalidPEM, "no PEM key block (-----BEGIN …-----) found")
        }
        guard blocks.count == 1 else {
            let labels = blocks.map { "'\($0.label)'" }.joined(separator: ", ")
            throw CryptoError(.invalidPEM, "expected one PEM key block, found \(blocks.count): \(labels)")
        }
        return block
    }

    /// Every block in `text`, in order.
    static func parse(_ text: String) throws(CryptoError) -> [PEMBlock] {
        let size = text.utf8.count
        guard size <= maximumSize else {
            throw CryptoError(.invalidInput, "PEM text is \(size) bytes; the limit is \(maximumSize)")
        }
        var blocks: [PEMBlock] = []
        var open: (label: String, body: [UInt8])? = nil
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let line = trimmed(rawLine)
            if let (isBegin, label) = boundary(line) {
                switch (open, isBegin) {
                case (nil, true):
                    open = (label, [])
                case (nil, false):
                    throw CryptoError(.invalidPEM, "'-----END \(label)-----' without a BEGIN line")
                case (let current?, true):
                    throw CryptoError(
                        .invalidPEM, "'-----BEGIN \(label)-----' inside the '\(current.label)' block")
                case (let current?, false):
                    guard label == current.label else {
                        throw CryptoError(
                            .invalidPEM, "'-----END \(label)-----' closes a '\(current.label)' block")
                    }
                    blocks.append(try decodeBody(current.body, label: current.label))
                    open = nil
                }
            } else if var current = open {
                if line.contains(UInt8(ascii: ":")) {
                    // RFC 1421 headers: "Proc-Type: 4,ENCRYPTED" and "DEK-Info" mark a passphrase-protected key.
                    throw CryptoError(
                        .unsupported,
                        "PEM headers (such as Proc-Type/DEK-Info of an encrypted key) are not supported")
                }
                current.body.append(
                    contentsOf: line.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") })
                open = current
            }
        }
        if let current = open {
            throw CryptoError(.invalidPEM, "PEM block '\(current.label)' is truncated: no END line")
        }
        return blocks
    }

    /// PEM text for `der`, base64 in lines of 64 characters, ending with a newline.
    static func encode(_ der: [UInt8], label: String) -> String {
        let body = Base64.encode(der)
        var text = "-----BEGIN \(label)-----\n"
        var start = 0
        while start < body.count {
            let end = min(start + 64, body.count)
            text += String(decoding: body[start..<end], as: UTF8.self)
            text += "\n"
            start = end
        }
        text += "-----END \(label)-----\n"
        return text
    }

    private static func decodeBody(_ body: [UInt8], label: String) throws(CryptoError) -> PEMBlock {
        guard !body.isEmpty else {
            throw CryptoError(.invalidPEM, "PEM block '\(label)' has an empty body")
        }
        guard let der = Base64.decode(body) else {
            throw CryptoError(.invalidPEM, "PEM block '\(label)' body is not valid base64")
        }
        return PEMBlock(label: label, der: der)
    }

    /// `(true, label)` for a BEGIN line, `(false, label)` for an END line, nil otherwise.
    private static func boundary(_ line: ArraySlice<UInt8>) -> (Bool, String)? {
        let dashes = Array("-----".utf8)
        guard line.count > 10, line.starts(with: dashes), line.suffix(5).elementsEqual(dashes) else {
            return nil
        }
        let inner = line.dropFirst(5).dropLast(5)
        for (prefix, isBegin) in [("BEGIN ", true), ("END ", false)] where inner.starts(with: prefix.utf8) {
            let label = String(decoding: inner.dropFirst(prefix.utf8.count), as: UTF8.self)
            return (isBegin, label)
        }
        return nil
    }

    private static func trimmed(_ line: Substring.UTF8View.SubSequence) -> ArraySlice<UInt8> {
        var bytes = ArraySlice(line)
        let blank: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")]
        while let last = bytes.last, blank.contains(last) { bytes.removeLast() }
        while let first = bytes.first, blank.contains(first) { bytes.removeFirst() }
        return bytes
    }
}
