public import HTTPClient
public import HTTPCore
public import WorldVocabulary

/// A browser engine that shows web authentication sheets: it loads the start URL, shows each
/// page to the person (``WebPerson``), does what they do, and stops at the callback.
///
/// ``WebAuthenticationSession`` owns what every engine shares (the presentation rules, the
/// deadline, cancel); an engine only navigates.
public protocol WebSheetEngine: Sendable {
    var engine: BrowserEngine { get }

    /// Runs one presentation: the callback URL as the server sent it, the error that ended it,
    /// or `nil` when the person walked away and the sheet stays up. Records each page in
    /// `handle`. Cancelling the task (the sheet was dismissed) stops the navigation.
    func navigate(
        _ session: WebAuthenticationSession, as user: WebUserScript, handle: WebAuthenticationHandle
    )
        async -> Result<String, WebAuthenticationError>?

    /// The cookies of the shared (non-ephemeral) store, as a check reads them.
    func cookies() async -> [Cookie]
}
