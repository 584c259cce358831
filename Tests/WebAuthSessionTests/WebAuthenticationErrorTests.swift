import Testing
import WebAuthSession
import WorldVocabulary

/// Session errors show their stable code first, for reports.
@Test func webAuthenticationErrorDescriptionStartsWithCode() {
    let error = WebAuthenticationError(.canceledLogin, "the user closed the sheet")
    #expect(error.description == "canceled_login: the user closed the sheet")
}
