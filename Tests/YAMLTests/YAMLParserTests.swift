import Testing
import YAML

@Suite("Parsing documents into nodes")
struct YAMLParserTests {
    /// Nested block mappings and sequences keep document order and the marks of deep keys.
    @Test("nested structure and marks")
    func nestedStructureAndMarks() throws {
        let document = try root(
            """
            server:
              name: issuer
              listen:
                - host: 127.0.0.1
                  port: 8080
                - host: "::1"
                  port: 8081
            zeta: last
            alpha: first
            """)
        #expect(document.mark == mark(1, 1))
        let keys = try #require(document.mapping).map { $0.key.scalar?.value }
        #expect(keys == ["server", "zeta", "alpha"])

        let server = try #require(document["server"])
        #expect(server.mark == mark(2, 3))
        let listen = try #require(server["listen"])
        #expect(listen.mark == mark(4, 5))
        #expect(listen.sequence?.count == 2)
        let second = try #require(listen[1])
        #expect(second.mark == mark(6, 7))
        #expect(second["host"]?.string == "::1")
        #expect(second["host"]?.mark == mark(6, 13))
        let portPair = try #require(second.mapping?.last)
        #expect(portPair.key.mark == mark(7, 7))
        #expect(portPair.value.mark == mark(7, 13))
        #expect(portPair.value.int == 8081)
        #expect(listen[2] == nil)
    }

    /// Flow mappings and sequences parse with flow style and per-item marks.
    @Test("flow style")
    func flowStyle() throws {
        let document = try root("{a: 1, b: [x, y], c: {}}")
        guard case .mapping(let mapping) = document else {
            Issue.record("expected a mapping, got \(document.typeDescription)")
            return
        }
        #expect(mapping.style == .flow)
        #expect(document["a"]?.int == 1)
        #expect(document["a"]?.mark == mark(1, 5))
        guard case .sequence(let list)? = document["b"] else {
            Issue.record("b is not a sequence")
            return
        }
        #expect(list.style == .flow)
        #expect(list.mark == mark(1, 11))
        #expect(list.items.map(\.string) == ["x", "y"])
        #expect(list.items[1].mark == mark(1, 15))
        #expect(document["c"]?.mapping?.isEmpty == true)
    }

    /// Comments are ignored, whole-line or trailing, but a `#` inside quotes is text.
    @Test("comments")
    func comments() throws {
        let document = try root(
            """
            # a scenario
            a: 1  # trailing comment
            # between keys
            b: "# not a comment"
            c: x#y
            """)
        #expect(document.mapping?.count == 3)
        #expect(document["a"]?.int == 1)
        #expect(document["b"]?.string == "# not a comment")
        #expect(document["c"]?.string == "x#y")
        #expect(document.mark == mark(2, 1))
    }

    /// Text with no document gives nil; an explicit empty document gives a null scalar.
    @Test("empty documents")
    func emptyDocuments() throws {
        #expect(try YAMLParser.parse("") == nil)
        #expect(try YAMLParser.parse("# only a comment\n\n") == nil)
        #expect(try YAMLParser.parse("  \n\n") == nil)
        #expect(try YAMLParser.parseAll("") == [])
        let explicit = try root("---\n")
        #expect(explicit.isNull)
        #expect(try root("--- # nothing\n...\n").isNull)
    }

    /// `parse` refuses a second document, naming the line where it starts.
    @Test("multiple documents refused by parse")
    func multipleDocumentsRefused() throws {
        let error = try #require(
            failure { _ = try YAMLParser.parse("a: 1\nb: 2\n---\nc: 3\n", fileName: "one.yaml") })
        #expect(error.code == .multipleDocuments)
        #expect(error.mark == mark(3, 1))
        #expect(error.description.hasPrefix("one.yaml:3:1: error: "))
    }

    /// `parseAll` returns every document in order, each with its own marks and anchors.
    @Test("parseAll")
    func parseAllDocuments() throws {
        let documents = try YAMLParser.parseAll("a: &x 1\n---\n- 2\n- 3\n--- plain\n")
        #expect(documents.count == 3)
        #expect(documents[0]["a"]?.int == 1)
        #expect(documents[1].sequence?.compactMap(\.int) == [2, 3])
        #expect(documents[1].mark == mark(3, 1))
        #expect(documents[2].string == "plain")
        #expect(documents[2].mark == mark(5, 5))
        // Anchors do not carry over from one document to the next.
        let error = try #require(failure { _ = try YAMLParser.parseAll("a: &x 1\n---\nb: *x\n") })
        #expect(error.code == .unknownAlias)
        #expect(error.mark == mark(3, 4))
    }

    /// Bytes from a file parse like the same text, and a byte-order mark does not shift columns.
    @Test("bytes and byte-order mark")
    func bytesAndByteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("key: é value\nnext: 2\n".utf8)
        let document = try #require(try YAMLParser.parse(bytes))
        #expect(document["key"]?.string == "é value")
        #expect(document["key"]?.mark == mark(1, 6))
        #expect(document["next"]?.mark == mark(2, 7))
    }

    /// Marks count characters, not bytes, after multi-byte text.
    @Test("columns count characters")
    func columnsCountCharacters() throws {
        let document = try root("naïve: «ok»\nemoji: [😀, x]\n")
        #expect(document["naïve"]?.string == "«ok»")
        #expect(document["emoji"]?[1]?.mark == mark(2, 12))
    }

    /// A document shaped like a scenario file parses with the marks an error report would need.
    @Test("scenario-like document")
    func scenarioLikeDocument() throws {
        let text = """
            # Sign-in scenario: authorization code with PKCE, then one refresh.
            name: pkce-happy-path
            description: >
              The app signs in through the system browser
              and refreshes its tokens once.
            issuer: https://issuer.test/tenants/acme
            client:
              id: mobile-app
              redirect: com.example.app://callback
              scopes: [openid, profile, offline_access]
            device: &phone
              clock_skew_seconds: -30
              browser: system
            steps:
              - action: start_sign_in
                with:
                  prompt: login
                  login_hint: "alice@example.com"
              - action: advance_clock
                seconds: 3600
              - action: refresh
                device: *phone
                expect:
                  status: 200
                  claims:
                    sub: alice
                    email_verified: true
            """
        let scenario = try root(text, fileName: "scenarios/pkce.yaml")
        #expect(scenario["name"]?.string == "pkce-happy-path")
        #expect(
            scenario["description"]?.string
                == "The app signs in through the system browser and refreshes its tokens once.\n")
        #expect(
            scenario["client"]?["scopes"]?.sequence?.compactMap(\.string) == [
                "openid", "profile", "offline_access",
            ])
        #expect(scenario["device"]?["clock_skew_seconds"]?.int == -30)

        let steps = try #require(scenario["steps"]?.sequence)
        #expect(steps.count == 3)
        #expect(steps.map(\.mark) == [mark(15, 5), mark(19, 5), mark(21, 5)])
        #expect(steps.compactMap { $0["action"]?.string } == ["start_sign_in", "advance_clock", "refresh"])
        #expect(steps[0]["with"]?["login_hint"]?.mark == mark(18, 19))
        #expect(steps[1]["seconds"]?.int == 3600)

        let refresh = steps[2]
        #expect(refresh["device"]?.mark == mark(22, 13))
        #expect(refresh["device"]?["browser"]?.string == "system")
        let claims = try #require(refresh["expect"]?["claims"])
        #expect(claims.mark == mark(26, 9))
        let verified = try #require(claims.mapping?.last)
        #expect(verified.key.scalar?.value == "email_verified")
        #expect(verified.key.mark == mark(27, 9))
        #expect(verified.value.mark == mark(27, 25))
        #expect(verified.value.bool == true)
        #expect(refresh["expect"]?["status"]?.int == 200)
    }
}
