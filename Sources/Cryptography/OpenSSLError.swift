import COpenSSL

/// Reading and clearing the thread's OpenSSL error queue.
enum OpenSSLError {
    /// The reason of the oldest queued error, if any; always leaves the queue empty.
    static func drain() -> String? {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return nil }
        if let reason = ERR_reason_error_string(code) {
            return String(cString: reason)
        }
        return "error code \(code)"
    }

    /// A `CryptoError` whose message ends with OpenSSL's reason; drains the queue.
    static func error(_ code: CryptoError.Code, _ message: String) -> CryptoError {
        if let reason = drain() {
            return CryptoError(code, "\(message) (OpenSSL: \(reason))")
        }
        return CryptoError(code, message)
    }
}
