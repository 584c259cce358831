import Foundation
import Testing

@testable import WebAuthSession

@Suite("HTMLPageReader")
struct HTMLPageReaderTests {
    /// Form actions resolve as Foundation's RFC 3986 §5.2 resolution says: root-relative paths
    /// with and without dot segments, escapes, network-path, relative and absolute references.
    @Test("a form action resolves as Foundation resolves it")
    func actions() throws {
        let bases = [
            "https://x.test/u/login?x=1", "https://X.Test:8443/a/b?c#d", "http://u:p@127.0.0.1:5000/p",
            "https://x.test", "https://x.test?q", "https://x.test#f", "com.example.app://cb/x",
        ]
        let references = [
            "/u/login", "/u/login?a=b&c=d#f", "/", "/a//b", "/a:b@c/d;e=f", "/x?y=/../z", "/~user/(x)!*'",
            "/a.b/c..d/.e", "/a/./b", "/a/../b", "/..", "/a%20b", "//other.test/x", "x/y", "https://o.test/",
        ]
        for base in bases {
            for reference in references {
                let foundation = try #require(URL(string: reference, relativeTo: URL(string: base)))
                #expect(
                    HTMLPageReader.resolve(reference, against: base) == foundation.absoluteString,
                    "\(reference) against \(base)")
            }
        }
        // Through the page: white space around the action is stripped, dot segments removed.
        #expect(HTMLPageReader.resolve(" /u/../v ", against: bases[0]) == "https://x.test/v")
        #expect(HTMLPageReader.resolve("/u/login", against: bases[0]) == "https://x.test/u/login")
        #expect(HTMLPageReader.resolve(nil, against: bases[0]) == bases[0])
    }
}
