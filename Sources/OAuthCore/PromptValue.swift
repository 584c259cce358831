/// A value of the authorization request's `prompt`, which lists them separated by spaces
/// (OpenID Connect Core §3.1.2.1). Other specifications register more (`create`, OpenID Connect
/// Prompt Create 1.0); these are Core's.
public enum PromptValue: String, Hashable, Sendable, CaseIterable {
    /// Show no page: an error comes back when the user would have to sign in or consent.
    case none
    /// Ask the user to sign in again, whatever session the browser has.
    case login
    /// Ask the user to consent, even to what they granted before.
    case consent
    /// Let the user pick an account.
    case selectAccount = "select_account"
}
