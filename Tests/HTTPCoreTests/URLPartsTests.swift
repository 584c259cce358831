import Foundation
import Testing

@testable import HTTPCore

@Suite("URLParts")
struct URLPartsTests {
    /// Every URL gives exactly URLComponents' parts, scheme and host lowercased, and strings it
    /// refuses stay refused: hand-picked shapes, then random ones from a small alphabet of
    /// delimiters.
    @Test("the parts are URLComponents'")
    func matchesFoundation() {
        let shapes = [
            "https://issuer.test/authorize?client_id=a&state=b", "com.example.app://auth/callback?code=x#f",
            "com.example.app:/cb?code=x", "http://127.0.0.1:51234/callback", "HTTPS://Issuer.TEST:443/A?B#C",
            "https://h", "https://h?", "https://h#", "https://h/?#", "https://h:0/", "https://h:65535/",
            "https://h:65536/", "https://h:/", "https://h:abc/", "https://:80/", "https:///x",
            "mailto:a@b.test",
            "urn:a:b:c", "x://h/a//b", "x:/a//b", "x://h/#a#b", "x://h/a%20b", "x://h/a%2", "x://h/%zz",
            "x://h/?q=%3A%2f#%00", "x://u@h/", "x://[::1]:8/",
            "x://h/a b", "x://h/<>", "1x://h/", "https://h:0080/", "https://h:00000/", "https://h..x/",
            "https://h.:8/", "https://1.2.3.4/", "https://h:8:9/",
            "x-y.z+w://h-1.example/p;q=1?a=(b)!*'$,@:/?#f/?:@",
            "x:", "x:?q", "x:#f", "x://h.-/", "x://-h/", "x://h_1/", "https://h/\u{E9}",
        ]
        for url in shapes {
            #expect(Self.parts(url) == Self.componentsParts(url), "\(url)")
        }
        let alphabet = Array("aF1.-:/?#@%%_~!$&'()*+,;=[] ")
        var seed: UInt64 = 0x5EED
        for _ in 0..<20_000 {
            var tail = ""
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var bits = seed
            for _ in 0..<Int(bits % 12) {
                bits = bits &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                tail.append(alphabet[Int((bits >> 33) % UInt64(alphabet.count))])
            }
            for url in ["https://h" + tail, "x:" + tail, "x://" + tail] {
                #expect(Self.parts(url) == Self.componentsParts(url), "\(url)")
            }
        }
    }

    /// URLParts' reading of `url`, one entry per part.
    private static func parts(_ url: String) -> [String?]? {
        URLParts(url).map {
            [$0.scheme, $0.host, $0.port.map { String($0) }, $0.path, $0.query, $0.fragment]
        }
    }

    /// URLComponents' reading of `url`, scheme and host lowercased as URLParts promises.
    private static func componentsParts(_ url: String) -> [String?]? {
        guard let components = URLComponents(string: url), let scheme = components.scheme else { return nil }
        return [
            scheme.lowercased(), components.percentEncodedHost.map { $0.lowercased() },
            components.port.map { String($0) }, components.percentEncodedPath, components.percentEncodedQuery,
            components.percentEncodedFragment,
        ]
    }
}
