/// How the issuer's login, consent and logout pages work (the tenant's `pages`).
///
/// Real identity providers differ here, and so do the browsers a test can drive: a scripted
/// user agent that reads forms from the served HTML signs in through `html` pages only.
public enum LoginPageStyle: String, Sendable, Hashable, CaseIterable {
    /// Forms in the HTML the server sends, usable without JavaScript (the default). Logout ends
    /// the session at once.
    case html
    /// An empty shell and an inline script that renders the forms, as Okta's Sign-In Widget,
    /// Auth0 Lock or Glewlwyd serve them: identifier first, then the password, posted with
    /// `fetch`; consent whose Refuse needs the script; logout that asks first (OpenID Connect
    /// RP-Initiated Logout 1.0 §2: the OP SHOULD ask the End-User whether to log out).
    case javascript
}
