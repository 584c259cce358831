#if os(Linux)
    import CMalloc
    import Glibc
    import Testing

    @testable import SignInSimCLI

    /// `serve` holds glibc's mmap threshold: a big block freed no longer moves it.
    @Suite struct HeapThresholdsTests {
        @Test("after holdAtDefaults, a freed 30 MiB block leaves 24 MiB blocks to mmap")
        func freedBigBlockDoesNotRaiseTheThreshold() throws {
            #expect(HeapThresholds.holdAtDefaults())
            // Dynamic, glibc would now raise its threshold to 30 MiB and serve the blocks below
            // from the heap: none of them mmapped.
            let big = try #require(malloc(30 << 20))
            memset(big, 1, 30 << 20)
            free(big)
            // A block below the threshold can still come from free memory already in the heap
            // (the threshold only decides how the heap grows), and other tests' threads free
            // memory into the same arenas. Blocks of 24 MiB keep that out: a heap keeps that
            // much free only above a trim threshold of 48 MiB, which only a dynamic raise by a
            // freed block of 24 MiB or more before the hold could have set. Untouched, they
            // cost no memory.
            var blocks: [UnsafeMutableRawPointer] = []
            for _ in 0..<4 { if let block = malloc(24 << 20) { blocks.append(block) } }
            // Each block says itself whether it is mmapped: glibc sets IS_MMAPPED (2) in the
            // size word just before it.
            let mapped = blocks.filter {
                $0.load(fromByteOffset: -MemoryLayout<Int>.size, as: UInt.self) & 2 != 0
            }
            for block in blocks { free(block) }
            #expect(blocks.count == 4)
            #expect(mapped.count >= 3, "\(mapped.count) of 4 blocks of 24 MiB are mmapped")
        }
    }
#endif
