#if os(Linux)
    import CMalloc
    import Glibc
    import Testing

    @testable import SignInSimCLI

    /// `serve` holds glibc's mmap threshold: a big block freed no longer moves it.
    @Suite struct HeapThresholdsTests {
        @Test("after holdAtDefaults, a freed 8 MiB block leaves 256 KiB blocks to mmap")
        func freedBigBlockDoesNotRaiseTheThreshold() throws {
            #expect(HeapThresholds.holdAtDefaults())
            // Dynamic, glibc would now raise its threshold to 8 MiB and serve the blocks below
            // from the heap: no new mmapped blocks.
            let big = try #require(malloc(8 << 20))
            memset(big, 1, 8 << 20)
            free(big)
            let before = mallinfo2().hblks
            var blocks: [UnsafeMutableRawPointer] = []
            for _ in 0..<16 { if let block = malloc(256 << 10) { blocks.append(block) } }
            let after = mallinfo2().hblks
            for block in blocks { free(block) }
            #expect(blocks.count == 16)
            // Other tests running at the same time may free a mapped block or two meanwhile.
            #expect(after >= before + 12, "mmapped blocks \(before) → \(after)")
        }
    }
#endif
