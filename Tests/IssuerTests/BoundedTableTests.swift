import Testing

@testable import Issuer

@Suite("Bounded table")
struct BoundedTableTests {
    /// Past the capacity the oldest insertion goes first; replacing a value keeps its age, and
    /// removing one makes room without forgetting anything else.
    @Test("forgets the oldest first")
    func oldestFirst() {
        var table = BoundedTable<String, Int>(capacity: 3)
        table["a"] = 1
        table["b"] = 2
        table["c"] = 3
        table["a"] = 10
        table["d"] = 4
        #expect(table.keysOldestFirst == ["b", "c", "d"])
        #expect(table["a"] == nil && table["d"] == 4)
        table["c"] = nil
        table["e"] = 5
        #expect(table.keysOldestFirst == ["b", "d", "e"])
        table["f"] = 6
        #expect(table.keysOldestFirst == ["d", "e", "f"])
        table.removeAll { $0 == 5 }
        #expect(table.keysOldestFirst == ["d", "f"])
        #expect(table.count == 2)
    }

    /// However many entries are inserted and removed, the table holds at most its capacity
    /// and its order queue stays proportional to it.
    @Test("stays bounded")
    func bounded() {
        var table = BoundedTable<Int, Int>(capacity: 100)
        for index in 0..<50_000 {
            table[index] = index
            if index % 3 == 0 { table[index - 1] = nil }
            #expect(table.count <= 100)
            #expect(table.queuedKeys <= 2 * 100 + 16)
        }
        #expect(table.keysOldestFirst.count == table.count)
        #expect(table.keysOldestFirst.last == 49_999)
    }
}
