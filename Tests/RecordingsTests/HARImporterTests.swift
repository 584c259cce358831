import Foundation
import JSON
import Recordings
import Scenario
import ScenarioReports
import Testing

/// HAR captures as real tools write them, signinsim's own read back without loss, and files
/// that are not HAR refused with their place.
@Suite struct HARImporterTests {
    func capture(_ text: String) throws(HARError) -> HARCapture {
        try HARImporter.parse(Array(text.utf8), file: "capture.har")
    }

    @Test("Chrome: text bodies, cookies and sizes of -1, timestamps with an offset")
    func chrome() throws {
        let capture = try capture(
            #"""
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
              "pages": [{"id": "page_1"}],
              "entries": [{
                "_initiator": {"type": "script"}, "pageref": "page_1",
                "startedDateTime": "2026-12-03T09:00:00.250+02:00", "time": 41.5,
                "request": {"method": "POST", "url": "https://issuer.example/oauth/token", "httpVersion": "http/2.0",
                  "headers": [{"name": "content-type", "value": "application/x-www-form-urlencoded"}],
                  "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 42,
                  "postData": {"mimeType": "application/x-www-form-urlencoded",
                    "text": "grant_type=refresh_token&refresh_token=r1"}},
                "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
                  "headers": [{"name": "content-type", "value": "application/json"}], "cookies": [],
                  "content": {"size": -1, "mimeType": "application/json", "text": "{\"access_token\":\"a\"}"},
                  "redirectURL": "", "headersSize": -1, "bodySize": -1, "_transferSize": 300},
                "cache": {}, "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 40, "receive": 1.5}
              }]}}
            """#)
        #expect(capture.creator == "WebInspector 537.36")
        #expect(capture.skipped.isEmpty)
        let exchange = try #require(capture.exchanges.first)
        #expect(exchange.method == "POST")
        #expect(exchange.startedAtMilliseconds == 1_796_281_200_250)  // 07:00:00.250Z
        #expect(
            String(decoding: exchange.requestBody, as: UTF8.self)
                == "grant_type=refresh_token&refresh_token=r1")
        #expect(exchange.status == 200)
        #expect(String(decoding: exchange.responseBody, as: UTF8.self) == #"{"access_token":"a"}"#)
        #expect(exchange.timeMilliseconds == 41.5)
    }

    @Test("mitmproxy and Charles: params instead of text, base64 bodies, missing members")
    func mitmproxyAndCharles() throws {
        let capture = try capture(
            #"""
            {"log": {"creator": {"name": "mitmproxy", "version": "11.0"}, "entries": [
              {"startedDateTime": "2026-12-03T07:00:01Z",
               "request": {"method": "post", "url": "https://issuer.example/oauth/token",
                 "postData": {"mimeType": "application/x-www-form-urlencoded",
                   "params": [{"name": "grant_type", "value": "authorization_code"}, {"name": "redirect_uri", "value": "com.example.app://cb"}]}},
               "response": {"status": 200, "content": {"mimeType": "application/octet-stream", "encoding": "base64", "text": "AAH/"}}},
              {"request": {"url": "https://issuer.example/.well-known/jwks.json"},
               "response": {"status": 200}}
            ]}}
            """#)
        #expect(capture.exchanges.count == 2)
        let first = capture.exchanges[0]
        #expect(first.method == "POST")
        #expect(
            String(decoding: first.requestBody, as: UTF8.self)
                == "grant_type=authorization_code&redirect_uri=com.example.app%3A%2F%2Fcb")
        #expect(first.responseBody == [0x00, 0x01, 0xFF])
        let second = capture.exchanges[1]
        #expect(second.method == "GET")
        #expect(second.startedAtMilliseconds == first.startedAtMilliseconds, "no timestamp: the previous one")
        #expect(second.responseBody.isEmpty)
        #expect(first.startedAtMilliseconds == 1_796_281_201_000, "a time without fractions")
    }

    @Test("signinsim's own HAR reads back as the exchanges it was written from")
    func roundTrip() throws {
        let exchanges = [
            RecordedExchange(
                source: .device, startedAtMilliseconds: 1_800_000_000_123, method: "POST",
                url: "http://127.0.0.1:8080/oauth/token?x=1",
                requestHeaders: [HeaderField("Content-Type", "application/x-www-form-urlencoded")],
                requestBody: Array("grant_type=refresh_token&refresh_token=abc".utf8), status: 200,
                responseHeaders: [HeaderField("Content-Type", "application/json")],
                responseBody: Array(#"{"access_token":"t"}"#.utf8), timeMilliseconds: 3),
            RecordedExchange(
                source: .apple, startedAtMilliseconds: 1_800_000_001_000, method: "GET",
                url: "http://127.0.0.1:8080/apple/auth/keys", status: 200, responseBody: [0xFF, 0x00, 0x80],
                timeMilliseconds: 1),
            RecordedExchange(
                source: .device, startedAtMilliseconds: 1_800_000_002_000, method: "GET",
                url: "http://127.0.0.1:8080/userinfo", error: "the device is offline"),
        ]
        let bytes = HARWriter.render(exchanges, creator: "signinsim", version: "test", redaction: .disabled)
        let capture = try HARImporter.parse(bytes, file: "own.har")
        #expect(capture.skipped.isEmpty)
        #expect(capture.creator == "signinsim test")
        #expect(capture.exchanges.count == exchanges.count)
        for (read, written) in zip(capture.exchanges, exchanges) {
            #expect(read.source == written.source)
            #expect(read.startedAtMilliseconds == written.startedAtMilliseconds)
            #expect(read.method == written.method)
            #expect(read.url == written.url)
            #expect(read.requestBody == written.requestBody)
            #expect(read.status == written.status)
            #expect(read.responseBody == written.responseBody)
            #expect(read.error == written.error)
            #expect(
                read.requestHeaders.contains(written.requestHeaders.first ?? HeaderField("", ""))
                    || written.requestHeaders.isEmpty)
        }
    }

    @Test("unusable entries are skipped with the reason, the rest kept")
    func skippedEntries() throws {
        let capture = try capture(
            #"""
            {"log": {"entries": [
              {"response": {"status": 200}},
              {"request": {"method": "GET"}},
              {"request": {"url": "https://i.example/a"}, "response": {"status": 200, "content": {"encoding": "gzip", "text": "x"}}},
              {"request": {"url": "https://i.example/b"}, "response": {"status": 200, "content": {"encoding": "base64", "text": "***"}}},
              {"request": {"url": "https://i.example/ok"}, "response": {"status": 204}}
            ]}}
            """#)
        #expect(capture.exchanges.map(\.url) == ["https://i.example/ok"])
        #expect(capture.skipped.map(\.index) == [0, 1, 2, 3])
        #expect(capture.skipped[0].reason == "no request")
        #expect(capture.skipped[1].reason == "the request has no url")
        #expect(capture.skipped[2].reason.contains("unknown encoding \"gzip\""))
        #expect(capture.skipped[3].reason.contains("does not decode"))
    }

    @Test(
        "files that are not HAR are refused with their place",
        arguments: [
            (#"{"log": {"entries": [{"request": "#, "not JSON", true),
            ("<html><body>Charles</body></html>", "not JSON", true),
            (#"{"entries": []}"#, "no \"log\" object", false),
            (#"{"log": {"version": "1.2"}}"#, "no \"entries\" list", false),
            ("", "not JSON", true),
        ])
    func notHAR(text: String, fragment: String, hasPlace: Bool) {
        do {
            _ = try capture(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.message.contains(fragment), "\(error)")
            #expect((error.line != nil) == hasPlace, "\(error)")
            #expect(error.description.hasPrefix("capture.har"))
        }
    }

    @Test("bytes that are not UTF-8 are refused at their line and column")
    func notUTF8() {
        var bytes =
            Array(#"{"log": {"entries": ["#.utf8) + [0x0A] + Array(#"  {"request": {"url": "https://x/"#.utf8)
        bytes += [0xC3, 0x28] + Array(#""}}]}}"#.utf8)
        do {
            _ = try HARImporter.parse(bytes, file: "latin1.har")
            Issue.record("accepted bytes that are not UTF-8")
        } catch {
            #expect(error.line == 2)
            #expect(error.column == 34)
            #expect(error.message.contains("not UTF-8"))
        }
    }

    @Test("a file that is missing, a folder or empty is refused with its name")
    func unreadableFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "har-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.har").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let cases = [
            (folder.appendingPathComponent("missing.har").path, "No such file"),
            (folder.path, "not a regular file"),
            (empty, "not JSON"),
        ]
        for (path, reason) in cases {
            do {
                _ = try HARImporter.load(path: path)
                Issue.record("read \(path)")
            } catch {
                #expect(error.file == path)
                #expect(error.message.contains(reason), "\(error)")
            }
        }
        let small = folder.appendingPathComponent("small.har").path
        _ = FileManager.default.createFile(
            atPath: small,
            contents: Data(#"{"log": {"entries": [{"request": {"url": "https://x/"}}]}}"#.utf8))
        #expect(try HARImporter.load(path: small).exchanges.count == 1)
    }
}
