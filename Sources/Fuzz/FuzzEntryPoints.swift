import Foundation

// libFuzzer's entry points (https://llvm.org/docs/LibFuzzer.html), under their C names: the
// driver that main.swift starts calls `LLVMFuzzerInitialize` once, then the callback, which
// is `LLVMFuzzerTestOneInput`, for every input.

/// The target chosen by `SIGNINSIM_FUZZ_TARGET`, read once by `LLVMFuzzerInitialize`.
nonisolated(unsafe) private var selectedTarget: FuzzTarget?

/// Reads `SIGNINSIM_FUZZ_TARGET` and prepares that target (an issuer, keys) before the first input.
///
/// `SIGNINSIM_FUZZ_LIST=1` prints the target names and exits; `SIGNINSIM_FUZZ_MAKE_SEEDS=DIR`
/// writes the seed corpora the project's own code makes (tokens, keys, pages, requests) under
/// `DIR/<target>/` and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    if environment["SIGNINSIM_FUZZ_LIST"] == "1" {
        for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
        exit(0)
    }
    if let directory = environment["SIGNINSIM_FUZZ_MAKE_SEEDS"] {
        do {
            try SeedMaker.write(to: directory)
        } catch {
            FileHandle.standardError.write(Data("cannot write the seeds: \(error)\n".utf8))
            exit(1)
        }
        exit(0)
    }
    guard let name = environment["SIGNINSIM_FUZZ_TARGET"] else {
        FileHandle.standardError.write(
            Data("set SIGNINSIM_FUZZ_TARGET to one of: \(FuzzTarget.names)\n".utf8))
        exit(2)
    }
    guard let target = FuzzTarget.named(name) else {
        FileHandle.standardError.write(
            Data("no fuzz target \"\(name)\"; the targets are: \(FuzzTarget.names)\n".utf8))
        exit(2)
    }
    target.prepare()
    selectedTarget = target
    return 0
}

/// Runs one input through the selected target. A finding is a trap (`fatalError`, a failed
/// precondition, a sanitizer report); inputs that are merely refused return normally.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let target = selectedTarget else { fatalError("LLVMFuzzerInitialize did not run") }
    let input = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    target.run(input)
    return 0
}
