import HTTPCore
import JSON
import TestSupport
import Testing

@testable import Issuer

@Suite("Request log bounds")
struct RequestLogTests {
    static func entry(_ url: String, body: String? = nil) -> RequestLogEntry {
        var request = HTTPRequest(method: body == nil ? .get : .post, url: url)
        if let body {
            request.body = Array(body.utf8)
            request.headers["Content-Type"] = "application/x-www-form-urlencoded"
        }
        return RequestLogEntry(request, status: 400, time: 0, durationMilliseconds: 1)
    }

    /// Past the entry cap the oldest entries go first.
    @Test("entry cap, oldest first")
    func entryCap() {
        var log = RequestLog(capacity: 5, byteBudget: 1 << 20)
        for index in 1...12 { log.append(Self.entry("/p\(index)")) }
        #expect(log.count == 5)
        #expect(log.entries.map(\.sequence) == Array(8...12))
        #expect(log.entries.map(\.logged.path) == (8...12).map { "/p\($0)" })
    }

    /// Past the byte budget the oldest entries go first, however few there are.
    @Test("byte budget, oldest first")
    func byteBudget() {
        let body = "grant_type=password&filler=" + String(repeating: "x", count: 4000)
        let cost = Self.entry("/oauth/token", body: body).cost
        var log = RequestLog(capacity: 10_000, byteBudget: 3 * cost + cost / 2)
        for _ in 1...50 {
            log.append(Self.entry("/oauth/token", body: body))
            #expect(log.bytes <= log.byteBudget)
        }
        #expect(log.count == 3)
        #expect(log.entries.map(\.sequence) == [48, 49, 50])
        #expect(log.bytes == 3 * cost)
    }

    /// A request longer than `maximumParameterBytes` is cut: the short parameters whole, the one
    /// at the limit cut, the rest left out; the entry says it was cut and how long it was.
    @Test("a long request is cut")
    func cut() {
        let huge = String(repeating: "y", count: 64 << 10)
        let body = "grant_type=refresh_token&client_id=app&password=secret&huge=\(huge)&other=\(huge)"
        let entry = Self.entry("http://issuer.test/oauth/token?q=1", body: body)
        #expect(entry.cost < RequestLogEntry.maximumParameterBytes + 1024)
        let logged = entry.logged
        #expect(logged.truncated)
        #expect(logged.originalLength == "http://issuer.test/oauth/token?q=1".utf8.count + body.utf8.count)
        #expect(logged.path == "/oauth/token")
        #expect(logged.parameters["grant_type"] == "refresh_token")
        #expect(logged.parameters["client_id"] == "app")
        #expect(logged.parameters["password"] == "[redacted]")
        #expect(logged.parameters["q"] == "1")
        // "huge" is a byte shorter than "other": it is cut, and "other" left out.
        let kept = logged.parameters["huge"] ?? ""
        #expect(!kept.isEmpty && kept.allSatisfy { $0 == "y" })
        #expect(logged.parameters["other"] == nil)
        let bytes = logged.parameters.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        #expect(bytes <= RequestLogEntry.maximumParameterBytes)
        #expect(logged.json["truncated"] == true)
        #expect(logged.json["original_length"]?.int64Value == Int64(logged.originalLength ?? 0))

        // A long body that is not a form or JSON is left out, and the entry says so.
        let opaque = Self.entry("/oauth/token", body: "%zz" + huge).logged
        #expect(opaque.truncated && opaque.parameters.isEmpty)

        // A short request is not marked.
        let short = Self.entry("/oauth/token", body: "grant_type=password").logged
        #expect(!short.truncated && short.json["truncated"] == nil)
    }

    /// Cutting never splits a character's UTF-8 bytes, nor a name.
    @Test("cuts between characters")
    func cutBoundary() {
        #expect("aé€😀".utf8Prefix(3) == "aé")
        #expect("aé€😀".utf8Prefix(5) == "aé")
        #expect("aé€😀".utf8Prefix(6) == "aé€")
        #expect("abc".utf8Prefix(10) == "abc")
        let (kept, complete) = RequestLogEntry.cut(
            ["a": "1", String(repeating: "n", count: 20): "v"], to: 10)
        #expect(kept == ["a": "1"] && !complete)
    }

    /// The probe of issue 27, smaller: 64 KiB refused POSTs. Each costs the log at most about 9 KiB, the
    /// log stays within its byte budget with the oldest dropped first, and reading it over HTTP
    /// answers a bounded body.
    @Test("long bodies keep the log bounded")
    func probe() async throws {
        var limits = IssuerLimits()
        limits.requestLogBytes = 32 << 10
        try await withIssuer(.inProcess, limits: limits) { fixture in
            let huge = String(repeating: "z", count: 64 << 10)
            for _ in 0..<12 {
                let response = try await fixture.postForm(
                    "/oauth/token", ["grant_type": "password", "client_id": "x", "filler": huge])
                #expect(response.status >= 400)
            }
            let (count, bytes, sequences) = fixture.issuer.recentRequests.withLock {
                ($0.count, $0.bytes, $0.entries.map(\.sequence))
            }
            #expect(bytes <= 32 << 10)
            #expect(count >= 3 && count < 12)
            #expect(sequences == Array((13 - count)...12), "the newest kept, the oldest dropped")
            let read = try await fixture.get("/_admin/requests")
            #expect(read.body.count < 64 << 10)
            let first = try read.jsonBody()["requests"]?.arrayValue?.first
            #expect(first?["truncated"] == true)
            #expect(first?["parameters"]?["grant_type"] == "password")
            #expect((first?["original_length"]?.int64Value ?? 0) > 64 << 10)
        }
    }
}
