public import AppleID
public import HTTPCore
import JSON
public import SignInSDK

/// The Apple ID signed in on a simulated device, and native authorization with it: what the
/// SDK's Apple port (`AppleAuthorizationForwarder`) hands `authorize` to.
///
/// Talks to a simulated Apple's `POST /_admin/authorize` (the hosted one under `/apple`, or any
/// `signinsim serve`), which plays the part of the system sheet and Apple's servers: it remembers
/// which apps the account authorized, so the name comes only the first time.
public struct DeviceAppleAccount: Sendable {
    public var account: AppleIDAccount
    public var bundleID: String
    /// The simulated Apple's base URL.
    public var appleURL: String
    /// What the user does with the sheet.
    public var cancels: Bool
    let transport: any HTTPTransport

    public init(
        account: AppleIDAccount, bundleID: String, appleURL: String, transport: any HTTPTransport,
        cancels: Bool = false
    ) {
        self.account = account
        self.bundleID = bundleID
        self.appleURL = appleURL
        self.transport = transport
        self.cancels = cancels
    }

    public func authorize(scopes: [AppleAuthorizationScope], nonce: String?)
        async throws(AppleAuthorizationFailure)
        -> AppleAuthorization
    {
        var body: [String: JSONValue] = [
            "email": .string(account.email), "bundle_id": .string(bundleID),
            "scopes": .array(scopes.map { $0 == .fullName ? "fullName" : "email" }),
            "private_email": .bool(account.privateRelay),
            "real_user_status": .int(Int64(account.realUserStatus.rawValue)),
            "decision": cancels ? "cancel" : "approve",
        ]
        if let given = account.givenName { body["given_name"] = .string(given) }
        if let family = account.familyName { body["family_name"] = .string(family) }
        if let nonce { body["nonce"] = .string(nonce) }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                .json(url: appleURL + "/_admin/authorize", body: .object(body)))
        } catch {
            throw AppleAuthorizationFailure(.failed, "Apple could not be reached: \(error)")
        }
        let json = try? response.jsonBody()
        guard response.status == 200, let json else {
            if json?["code"]?.int64Value == Int64(AppleAuthorizationError.Code.canceled.rawValue) {
                throw AppleAuthorizationFailure(.canceled, "the user canceled the Apple sheet")
            }
            let reason = json?["error_description"]?.stringValue ?? "status \(response.status)"
            throw AppleAuthorizationFailure(.failed, "Apple refused the authorization: \(reason)")
        }
        guard let user = json["user"]?.stringValue, let token = json["identity_token"]?.stringValue,
            let code = json["authorization_code"]?.stringValue
        else { throw AppleAuthorizationFailure(.failed, "Apple's credential lacks user, token or code") }
        return AppleAuthorization(
            user: user, identityToken: token, authorizationCode: code,
            givenName: json["full_name"]?["given_name"]?.stringValue,
            familyName: json["full_name"]?["family_name"]?.stringValue, email: json["email"]?.stringValue)
    }
}

/// `getCredentialState(forUserID:)` as a simulated device answers it: Apple's state of the user
/// identifier for the app, read from a simulated Apple's `GET /_admin/credential-state`.
struct DeviceAppleCredentialCheck: Sendable {
    var bundleID: String
    /// The simulated Apple's base URL.
    var appleURL: String
    let transport: any HTTPTransport

    func state(forUserID userID: String) async throws(AppleAuthorizationFailure) -> AppleIDCredentialState {
        let query: FormParameters = ["user_id": userID, "bundle_id": bundleID]
        let url = FormURLEncoding.appendingQuery(
            query, to: appleURL + AppleIDProvider.Path.adminCredentialState)
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(url: url))
        } catch {
            throw AppleAuthorizationFailure(.failed, "Apple could not be reached: \(error)")
        }
        let json = try? response.jsonBody()
        guard response.status == 200, let name = json?["state"]?.stringValue else {
            let reason = json?["error_description"]?.stringValue ?? "status \(response.status)"
            throw AppleAuthorizationFailure(.failed, "Apple did not tell the credential state: \(reason)")
        }
        guard let state = AppleIDCredentialState(rawValue: name) else {
            throw AppleAuthorizationFailure(
                .failed, "Apple answered an unknown credential state \(name.prefix(32))")
        }
        return state
    }
}
