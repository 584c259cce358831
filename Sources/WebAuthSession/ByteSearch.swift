/// Substring search over UTF-8 bytes.
///
/// On Linux `String.contains` with a string argument is Foundation's, which bridges through
/// NSString and CFStringFind on every call; the page reader and the scripted user ask it on
/// every page. A literal byte search finds the same ASCII words.
enum ByteSearch {
    /// Whether `word` occurs in `bytes`. With `foldingASCIICase`, each byte of `bytes` is read
    /// in ASCII lowercase first, so `word` must be lowercase. An empty word occurs nowhere.
    static func contains(
        _ word: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>,
        foldingASCIICase: Bool = false
    ) -> Bool {
        guard !word.isEmpty, word.count <= bytes.count else { return false }
        for start in 0...(bytes.count - word.count)
        where word.indices.allSatisfy({
            (foldingASCIICase ? bytes[start + $0] | 0x20 : bytes[start + $0]) == word[$0]
        }) {
            return true
        }
        return false
    }

    /// Whether `word`'s UTF-8 occurs in `text`'s, byte for byte.
    static func contains(_ word: String, in text: String) -> Bool {
        var word = word
        var text = text
        return word.withUTF8 { word in text.withUTF8 { contains(word, in: $0) } }
    }
}
