import Foundation

// SwiftPM links an executable target's entry point as `main`, so the target has one, and it
// hands over to libFuzzer's driver (`LLVMFuzzerRunDriver`, libFuzzer's own `main` in all but
// name). libFuzzer's runtime is linked only under `-sanitize=fuzzer`: without it this symbol is
// undefined, which is why the target joins the package only when `SIGNINSIM_FUZZ=1` is set.

@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argumentCount = CommandLine.argc
var arguments = CommandLine.unsafeArgv
exit(
    runFuzzerDriver(&argumentCount, &arguments) { data, count in
        fuzzerTestOneInput(UnsafeRawPointer(data) ?? UnsafeRawPointer(bitPattern: 1).unsafelyUnwrapped, count)
    })
