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

    @Test("a steady number of entries, replaced by new keys, keeps the same room")
    func steadyChurnDoesNotRatchet() {
        // A fleet's refresh tokens: 18,000 live, the oldest replaced by a new key each time.
        var table = ShardedTable<Int, Int>()
        let live = 18_000
        for key in 0..<live { table[key] = key }
        var roomAfterWarmUp = 0
        for key in live..<(live + 400_000) {
            table.removeValue(forKey: key - live)
            table[key] = key
            if key == 2 * live { roomAfterWarmUp = table.capacity }
        }
        #expect(table.count == live)
        // Without shrinking, each shard keeps the room of the most entries it ever held and
        // the total keeps rising; with it, the room stays within what the count needs.
        #expect(table.capacity <= roomAfterWarmUp + roomAfterWarmUp / 10)
        #expect(table.capacity < live * 2)
    }

    @Test("emptying the table gives its room back, whether by removeValue or by nil")
    func emptyingShrinks() {
        var table = ShardedTable<Int, Int>()
        for key in 0..<50_000 { table[key] = key }
        let full = table.capacity
        for key in 0..<25_000 { table.removeValue(forKey: key) }
        for key in 25_000..<49_990 { table[key] = nil }
        #expect(table.count == 10)
        #expect(table.capacity < full / 10)
        for key in 49_990..<50_000 { #expect(table[key] == key) }
    }
}
