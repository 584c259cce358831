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
            var blocks: [UnsafeMutableRawPointer] = []
            for _ in 0..<16 { if let block = malloc(256 << 10) { blocks.append(block) } }
            // Each block itself says whether it is mmapped: glibc sets IS_MMAPPED (2) in the size
            // word just before it. The process-wide count (`mallinfo2().hblks`) also moved with
            // whatever other tests allocated and freed meanwhile. A block may still come from
            // free heap memory that other tests' threads left in the arena (the threshold only
            // decides how the heap grows): with the threshold raised none would be mapped, held
            // nearly all.
            let mapped = blocks.filter {
                $0.load(fromByteOffset: -MemoryLayout<Int>.size, as: UInt.self) & 2 != 0
            }
            for block in blocks { free(block) }
            #expect(blocks.count == 16)
            #expect(mapped.count >= 12, "\(mapped.count) of 16 blocks of 256 KiB are mmapped")
        }
    }
#endif
