import COpenSSL

/// One PEM block (RFC 7468): its label and the DER bytes of its body.
struct PEMBlock {
    let label: String
    let der: [UInt8]
}

/// Textual encoding of DER structures (RFC 7468), read and written by libcrypto's PEM codec
/// (`PEM_read_bio`, `PEM_write_bio`); this type only decides which blocks are acceptable.
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
        var bytes = Array(text.utf8)
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { buffer throws(CryptoError) -> [PEMBlock] in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(size)) else {
                throw CryptoError(.invalidInput, "cannot read the PEM text (out of memory)")
            }
            defer { BIO_free(bio) }
            var blocks: [PEMBlock] = []
            while true {
                var name: UnsafeMutablePointer<CChar>?
                var header: UnsafeMutablePointer<CChar>?
                var data: UnsafeMutablePointer<UInt8>?
                var length = 0
                let status = PEM_read_bio(bio, &name, &header, &data, &length)
                defer {
                    sis_openssl_free(name)
                    sis_openssl_free(header)
                    sis_openssl_free(data)
                }
                guard status == 1, let name else {
                    let reason = ERR_GET_REASON(ERR_peek_last_error())
                    ERR_clear_error()
                    // Running out of blocks ends the text; anything else is a broken block.
                    if reason == PEM_R_NO_START_LINE { return blocks }
                    throw CryptoError(
                        .invalidPEM, "a PEM block is malformed (truncated, mislabelled or not base64)")
                }
                let label = String(cString: name)
                if let header, header.pointee != 0 {
                    // RFC 1421 headers: "Proc-Type: 4,ENCRYPTED" and "DEK-Info" mark a passphrase-protected key.
                    throw CryptoError(
                        .unsupported,
                        "PEM headers (such as Proc-Type/DEK-Info of an encrypted key) are not supported")
                }
                guard let data, length > 0 else {
                    throw CryptoError(.invalidPEM, "PEM block '\(label)' has an empty body")
                }
                blocks.append(
                    PEMBlock(label: label, der: Array(UnsafeBufferPointer(start: data, count: length))))
            }
        }
    }

    /// PEM text for `der`, base64 in lines of 64 characters, ending with a newline.
    static func encode(_ der: [UInt8], label: String) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { fatalError("BIO_new failed: out of memory") }
        defer { BIO_free(bio) }
        let written = der.withUnsafeBufferPointer { body in
            PEM_write_bio(bio, label, "", body.baseAddress, body.count)
        }
        guard written > 0 else { fatalError("PEM_write_bio failed: out of memory") }
        var text: UnsafeMutablePointer<CChar>?
        let count = sis_bio_get_mem_data(bio, &text)
        return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
