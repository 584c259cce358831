extension String {
    /// The longest prefix of at most `limit` UTF-8 bytes that ends between two Unicode scalars,
    /// so that it is always valid text: `String(text.utf8.prefix(limit))` is `nil` when the cut
    /// falls inside a multi-byte character, and a request path cut that way once killed `serve`.
    public func utf8Prefix(_ limit: Int) -> String {
        let utf8 = self.utf8
        guard utf8.count > limit else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: Swift.max(0, limit))
        // Continuation bytes are 10xxxxxx (RFC 3629 §3): back up to the first byte of a scalar.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
