import Foundation
import Testing

@testable import WebAuthSession

@Suite("HTMLPageReader")
struct HTMLPageReaderTests {
    /// The fast path for root-relative form actions gives what Foundation's RFC 3986 §5.2
    /// resolution gives, and leaves dot segments, escapes and other references to Foundation.
    @Test("a root-relative action resolves as Foundation resolves it")
    func plainAbsolutePaths() throws {
        let bases = [
            "https://x.test/u/login?x=1", "https://X.Test:8443/a/b?c#d", "http://u:p@127.0.0.1:5000/p",
            "https://x.test", "https://x.test?q", "https://x.test#f", "com.example.app://cb/x",
        ]
        let references = [
            "/u/login", "/u/login?a=b&c=d#f", "/", "/a//b", "/a:b@c/d;e=f", "/x?y=/../z", "/~user/(x)!*'",
            "/a.b/c..d/.e",
        ]
        for base in bases {
            for reference in references {
                let fast = try #require(HTMLPageReader.resolvePlainAbsolutePath(reference, against: base))
                let foundation = try #require(URL(string: reference, relativeTo: URL(string: base)))
                #expect(fast == foundation.absoluteString, "\(reference) against \(base)")
            }
        }
        for reference in ["/a/./b", "/a/../b", "/..", "/a%20b", "//other.test/x", "x/y", "https://o.test/"] {
            #expect(
                HTMLPageReader.resolvePlainAbsolutePath(reference, against: bases[0]) == nil, "\(reference)")
        }
        #expect(HTMLPageReader.resolvePlainAbsolutePath("/x", against: "mailto:a@b.test") == nil)
        // Through the page: the action of a form is resolved either way.
        #expect(HTMLPageReader.resolve(" /u/../v ", against: bases[0]) == "https://x.test/v")
        #expect(HTMLPageReader.resolve("/u/login", against: bases[0]) == "https://x.test/u/login")
    }
}
