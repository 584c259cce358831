// signinsim-webkit: the WebKitGTK engine of the sign-in sheet, run as a helper process so that a
// WebKit crash stays out of `signinsim`. It renders on an Xvfb of its own and does what the
// driver (Sources/WebKitSession) asks over standard input and output (Sources/WebKitHelperProtocol).
// Every GTK and WebKit call happens on this thread, the one that runs the GLib main loop.
import CWebKitGTK
import Foundation

/// Options: `--lifeline-fd N`, a pipe whose other end only the driver holds: when it reads end
/// of file, the driver is gone however it ended (SIGKILL included), and so is everything this
/// helper started.
var lifeline: Int32?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--lifeline-fd":
        guard let value = arguments.popFirst().flatMap(Int32.init) else { HelperExit.usage() }
        lifeline = value
    case "--version":
        print("signinsim-webkit wire \(HelperWireVersion.current)")
        exit(0)
    default:
        HelperExit.usage()
    }
}

// GTK on the X server started below, drawing with Cairo (no GPU under Xvfb), no
// accessibility bus: nothing here talks to a desktop session.
setenv("GDK_BACKEND", "x11", 1)
setenv("GSK_RENDERER", "cairo", 1)
setenv("NO_AT_BRIDGE", "1", 1)
setenv("GTK_A11Y", "none", 1)
setenv("WEBKIT_DISABLE_DMABUF_RENDERER", "1", 1)
unsetenv("WAYLAND_DISPLAY")
unsetenv("DBUS_SESSION_BUS_ADDRESS")

let display: XvfbDisplay
do {
    display = try XvfbDisplay.start()
} catch {
    HelperExit.fail("cannot start Xvfb: \(error)")
}
setenv("DISPLAY", display.name, 1)
if let lifeline {
    Lifeline.watch(fd: lifeline, onEnd: { display.stop() })
}

// A driver that went away must not kill the helper halfway through a write: the write fails,
// and the helper ends everything it started (`HelperHost.send`).
signal(SIGPIPE, SIG_IGN)
gtk_init()
let host = HelperHost(display: display)
host.run()
display.stop()
Lifeline.endGroup()
