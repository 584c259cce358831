import Testing
import YAML

@Suite("Typed accessors on nodes")
struct YAMLNodeAccessorTests {
    /// Accessors answer only for the type the scalar resolves to, and nil for the wrong kind of node.
    @Test("typed accessors")
    func typedAccessors() throws {
        let document = try root("port: 80\nratio: 0.5\nname: '80'\non: true\nlist: [a]\nnone: ~\n")
        #expect(document["port"]?.int == 80)
        #expect(document["port"]?.string == nil)
        #expect(document["port"]?.double == 80)
        #expect(document["ratio"]?.double == 0.5)
        #expect(document["ratio"]?.int == nil)
        #expect(document["name"]?.string == "80")
        #expect(document["name"]?.int == nil)
        #expect(document["on"]?.bool == true)
        #expect(document["list"]?.string == nil)
        #expect(document["list"]?.resolved == nil)
        #expect(document["list"]?["a"] == nil)
        #expect(document["list"]?[0]?.string == "a")
        #expect(document["list"]?[-1] == nil)
        #expect(document["none"]?.isNull == true)
        #expect(document["port"]?.isNull == false)
        #expect(document["missing"] == nil)
        #expect(document[0] == nil)
    }

    /// `typeDescription` names what a node is, for error messages of later layers.
    @Test("type descriptions")
    func typeDescriptions() throws {
        let document = try root("a: [1]\nb: {}\nc: ~\nd: true\ne: 1\nf: 1.5\ng: x\n")
        let descriptions = try #require(document.mapping).map(\.value.typeDescription)
        #expect(
            descriptions == [
                "a sequence", "a mapping", "null", "a boolean", "an integer", "a floating-point number",
                "a string",
            ])
    }

    /// A mapping looks keys up by their text, quoted or not, and gives the pair with its key's mark.
    @Test("mapping lookup")
    func mappingLookup() throws {
        guard case .mapping(let mapping) = try root("'quoted': 1\n2: two\n") else {
            Issue.record("expected a mapping")
            return
        }
        #expect(mapping["quoted"]?.int == 1)
        #expect(mapping["2"]?.string == "two")
        #expect(mapping.pair(forKey: "2")?.key.mark == mark(2, 1))
        #expect(mapping["absent"] == nil)
    }
}
