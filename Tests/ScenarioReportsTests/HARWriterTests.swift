import Foundation
import JSON
import Scenario
import ScenarioReports
import TestSupport
import Testing

@Suite("HAR writer")
struct HARWriterTests {
    private func document(
        _ exchanges: [RecordedExchange] = Fixtures.exchanges, redaction: Redaction = .default
    ) throws -> JSONValue {
        try JSONValue.parse(
            HARWriter.render(exchanges, creator: "signinsim", version: "1.0.0", redaction: redaction))
    }

    /// The entries with nothing hidden, so that their fields read as recorded.
    private func entries(_ exchanges: [RecordedExchange] = Fixtures.exchanges) throws -> [JSONValue] {
        try #require(try document(exchanges, redaction: .disabled)["log"]?["entries"]?.arrayValue)
    }

    /// The whole capture, redacted by default, matches the checked-in copy.
    @Test("matches the golden capture")
    func matchesGolden() throws {
        try GoldenFile(named: "capture.har").check(
            HARWriter.render(Fixtures.exchanges, creator: "signinsim", version: "1.0.0"))
    }

    /// The log carries the HAR version, the creator and one entry per exchange, in order.
    @Test("log, creator and entries")
    func log() throws {
        let log = try #require(try document()["log"])
        #expect(log["version"] == "1.2")
        #expect(log["creator"] == ["name": "signinsim", "version": "1.0.0"])
        #expect(log["pages"] == [])
        #expect(
            log["entries"]?.arrayValue?.map { $0["_source"] } == [
                "device", "device", "device", "issuer", "device", "apple",
            ])
    }

    /// `startedDateTime` is ISO 8601 in UTC with milliseconds, from the virtual clock.
    @Test("start times in ISO 8601")
    func startTimes() throws {
        let entries = try entries()
        #expect(entries[0]["startedDateTime"] == "2024-05-01T12:34:56.789Z")
        #expect(entries[1]["startedDateTime"] == "2024-05-01T12:34:57.000Z")
        let early = RecordedExchange(
            source: .device, startedAtMilliseconds: -1, method: "GET", url: "http://a/")
        #expect(try self.entries([early])[0]["startedDateTime"] == "1969-12-31T23:59:59.999Z")
    }

    /// The request: decoded query, cookies from `Cookie`, headers in order, HTTP/1.1, sizes.
    @Test("request fields")
    func request() throws {
        let request = try #require(try entries()[0]["request"])
        #expect(request["method"] == "GET")
        #expect(request["url"] == .string(Fixtures.authorizeURL))
        #expect(request["httpVersion"] == "HTTP/1.1")
        #expect(request["headersSize"] == -1)
        #expect(request["bodySize"] == 0)
        #expect(request["postData"] == nil)
        #expect(
            request["cookies"] == [["name": "did", "value": "d-1"], ["name": "theme", "value": "dark"]])
        let query = try #require(request["queryString"]?.arrayValue)
        #expect(query.count == 7)
        #expect(query[2] == ["name": "redirect_uri", "value": "com.example.app://auth/callback"])
        #expect(query[3] == ["name": "scope", "value": "openid profile email"])
        #expect(request["headers"]?.arrayValue?.first == ["name": "User-Agent", "value": "SignInSim/1.0"])
    }

    /// A form body has its text and decoded params; a JSON body its text.
    @Test("post data")
    func postData() throws {
        let entries = try entries()
        let form = try #require(entries[1]["request"]?["postData"])
        #expect(form["mimeType"] == "application/x-www-form-urlencoded")
        #expect(form["params"]?.arrayValue?.first == ["name": "username", "value": "alice@example.com"])
        #expect(form["text"]?.stringValue?.hasPrefix("username=alice%40example.com&") == true)
        let json = try #require(entries[3]["request"]?["postData"])
        #expect(json["mimeType"] == "application/json")
        #expect(json["params"] == nil)
    }

    /// The response: status and reason, cookies with their attributes, redirect target, content.
    @Test("response fields")
    func response() throws {
        let entries = try entries()
        let response = try #require(entries[0]["response"])
        #expect(response["status"] == 302)
        #expect(response["statusText"] == "Found")
        #expect(response["redirectURL"] == "/u/login?state=af0ifjsldkj")
        #expect(
            response["cookies"]
                == [
                    [
                        "name": "session", "value": "abc123", "path": "/", "domain": "issuer.example",
                        "httpOnly": true, "secure": true,
                    ],
                    [
                        "name": "did", "value": "d-1", "path": "/", "expires": "2015-10-21T07:28:00.000Z",
                        "secure": true,
                    ],
                    ["name": "short", "value": "1", "expires": "2024-05-01T12:35:56.789Z"],
                ])
        let token = try #require(entries[2]["response"])
        #expect(token["redirectURL"] == "")
        #expect(token["content"]?["mimeType"] == "application/json")
        #expect(token["content"]?["size"] == .int(Int64(Fixtures.exchanges[2].responseBody.count)))
        #expect(token["content"]?["encoding"] == nil)
    }

    /// A body that is not UTF-8 is written as base64 and says so.
    @Test("binary bodies as base64")
    func binaryBody() throws {
        let content = try #require(try entries()[4]["response"]?["content"])
        #expect(content["encoding"] == "base64")
        #expect(content["text"] == "iVBORw0KGgoA//4=")
        let encoded = try #require(content["text"]?.stringValue)
        let decoded = try #require(Data(base64Encoded: encoded))
        #expect([UInt8](decoded) == Fixtures.exchanges[4].responseBody)
        #expect(content["size"] == 11)
    }

    /// An exchange without a response has status 0, empty content and its error in `_error`.
    @Test("transport errors")
    func transportError() throws {
        let entries = try entries()
        let failed = entries[5]
        #expect(failed["_error"] == "offline: the device has no network")
        #expect(failed["response"]?["status"] == 0)
        #expect(failed["response"]?["content"] == ["size": 0, "mimeType": "x-unknown"])
        #expect(entries[0]["_error"] == nil)
    }

    /// Only the whole time is known: it is the wait, the unknown phases are -1.
    @Test("timings")
    func timings() throws {
        let entry = try entries()[0]
        #expect(entry["time"] == .double(12.346))
        #expect(
            entry["timings"]
                == [
                    "blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 12.346,
                    "receive": 0,
                ])
        #expect(entry["cache"] == [:])
    }
}
