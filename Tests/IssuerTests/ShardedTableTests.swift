import Testing

@testable import Issuer

/// The sharded table behaves as the dictionary it stands in for.
@Suite struct ShardedTableTests {
    struct Record: Equatable, Sendable {
        var count: Int
        var tags: [String]
    }

    @Test("insert, read, update in place and remove agree with a Dictionary")
    func agreesWithDictionary() {
        var table = ShardedTable<Int, Record>()
        var reference: [Int: Record] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<3_000, using: &generator)
            switch step % 4 {
            case 0, 1:
                table[key] = Record(count: step, tags: ["t\(step)"])
                reference[key] = Record(count: step, tags: ["t\(step)"])
            case 2:
                table[key]?.count += 1
                table[key]?.tags.append("u")
                reference[key]?.count += 1
                reference[key]?.tags.append("u")
            default:
                #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key))
            }
        }
        for key in 0..<3_000 { #expect(table[key] == reference[key], "key \(key)") }
        #expect(table.count == reference.count)
        table[7] = nil
        #expect(table[7] == nil)
    }
}
