import Errors
import JSON
import Scenario
import Testing

/// Every value of every closed set a scenario names is checked where it is written: a misspelt
/// one is refused at its line with the name it was most likely meant to be.
///
/// The places are not listed here: they are found by walking the scenario's JSON Schema, which
/// `ScenarioSchema` makes from the declarations the loader reads with (`StepCatalog`, the
/// header's shape), and the values come from the types (`ScenarioSchema.closedSetNames`). A
/// read that goes back to plain text lets its misspelling through, and this test fails.
@Suite struct ClosedSetTests {
    /// A place in a scenario where a closed set's value is written.
    struct Place: CustomStringConvertible {
        /// Where, as a path of keys (`steps[].signIn.prompt`).
        var path: String
        /// The values the set holds.
        var names: [String]
        /// The scenario document with `value` written at the place.
        var document: @Sendable (String) -> JSONValue

        var description: String { path }
    }

    /// Walks the schema's `$defs`, building for each closed-set place the smallest scenario that
    /// writes a value there.
    struct SchemaWalker {
        let definitions: [String: JSONValue]
        let closedSets: [String: [String]]

        init() {
            let document = ScenarioSchema.document.objectValue ?? [:]
            definitions = document["$defs"]?.objectValue ?? [:]
            closedSets = ScenarioSchema.closedSetNames
        }

        /// The places in `schema`; `build` puts the value found into the enclosing document.
        func places(
            in schema: JSONValue, path: String, seen: Set<String>,
            build: @escaping @Sendable (JSONValue) -> JSONValue
        ) -> [Place] {
            guard case .object(let members) = schema else { return [] }
            if let reference = members["$ref"]?.stringValue {
                let name = String(reference.split(separator: "/").last ?? "")
                if let names = closedSets[name] {
                    return [Place(path: path, names: names, document: { build(.string($0)) })]
                }
                guard !seen.contains(name), let inner = definitions[name] else { return [] }
                return places(in: inner, path: path, seen: seen.union([name]), build: build)
            }
            if case .array(let values)? = members["enum"] {
                let names = values.compactMap(\.stringValue).filter { !$0.isEmpty }
                guard !names.isEmpty else { return [] }
                return [Place(path: path, names: names, document: { build(.string($0)) })]
            }
            var found: [Place] = []
            for key in ["anyOf", "oneOf"] {
                for alternative in members[key]?.arrayValue ?? [] {
                    found += places(in: alternative, path: path, seen: seen, build: build)
                }
            }
            if let items = members["items"] {
                let others = (members["minItems"]?.int64Value).map { max(0, Int($0) - 1) } ?? 0
                let filler = example(items, seen: seen)
                found += places(in: items, path: path + "[]", seen: seen) { value in
                    build(.array([value] + Array(repeating: filler ?? .null, count: others)))
                }
            }
            if case .object(let properties)? = members["properties"] {
                let required = members["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
                for (key, inner) in properties.sorted(by: { $0.key < $1.key }) {
                    var siblings: [String: JSONValue] = [:]
                    for name in required where name != key {
                        if let schema = properties[name], let value = example(schema, seen: seen) {
                            siblings[name] = value
                        }
                    }
                    let frozen = siblings
                    found += places(in: inner, path: path + "." + key, seen: seen) { value in
                        var object = frozen
                        object[key] = value
                        return build(.object(object))
                    }
                }
            }
            return found
        }

        /// The smallest value `schema` admits, for keys a place needs beside it.
        func example(_ schema: JSONValue, seen: Set<String>) -> JSONValue? {
            guard case .object(let members) = schema else { return nil }
            if let constant = members["const"] { return constant }
            if let reference = members["$ref"]?.stringValue {
                let name = String(reference.split(separator: "/").last ?? "")
                if let first = closedSets[name]?.first(where: { !$0.isEmpty }) { return .string(first) }
                guard !seen.contains(name), let inner = definitions[name] else { return nil }
                return example(inner, seen: seen.union([name]))
            }
            if let first = members["enum"]?.arrayValue?.first { return first }
            for key in ["anyOf", "oneOf"] {
                for alternative in members[key]?.arrayValue ?? [] {
                    if let value = example(alternative, seen: seen) { return value }
                }
            }
            switch members["type"]?.stringValue {
            case "string": return "x"
            case "integer": return .int(members["minimum"]?.int64Value.map { max($0, 1) } ?? 1)
            case "boolean": return true
            case "array":
                guard let items = members["items"], let item = example(items, seen: seen) else { return nil }
                return .array([item])
            case "object":
                var object: [String: JSONValue] = [:]
                let properties = members["properties"]?.objectValue ?? [:]
                for name in members["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                    guard let inner = properties[name], let value = example(inner, seen: seen) else {
                        return nil
                    }
                    object[name] = value
                }
                return .object(object)
            default: return nil
            }
        }

        /// Every place a scenario writes a closed set's value.
        var scenarioPlaces: [Place] {
            guard let scenario = definitions["scenario"] else { return [] }
            return places(in: scenario, path: "", seen: ["scenario"], build: { $0 })
        }
    }

    /// A misspelling of `name` that is no value of `names` and whose nearest value is `name`.
    static func misspelling(of name: String, among names: [String]) -> String? {
        let characters = Array(name)
        var candidates: [String] = []
        for index in characters.indices.dropLast() where characters[index] != characters[index + 1] {
            var swapped = characters
            swapped.swapAt(index, index + 1)
            candidates.append(String(swapped))
        }
        for index in characters.indices {
            var dropped = characters
            dropped.remove(at: index)
            candidates.append(String(dropped))
            var doubled = characters
            doubled.insert(characters[index], at: index)
            candidates.append(String(doubled))
        }
        return candidates.first { candidate in
            !candidate.isEmpty && !names.contains(candidate)
                && NearMiss.suggestion(for: candidate, among: names) == name
        }
    }

    static func problems(_ document: JSONValue) -> (text: String, problems: [ScenarioError]) {
        let text = ScenarioYAML.render(document)
        do {
            _ = try ScenarioLoader.parse(Array(text.utf8), file: "closed.yaml")
            return (text, [])
        } catch {
            return (text, error.problems)
        }
    }

    @Test("the schema's closed sets are found in the header and in the steps")
    func placesAreFound() {
        let paths = Set(SchemaWalker().scenarioPlaces.map(\.path))
        for expected in [
            ".profile", ".browser", ".apps[].browser", ".apps[].prompt", ".issuer.prompt",
            ".apps[].client_auth_method", ".issuer.client_assertion_audience", ".steps[].signIn.prompt",
            ".steps[].signIn.consent", ".steps[].signIn.cancel", ".steps[].signIn.error",
            ".steps[].issuer.fault", ".steps[].expect.app_phase", ".steps[].expect.sheet",
            ".steps[].expect.session", ".steps[].wait.sheet", ".steps[].signInWithApple.scopes[]",
            ".steps[].getCredentialState.state", ".steps[].appleCredential.state",
            ".steps[].expect.requests.endpoint", ".steps[].issuer.rotate_keys",
        ] {
            #expect(paths.contains(expected), "no closed set found at \(expected)")
        }
    }

    @Test("every definition of the schema that lists values is a closed set with its names")
    func everyEnumIsAClosedSet() {
        let walker = SchemaWalker()
        for (name, schema) in walker.definitions where Self.hasEnum(schema) {
            #expect(walker.closedSets[name] != nil, "$defs/\(name) lists values but is not in closedSetNames")
        }
    }

    /// Whether a definition is a list of values: an `enum`, or one among its alternatives (a
    /// closed set that may also be a `${VAR}` reference).
    static func hasEnum(_ schema: JSONValue) -> Bool {
        guard case .object(let members) = schema else { return false }
        if members["enum"] != nil { return true }
        return ["anyOf", "oneOf"].contains { key in
            (members[key]?.arrayValue ?? []).contains { $0.objectValue?["enum"] != nil }
        }
    }

    @Test("a misspelt value of every closed set is refused at its line, with the value it was meant to be")
    func misspeltValuesAreRefused() {
        let places = SchemaWalker().scenarioPlaces
        #expect(places.count > 30)
        for place in places {
            for name in place.names where !name.isEmpty {
                guard let misspelt = Self.misspelling(of: name, among: place.names) else {
                    Issue.record("no misspelling of \(name) at \(place) is nearest to it")
                    continue
                }
                let (text, found) = Self.problems(place.document(misspelt))
                let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                    $0.contains(misspelt)
                }.map { $0 + 1 }
                let refused = found.contains { problem in
                    problem.message.contains("\"\(misspelt)\"")
                        && problem.message.contains("did you mean \"\(name)\"?")
                        && problem.location.line == line
                }
                #expect(refused, "\(place): \(misspelt) for \(name)\n\(text)\(found.map(\.description))")
                // The value itself is read without a word about it.
                let (_, clean) = Self.problems(place.document(name))
                #expect(
                    !clean.contains {
                        $0.message.contains("has no \"\(name)\"") || $0.message.contains("did you mean")
                    },
                    "\(place): \(name) \(clean.map(\.description))")
            }
        }
    }
}
