public import Foundation

/// The wire between `signinsim` and `signinsim-webkit`, the helper process that runs WebKitGTK.
///
/// One JSON document per line in each direction: the driver writes ``HelperRequest``s to the
/// helper's standard input; the helper writes ``HelperMessage``s (a ``HelperResponse`` to each
/// request, in any order, and ``HelperEvent``s as pages load) to its standard output. The helper
/// decides nothing: whether a navigation is the callback, what the person types and presses,
/// are the driver's, so that both engines share one person and one callback rule.
public enum HelperWire {
    /// Bumped whenever a message changes shape; the helper says its own in ``HelperEvent/ready``.
    public static let version = 1

    /// Encodes one message as a line (no newline inside: JSON escapes every control character).
    public static func line(_ value: some Encodable) throws -> Data {
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Decodes one line.
    public static func decode<Message: Decodable>(_ type: Message.Type, from line: Data) throws -> Message {
        try JSONDecoder().decode(type, from: line)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}

/// A command and the number its response will carry.
public struct HelperRequest: Codable, Sendable {
    public var id: UInt64
    public var command: HelperCommand

    public init(id: UInt64, command: HelperCommand) {
        self.id = id
        self.command = command
    }
}

/// What the driver asks of the engine.
public enum HelperCommand: Codable, Sendable {
    /// A cookie and storage store (`WebKitNetworkSession`): ephemeral when `directory` is nil
    /// (`prefersEphemeralWebBrowserSession`), else persistent under `directory` (the shared
    /// store of a simulated phone). Every `http` request of its pages goes through `proxy` when
    /// given (`http://127.0.0.1:PORT`), and every `https` one through a `CONNECT` tunnel to
    /// `tunnel`, whose certificate the store accepts: the tunnel checks the real server's.
    case openStore(store: String, directory: String?, proxy: String?, tunnel: String?)
    case closeStore(store: String)
    /// A sheet: a web view in its own window of `width` × `height` CSS pixels, in `store`.
    case openSheet(sheet: String, store: String, userAgent: String, width: Int, height: Int)
    /// Loads `url` in the sheet's main frame.
    case load(sheet: String, url: String)
    /// Answers a ``HelperEvent/navigation`` that waits for it.
    case decide(sheet: String, decision: UInt64, verdict: NavigationVerdict)
    /// Runs `script` (the body of an async function) in the driver's isolated script world;
    /// the response carries the JSON of what it returns.
    case evaluate(sheet: String, script: String)
    /// A JPEG of the visible part of the page, scaled to at most `maximumWidth` pixels wide.
    case snapshot(sheet: String, maximumWidth: Int, quality: Int)
    /// Every cookie of `store`.
    case cookies(store: String)
    /// Answers a ``HelperEvent/scriptDialog``.
    case answerDialog(sheet: String, dialog: UInt64, accept: Bool)
    case closeSheet(sheet: String)
    /// Ends the sheet's web process as a crash would (`webkit_web_view_terminate_web_process`).
    case terminateWebProcess(sheet: String)
    /// Closes everything and exits.
    case quit
}

/// What becomes of a navigation the engine asked about.
public enum NavigationVerdict: String, Codable, Sendable {
    /// The engine loads it.
    case follow
    /// The engine drops it without loading (the callback: as `ASWebAuthenticationSession`
    /// does, the redirect is never followed).
    case stop
}

/// One line from the helper: `{"id": N, "result": …}` or `{"event": …}`.
public enum HelperMessage: Codable, Sendable {
    case response(HelperResponse)
    case event(HelperEvent)

    private enum CodingKeys: String, CodingKey {
        case id, result, event
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let event = try container.decodeIfPresent(HelperEvent.self, forKey: .event) {
            self = .event(event)
        } else {
            self = .response(
                HelperResponse(
                    id: try container.decode(UInt64.self, forKey: .id),
                    result: try container.decode(HelperResult.self, forKey: .result)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .response(let response):
            try container.encode(response.id, forKey: .id)
            try container.encode(response.result, forKey: .result)
        case .event(let event):
            try container.encode(event, forKey: .event)
        }
    }
}

/// The answer to the request with `id`.
public struct HelperResponse: Codable, Sendable {
    public var id: UInt64
    public var result: HelperResult

    public init(id: UInt64, result: HelperResult) {
        self.id = id
        self.result = result
    }
}

public enum HelperResult: Codable, Sendable {
    case done
    /// The JSON text a script returned.
    case json(text: String)
    case image(jpeg: Data, width: Int, height: Int)
    case cookies(cookies: [BrowserCookie])
    /// The command could not be carried out; the engine goes on.
    case failed(message: String)
}

/// A cookie as the engine's store holds it (RFC 6265 §5.3).
public struct BrowserCookie: Codable, Sendable, Hashable {
    public var name: String
    public var value: String
    public var domain: String
    public var path: String
    /// Seconds since the Unix epoch; nil for a session cookie.
    public var expires: Double?
    public var secure: Bool
    public var httpOnly: Bool

    public init(
        name: String, value: String, domain: String, path: String, expires: Double?, secure: Bool,
        httpOnly: Bool
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
    }
}

/// What happened in the engine.
public enum HelperEvent: Codable, Sendable {
    /// The helper is up: its wire version, WebKit's version, the X display it renders on.
    case ready(wire: Int, webKitVersion: String, display: String)
    /// The main frame (or a new window) is about to navigate; the engine waits for a
    /// ``HelperCommand/decide`` with `decision`.
    case navigation(sheet: String, decision: UInt64, request: NavigationRequest)
    case loadChanged(sheet: String, phase: LoadPhase, url: String)
    /// A load failed. `interrupted`: it was stopped rather than failed (a navigation the driver
    /// stopped, or one a newer navigation replaced).
    case loadFailed(sheet: String, url: String, message: String, interrupted: Bool)
    /// The sheet's web process ended: it crashed, or ran out of memory.
    case webProcessTerminated(sheet: String, reason: String)
    /// A script called `window.close()`.
    case closeRequested(sheet: String)
    /// `alert`, `confirm`, `prompt` or a leave-page question; the engine waits for
    /// ``HelperCommand/answerDialog``.
    case scriptDialog(sheet: String, dialog: UInt64, kind: String, message: String)
}

/// A navigation the engine is about to make.
public struct NavigationRequest: Codable, Sendable, Hashable {
    public var url: String
    public var method: String
    /// A server redirect (3xx) rather than a load, a link, a form or a script.
    public var isRedirect: Bool
    /// `link`, `form`, `back-forward`, `reload`, `form-resubmit` or `other` (scripts).
    public var kind: String
    /// Asked to open in a new window (`target=_blank`, `window.open`).
    public var newWindow: Bool

    public init(url: String, method: String, isRedirect: Bool, kind: String, newWindow: Bool) {
        self.url = url
        self.method = method
        self.isRedirect = isRedirect
        self.kind = kind
        self.newWindow = newWindow
    }
}

/// `WebKitLoadEvent`.
public enum LoadPhase: String, Codable, Sendable {
    case started, redirected, committed, finished
}
