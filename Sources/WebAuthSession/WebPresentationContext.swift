public import Locking
import WorldVocabulary

/// An app's window scene as `ASWebAuthenticationPresentationContextProviding` supplies it: the
/// session can only be presented from a foreground-active scene, and one app presents at most
/// one authentication sheet at a time.
public final class WebPresentationContext: Sendable {
    private struct State {
        var isForegroundActive: Bool
        var presenting: ObjectIdentifier?
    }

    private let state: Mutex<State>
    /// Notified whenever the scene's activation or its sheet changes, for whoever waits on them.
    public let changes = ChangeSignal()

    public init(isForegroundActive: Bool = true) {
        state = Mutex(State(isForegroundActive: isForegroundActive, presenting: nil))
    }

    /// Whether the scene is foreground-active (`UIScene.ActivationState.foregroundActive`).
    public var isForegroundActive: Bool {
        get { state.withLock { $0.isForegroundActive } }
        set {
            state.withLock { $0.isForegroundActive = newValue }
            changes.notify()
        }
    }

    /// Whether a session's sheet is up, finished or not.
    public var isPresenting: Bool { state.withLock { $0.presenting != nil } }

    /// Puts `session`'s sheet up, or says why it cannot be (field bug 6: error 3 from a scene
    /// that is not foreground-active).
    func present(_ session: ObjectIdentifier) throws(WebAuthenticationError) {
        let refusal: WebAuthenticationError? = state.withLock { state in
            guard state.isForegroundActive else {
                return WebAuthenticationError(
                    .presentationContextInvalid,
                    "the presentation context is not foreground-active: the sheet cannot be shown")
            }
            guard state.presenting == nil else {
                return WebAuthenticationError(
                    .alreadyPresenting,
                    "another web authentication session is still presented by this app")
            }
            state.presenting = session
            return nil
        }
        if let refusal { throw refusal }
        changes.notify()
    }

    /// Takes `session`'s sheet down, if it is the one up.
    func dismiss(_ session: ObjectIdentifier) {
        state.withLock { state in
            if state.presenting == session { state.presenting = nil }
        }
        changes.notify()
    }
}
