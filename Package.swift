// swift-tools-version:6.0
//
// SignInSim: a headless simulator of mobile sign-in.
//
// Layers, bottom to top (dependencies point down only):
//   C bridges      COpenSSL, CTLS, CCurl, CMicroHTTPD, CYAML, CLibXML2, CMalloc (glibc's malloc.h),
//                  CWebKitGTK (the WebKit helper's only)
//   pure values    Errors, Locking, JSON, Clocks, Cryptography, JOSE, OAuthCore, HTTPCore, YAML,
//                  WorldVocabulary (what the engines and the scenarios share: the person's script,
//                  the sheet's outcomes, the issuer's faults, user updates and tenant errors)
//   files          AtomicFiles (a file replaced whole by rename: the keychain's, the reports')
//   engines        AppleID (simulated Sign in with Apple), Issuer (OpenID provider, in process
//                  or served; its Apple connection talks to AppleID)
//   models         SignInSDK (the app's SDK, ports only), Device (keychain, lifecycle, network)
//   IO adapters    HTTPClient (libcurl), HTTPServer (libmicrohttpd), WebAuthSession (the sheet, the
//                  person, the lite engine), WebKitSession (the webkit engine: drives the helper
//                  signinsim-webkit over WebKitHelperProtocol, proxies its requests)
//   scenarios      Scenario (format, results: values over the models and WorldVocabulary only, no
//                  engine or adapter), ScenarioRunner (drives a Simulator world),
//                  ScenarioReports (console, JSON, JUnit, HAR, redaction), Recordings (HAR captures
//                  read back, redacted with ScenarioReports' rules, replayed), Audit (signinsim audit:
//                  a native app's checks of any issuer, on a simulated phone)
//   product        SignInSimCLI (commands), signinsim (thin executable), signinsim-webkit (WebKitGTK
//                  in a process of its own)
//   fuzzing        signinsim-fuzz (libFuzzer targets, Sources/Fuzz): only with SIGNINSIM_FUZZ=1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// `scripts/sanitize thread` sets `SIGNINSIM_SANITIZE=thread`: the `Locking` module then builds
/// its `Mutex` on `pthread_mutex_t`, whose hand-overs ThreadSanitizer sees (Sources/Locking).
let lockingSettings: [SwiftSetting] =
    Context.environment["SIGNINSIM_SANITIZE"] == "thread" ? [.define("SIGNINSIM_TSAN_VISIBLE_LOCKS")] : []

/// The libFuzzer harness (`Sources/Fuzz`, product `signinsim-fuzz`) hands its `main` over to
/// libFuzzer's driver, whose runtime is linked only under `-sanitize=fuzzer`: in the normal
/// build the executable would not link. So the target joins the package only when
/// `SIGNINSIM_FUZZ=1` is set, as `scripts/fuzz` does (with its own scratch path, `.build/fuzz`).
/// See docs/reliability.md.
let fuzzing = Context.environment["SIGNINSIM_FUZZ"] == "1"

let fuzzProducts: [Product] =
    fuzzing ? [.executable(name: "signinsim-fuzz", targets: ["signinsim-fuzz"])] : []

let fuzzTargets: [Target] =
    fuzzing
    ? [
        .executableTarget(
            name: "signinsim-fuzz",
            dependencies: [
                "AppleID", "Issuer", "Clocks", "Cryptography", "JOSE", "JSON", "OAuthCore", "HTTPCore",
                "YAML",
                "Scenario", "Recordings", "WebAuthSession",
            ],
            path: "Sources/Fuzz",
            swiftSettings: strictSettings)
    ] : []

let package = Package(
    name: "SignInSim",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "signinsim", targets: ["signinsim"]),
        .executable(name: "signinsim-webkit", targets: ["signinsim-webkit"]),
        .library(name: "Cryptography", targets: ["Cryptography"]),
        .library(name: "JOSE", targets: ["JOSE"]),
        .library(name: "HTTPCore", targets: ["HTTPCore"]),
        .library(name: "HTTPClient", targets: ["HTTPClient"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "YAML", targets: ["YAML"]),
    ] + fuzzProducts,
    targets: [
        // MARK: C bridges (system libraries from Debian)
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libssl: the TLS end of the WebKit sheet's proxy (WebKitSession only).
        .systemLibrary(name: "CTLS", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // glibc's malloc.h (part of libc6-dev, which the Swift toolchain needs anyway).
        .systemLibrary(name: "CMalloc"),
        // WebKitGTK 6.0 (GTK 4), for the engine helper only: `signinsim` itself never links it.
        .systemLibrary(
            name: "CWebKitGTK", pkgConfig: "webkitgtk-6.0",
            providers: [.apt(["libwebkitgtk-6.0-dev", "xvfb", "xauth"])]),

        // MARK: Pure value layers
        .target(
            name: "Cryptography", dependencies: ["Errors", "Locking", "COpenSSL"],
            swiftSettings: strictSettings),
        .target(
            name: "JOSE", dependencies: ["Errors", "Cryptography", "JSON"], swiftSettings: strictSettings),
        .target(
            name: "OAuthCore", dependencies: ["Cryptography", "JOSE", "JSON", "HTTPCore"],
            swiftSettings: strictSettings),
        .target(name: "JSON", dependencies: ["Errors"], swiftSettings: strictSettings),
        // The lock every module uses (Synchronization.Mutex, or a pthread one that
        // ThreadSanitizer can see under SIGNINSIM_SANITIZE=thread: see Sources/Locking).
        .target(name: "Errors", swiftSettings: strictSettings),
        .target(name: "Locking", swiftSettings: strictSettings + lockingSettings),
        .target(name: "Clocks", dependencies: ["Locking"], swiftSettings: strictSettings),
        .target(name: "HTTPCore", dependencies: ["Errors", "JSON"], swiftSettings: strictSettings),
        .target(name: "YAML", dependencies: ["Errors", "JSON", "CYAML"], swiftSettings: strictSettings),
        // A file replaced whole through a hidden temporary file and rename(2), for the
        // keychain's file (Device) and the reports (ScenarioReports).
        .target(name: "AtomicFiles", dependencies: ["Errors"], swiftSettings: strictSettings),
        // The words the world's engines and the scenarios that drive them share: the person's
        // script and how the sheet ends (WebAuthSession), the issuer's faults, user updates and
        // tenant errors (Issuer). Values only, so that the scenario format links no engine.
        .target(
            name: "WorldVocabulary", dependencies: ["Errors", "JSON", "OAuthCore", "HTTPCore"],
            swiftSettings: strictSettings),

        // AppleID sits below Issuer: the issuer's Apple connection redeems codes through it.
        .target(
            name: "AppleID",
            dependencies: [
                "Errors", "Locking", "Clocks", "Cryptography", "JOSE", "JSON", "OAuthCore", "HTTPCore",
            ],
            swiftSettings: strictSettings),

        .target(
            name: "Issuer",
            dependencies: [
                "Errors", "Locking", "AppleID", "Clocks", "Cryptography", "JOSE", "JSON", "OAuthCore",
                "HTTPCore", "WorldVocabulary",
                "YAML",
            ],
            swiftSettings: strictSettings),

        // The app's sign-in SDK model. It sees only its ports (transport, storage, clock,
        // randomness, web and Apple user agents): it never learns that it runs in a simulator.
        .target(
            name: "SignInSDK",
            dependencies: [
                "Errors", "Locking", "Clocks", "Cryptography", "JOSE", "JSON", "OAuthCore", "HTTPCore",
            ],
            swiftSettings: strictSettings),

        // The simulated iPhone: keychain, lifecycle, network conditions.
        .target(
            name: "Device",
            dependencies: ["Errors", "Locking", "Clocks", "Cryptography", "HTTPCore", "JSON", "AtomicFiles"],
            swiftSettings: strictSettings),

        // MARK: IO adapters
        .target(
            name: "HTTPClient", dependencies: ["Locking", "Clocks", "HTTPCore", "CCurl"],
            swiftSettings: strictSettings),
        .target(
            name: "HTTPServer", dependencies: ["Errors", "Locking", "HTTPCore", "CMicroHTTPD"],
            swiftSettings: strictSettings),
        // ASWebAuthenticationSession's model: a browser that follows redirects, keeps cookies
        // (libcurl) and renders forms (libxml2's HTML parser) for a scripted user.
        .target(
            name: "WebAuthSession",
            dependencies: ["Errors", "Locking", "HTTPCore", "HTTPClient", "WorldVocabulary", "CLibXML2"],
            swiftSettings: strictSettings),

        // The `webkit` engine of the sheet: drives signinsim-webkit (a process of its own) and
        // proxies its requests through the phone's network.
        .target(
            name: "WebKitSession",
            dependencies: [
                "Errors", "Locking", "HTTPCore", "HTTPClient", "HTTPServer", "WebAuthSession",
                "WorldVocabulary",
                "WebKitHelperProtocol",
                "CTLS",
            ],
            swiftSettings: strictSettings),

        // MARK: The simulated world: devices running apps with the SDK against the embedded
        // issuer and Apple (or a real issuer); what the CLI and the scenario runner drive.
        .target(
            name: "Simulator",
            dependencies: [
                "Locking", "SignInSDK", "Device", "WebAuthSession", "WorldVocabulary", "WebKitSession",
                "HTTPClient",
                "HTTPServer",
                "AppleID", "Issuer", "Clocks", "Cryptography", "JSON", "HTTPCore", "OAuthCore",
            ],
            swiftSettings: strictSettings),

        // MARK: Scenarios
        // The scenario format and results (pure values), the runner that drives a world, and
        // the reports written from results. The format names the SDK's profiles and error codes,
        // the device's app phases, the issuer's faults and the sheet's outcomes by their own
        // declarations (SignInSDK, Device, WorldVocabulary): it links no engine and no adapter.
        .target(
            name: "Scenario",
            dependencies: [
                "Errors", "YAML", "JSON", "Clocks", "JOSE", "OAuthCore", "HTTPCore", "SignInSDK", "Device",
                "WorldVocabulary",
            ],
            swiftSettings: strictSettings),
        // `signinsim audit`: a native app's checks of any issuer, run on a simulated phone.
        .target(
            name: "Audit",
            dependencies: [
                "Errors", "Locking", "Clocks", "Issuer", "WorldVocabulary", "Simulator", "WebAuthSession",
                "WebKitSession",
                "Cryptography", "JOSE", "JSON", "OAuthCore", "HTTPCore",
            ],
            swiftSettings: strictSettings),
        .target(
            name: "ScenarioRunner",
            dependencies: [
                "Errors", "Locking", "Scenario", "Simulator", "SignInSDK", "Device", "WebAuthSession",
                "WorldVocabulary",
                "WebKitSession", "AppleID",
                "Issuer",
                "Clocks", "JOSE", "JSON", "OAuthCore", "HTTPCore", "HTTPClient",
            ],
            swiftSettings: strictSettings),
        .target(
            name: "ScenarioReports",
            dependencies: ["Errors", "AtomicFiles", "Scenario", "JSON", "JOSE", "HTTPCore"],
            swiftSettings: strictSettings),
        // HAR captures read back into exchanges (replay and import build on it). It redacts
        // with the HAR writer's rules and placeholders, so that both hide secrets alike.
        .target(
            name: "Recordings",
            dependencies: [
                "Scenario", "ScenarioReports", "JSON", "JOSE", "HTTPCore", "OAuthCore", "WebAuthSession",
                "WorldVocabulary",
            ],
            swiftSettings: strictSettings),
        // A capture replayed against the simulated SDK, with the divergence report.
        .target(
            name: "Replay",
            dependencies: [
                "Locking", "Recordings", "Scenario", "ScenarioRunner", "ScenarioReports", "Simulator",
                "SignInSDK", "Device",
                "Issuer", "WorldVocabulary",
                "Cryptography", "JOSE", "JSON", "OAuthCore", "HTTPCore", "HTTPClient", "YAML",
            ],
            swiftSettings: strictSettings),

        // MARK: Product
        .target(
            name: "SignInSimCLI",
            dependencies: [
                "Locking", "Errors", "JSON", "Clocks", "Cryptography", "JOSE", "OAuthCore", "HTTPCore",
                "HTTPClient",
                "HTTPServer",
                "AppleID", "Issuer", "SignInSDK", "WebAuthSession", "WorldVocabulary", "WebKitSession",
                "Simulator",
                "Scenario", "ScenarioRunner", "ScenarioReports", "Recordings", "Replay", "Audit", "CMalloc",
            ],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "signinsim", dependencies: ["SignInSimCLI"], swiftSettings: strictSettings),
        // The wire between signinsim and its WebKit helper: messages both sides share.
        .target(name: "WebKitHelperProtocol", swiftSettings: strictSettings),
        // The real browser engine of the sheet, in a process of its own (docs/browser.md).
        .executableTarget(
            name: "signinsim-webkit", dependencies: ["CWebKitGTK", "WebKitHelperProtocol"],
            path: "Sources/WebKitHelper", swiftSettings: strictSettings),
        .executableTarget(
            name: "signinsim-bench",
            dependencies: [
                "Locking", "Cryptography", "JOSE", "JSON", "HTTPCore", "HTTPClient", "HTTPServer",
                "AppleID", "Issuer", "Clocks", "SignInSDK", "Simulator", "Device", "CLibXML2", "Scenario",
                "ScenarioRunner", "ScenarioReports", "WebAuthSession", "WorldVocabulary", "WebKitSession",
            ],
            path: "Sources/Benchmarks",
            swiftSettings: strictSettings),

        // MARK: Tests (mirror the sources)
        .target(
            name: "TestSupport",
            dependencies: ["Locking", "HTTPCore", "HTTPClient", "HTTPServer", "WebKitSession"],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings),
        .testTarget(name: "CryptographyTests", dependencies: ["Cryptography"]),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "Cryptography", "JSON"]),
        .testTarget(name: "OAuthCoreTests", dependencies: ["OAuthCore", "Cryptography", "JOSE", "JSON"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "ErrorsTests", dependencies: ["Errors"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore"]),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: ["Clocks", "HTTPClient", "HTTPServer", "HTTPCore", "TestSupport"]),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["Locking", "HTTPServer", "HTTPClient", "HTTPCore", "TestSupport"]),
        .testTarget(name: "YAMLTests", dependencies: ["YAML"]),
        .testTarget(name: "AtomicFilesTests", dependencies: ["AtomicFiles"]),
        .testTarget(name: "ClocksTests", dependencies: ["Locking", "Clocks"]),
        .testTarget(
            name: "SignInSDKTests",
            dependencies: [
                "Locking", "SignInSDK", "Clocks", "Cryptography", "JOSE", "JSON", "OAuthCore", "HTTPCore",
            ]),
        .testTarget(
            name: "DeviceTests",
            dependencies: ["Locking", "Device", "Clocks", "Cryptography", "HTTPCore", "JSON"]),
        .testTarget(
            name: "WebAuthSessionTests",
            dependencies: [
                "Locking", "WebAuthSession", "WorldVocabulary", "HTTPCore", "HTTPClient", "HTTPServer",
                "TestSupport", "Issuer",
                "Clocks",
                "Cryptography",
            ]),
        .testTarget(
            name: "WebKitSessionTests",
            dependencies: [
                "Locking", "WebKitSession", "WebAuthSession", "WorldVocabulary", "HTTPCore", "HTTPClient",
                "HTTPServer",
                "TestSupport",
            ]),
        .testTarget(
            name: "IssuerTests",
            dependencies: [
                "Locking", "AppleID", "Issuer", "WorldVocabulary", "Clocks", "Cryptography", "JOSE", "JSON",
                "OAuthCore",
                "HTTPCore",
                "HTTPClient",
                "HTTPServer",
                "TestSupport",
            ]),
        .testTarget(
            name: "AppleIDTests",
            dependencies: [
                "AppleID", "Clocks", "Cryptography", "JOSE", "JSON", "HTTPCore", "HTTPClient",
                "HTTPServer",
                "TestSupport",
            ]),
        .testTarget(
            name: "AuditTests",
            dependencies: [
                "Audit", "Simulator", "Issuer", "WebAuthSession", "HTTPCore", "JSON", "Cryptography", "JOSE",
                "OAuthCore", "TestSupport",
            ]),
        .testTarget(
            name: "SimulatorTests",
            dependencies: [
                "Simulator", "SignInSDK", "Device", "WebAuthSession", "WorldVocabulary", "WebKitSession",
                "AppleID", "Issuer",
                "Clocks",
                "JSON",
                "HTTPCore", "HTTPClient", "TestSupport",
            ]),
        .testTarget(
            name: "ScenarioTests",
            dependencies: [
                "Scenario", "WorldVocabulary", "SignInSDK", "Issuer", "Device", "JSON", "Errors",
                "TestSupport",
            ]),
        .testTarget(
            name: "ScenarioRunnerTests",
            dependencies: [
                "Locking", "ScenarioRunner", "Scenario", "Simulator", "SignInSDK", "Issuer", "JSON",
                "HTTPCore", "AppleID",
                "TestSupport", "WebAuthSession", "YAML", "HTTPClient", "HTTPServer",
            ]),
        .testTarget(
            name: "ScenarioReportsTests",
            dependencies: ["ScenarioReports", "Scenario", "JSON", "JOSE", "Cryptography", "TestSupport"],
            exclude: ["Golden"]),
        .testTarget(
            name: "RecordingsTests",
            dependencies: ["Recordings", "ScenarioReports", "Scenario", "JSON", "HTTPCore"]),
        .testTarget(
            name: "ReplayTests",
            dependencies: [
                "Replay", "Recordings", "Scenario", "ScenarioRunner", "ScenarioReports", "SignInSDK",
                "HTTPCore", "OAuthCore", "JSON", "JOSE",
                "HTTPClient", "TestSupport",
            ],
            // Read from the source tree by path (#filePath), as golden files are.
            exclude: ["Captures", "Golden"]),
        .testTarget(
            name: "SignInSimCLITests",
            dependencies: [
                "Locking", "SignInSimCLI", "JOSE", "JSON", "HTTPCore", "HTTPClient", "HTTPServer", "Issuer",
                "WorldVocabulary",
                "Scenario", "CMalloc",
                "TestSupport",
            ]),
    ] + fuzzTargets,
    swiftLanguageModes: [.v6]
)
