import Testing
import YAML

@Suite("Anchors, aliases and merge keys")
struct YAMLAnchorTests {
    /// An alias copies the anchored node; the copy's own mark is the alias's, its insides keep theirs.
    @Test("aliases copy anchored nodes")
    func aliasesCopyAnchoredNodes() throws {
        let document = try root(
            """
            defaults: &defaults
              timeout: 30
              retries: 3
            name: &who alice
            first: *defaults
            owner: *who
            """)
        let defaults = try #require(document["defaults"])
        var first = try #require(document["first"])
        #expect(first.mark == mark(5, 8))
        #expect(first["timeout"]?.int == 30)
        #expect(first["timeout"]?.mark == mark(2, 12))
        #expect(document["owner"]?.string == "alice")
        #expect(document["owner"]?.mark == mark(6, 8))
        #expect(first != defaults)
        first.mark = defaults.mark
        #expect(first == defaults)
    }

    /// An anchor defined again later applies from there on.
    @Test("redefined anchor")
    func redefinedAnchor() throws {
        let document = try root("a: &x 1\nb: *x\nc: &x 2\nd: *x\n")
        #expect(document["b"]?.int == 1)
        #expect(document["d"]?.int == 2)
    }

    /// An alias without an anchor before it, or inside the node it names, is refused at the alias.
    @Test("unknown and recursive aliases")
    func unknownAndRecursiveAliases() throws {
        let unknown = try #require(failure { _ = try YAMLParser.parse("a: 1\nb: *nowhere\n") })
        #expect(unknown.code == .unknownAlias)
        #expect(unknown.mark == mark(2, 4))
        #expect(unknown.message.contains("*nowhere"))

        let later = try #require(failure { _ = try YAMLParser.parse("a: *x\nb: &x 1\n") })
        #expect(later.code == .unknownAlias)

        let recursive = try #require(failure { _ = try YAMLParser.parse("a: &loop\n  - *loop\n") })
        #expect(recursive.code == .unknownAlias)
        #expect(recursive.mark == mark(2, 5))
        #expect(recursive.message.contains("recursive"))
    }

    /// `<<` merges a mapping in place; keys written in the mapping win over merged ones.
    @Test("merge key")
    func mergeKey() throws {
        let document = try root(
            """
            base: &base
              timeout: 30
              retries: 3
            job:
              name: nightly
              <<: *base
              retries: 5
            """)
        let job = try #require(document["job"]?.mapping)
        #expect(job.map { $0.key.scalar?.value } == ["name", "timeout", "retries"])
        #expect(document["job"]?["retries"]?.int == 5)
        #expect(document["job"]?["timeout"]?.mark == mark(2, 12))
    }

    /// A sequence of merged mappings: an earlier one wins over a later one.
    @Test("merge of several mappings")
    func mergeOfSeveralMappings() throws {
        let document = try root(
            """
            - &a {x: 1, y: 1}
            - &b {y: 2, z: 2}
            - <<: [*a, *b]
              w: 0
            """)
        let merged = try #require(document[2])
        #expect(merged.mapping?.map { $0.key.scalar?.value } == ["x", "y", "z", "w"])
        #expect(merged["y"]?.int == 1)
        #expect(merged["z"]?.int == 2)
    }

    /// A quoted `"<<"` is an ordinary key, `!!merge <<` is a merge key, and a merge of a scalar is refused.
    @Test("merge key edge cases")
    func mergeKeyEdgeCases() throws {
        #expect(try root("\"<<\": plain").mapping?.first?.value.string == "plain")
        #expect(try root("m: &m {a: 1}\nn:\n  !!merge <<: *m\n")["n"]?["a"]?.int == 1)
        #expect(failure { _ = try YAMLParser.parse("!!merge x: 1") }?.code == .invalidTaggedValue)
        let scalar = try #require(failure { _ = try YAMLParser.parse("a:\n  <<: 5\n") })
        #expect(scalar.code == .invalidMerge)
        #expect(scalar.mark == mark(2, 7))
        let mixed = try #require(failure { _ = try YAMLParser.parse("m: &m {a: 1}\nn:\n  <<: [*m, [1]]\n") })
        #expect(mixed.code == .invalidMerge)
        #expect(mixed.mark == mark(3, 12))
        let twice = try #require(
            failure { _ = try YAMLParser.parse("m: &m {a: 1}\nn:\n  <<: *m\n  <<: *m\n") })
        #expect(twice.code == .duplicateKey)
        #expect(twice.mark == mark(4, 3))
    }
}
