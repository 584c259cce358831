import Cryptography
import HTTPCore
import JOSE
import JSON
import OAuthCore

/// The simulator's control API under `/_admin/` (JSON in, JSON out), so that tools and other
/// issuers can obtain real-looking credentials over HTTP.
extension AppleIDProvider {
    /// `POST /_admin/authorize`: a native authorization on behalf of a device.
    ///
    ///     {"email", "given_name"?, "family_name"?, "bundle_id", "team_id"?,
    ///      "scopes"?: ["fullName", "email"], "nonce"?, "private_email"?: false,
    ///      "real_user_status"?: 2, "decision"?: "approve" | "cancel"}
    ///
    /// Accounts are created on first use. Answers the credential (`AppleIDCredential.json`), or
    /// 400 `{"error": "authorization_failed", "code": 1001, …}` when the authorization fails.
    func adminAuthorize(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleAdminError) {
            let body = try Self.adminBody(request)
            let email = try Self.requiredString(body, "email")
            let bundleID = try Self.requiredString(body, "bundle_id")
            var scopes: [AppleScope] = [.fullName, .email]
            if let value = body["scopes"] {
                guard let names = value.arrayValue?.compactMap(\.stringValue),
                    names.count == value.arrayValue?.count
                else { throw .invalidRequest("scopes must be an array of strings") }
                scopes = []
                for name in names {
                    guard let scope = AppleScope(name: name) else {
                        throw .invalidRequest(
                            "unknown scope \"\(name.prefix(32))\" (fullName and email are known)")
                    }
                    scopes.append(scope)
                }
            }
            var status = AppleRealUserStatus.likelyReal
            if let value = body["real_user_status"] {
                guard let number = value.int64Value, let parsed = AppleRealUserStatus(rawValue: Int(number))
                else {
                    throw .invalidRequest("real_user_status must be 0, 1 or 2")
                }
                status = parsed
            }
            var decision = AppleAuthorizationRequest.Decision.approve
            switch body["decision"]?.stringValue {
            case nil, "approve": break
            case "cancel": decision = .cancel
            default: throw .invalidRequest("decision must be \"approve\" or \"cancel\"")
            }
            let account = AppleIDAccount(
                email: email, givenName: try Self.optionalString(body, "given_name"),
                familyName: try Self.optionalString(body, "family_name"),
                privateRelay: try Self.optionalBool(body, "private_email") ?? false, realUserStatus: status)
            let authorization = AppleAuthorizationRequest(
                account: account, bundleID: bundleID, teamID: try Self.optionalString(body, "team_id"),
                requestedScopes: scopes, nonce: try Self.optionalString(body, "nonce"), decision: decision)
            do {
                return .json(try authorize(authorization).json)
            } catch {
                throw AppleAdminError(
                    error: "authorization_failed", description: error.message,
                    extra: [
                        "code": .int(Int64(error.code.rawValue)),
                        "domain": .string(AppleAuthorizationError.domain),
                    ])
            }
        } catch {
            return error.response
        }
    }

    /// `POST /_admin/revoke-consent` `{"email", "bundle_id"}`: the user stops using Apple ID with
    /// the app (`stopUsingAppleID`). Answers `{"state"}`.
    func adminRevokeConsent(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleAdminError) {
            let body = try Self.adminBody(request)
            let email = try Self.requiredString(body, "email")
            let bundleID = try Self.requiredString(body, "bundle_id")
            stopUsingAppleID(email: email, bundleID: bundleID)
            return .json(["state": .string(credentialState(email: email, bundleID: bundleID).rawValue)])
        } catch {
            return error.response
        }
    }

    /// `GET /_admin/credential-state?email=&bundle_id=` (or `user_id=` instead of `email=`):
    /// answers `{"state": "authorized" | "revoked" | "notFound" | "transferred"}`.
    func adminCredentialState(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleAdminError) {
            let query: FormParameters
            do {
                query = try request.queryParameters()
            } catch {
                throw .invalidRequest("the query is malformed: \(error.message)")
            }
            guard let bundleID = query["bundle_id"], !bundleID.isEmpty else {
                throw .invalidRequest("bundle_id is required")
            }
            let state: AppleCredentialState
            if let email = query["email"], !email.isEmpty {
                state = credentialState(email: email, bundleID: bundleID)
            } else if let userID = query["user_id"], !userID.isEmpty {
                state = credentialState(forUserID: userID, bundleID: bundleID)
            } else {
                throw .invalidRequest("email or user_id is required")
            }
            return .json(["state": .string(state.rawValue)])
        } catch {
            return error.response
        }
    }

    /// `POST /_admin/developer-keys` `{"team_id", "key_id", "public_key_pem" | "jwk"}`: registers
    /// a P-256 key that signs the team's client secrets. 201 `{"team_id", "key_id"}`.
    func adminRegisterDeveloperKey(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleAdminError) {
            let body = try Self.adminBody(request)
            let teamID = try Self.requiredString(body, "team_id")
            let keyID = try Self.requiredString(body, "key_id")
            let publicKey: P256PublicKey
            do {
                if let pem = body["public_key_pem"]?.stringValue {
                    publicKey = try P256PublicKey(pem: pem)
                } else if let jwk = body["jwk"] {
                    guard case .p256(let key) = try JWK(json: jwk).verificationKey() else {
                        throw AppleAdminError.invalidRequest("jwk must be an EC P-256 key")
                    }
                    publicKey = key
                } else {
                    throw AppleAdminError.invalidRequest("public_key_pem or jwk is required")
                }
            } catch let error as AppleAdminError {
                throw error
            } catch let error as CryptoError {
                throw .invalidRequest("public_key_pem is not a P-256 public key: \(error.message)")
            } catch let error as JOSEError {
                throw .invalidRequest("jwk is not a usable key: \(error.message)")
            } catch {
                throw .invalidRequest("the key is not usable")
            }
            registerDeveloperKey(teamID: teamID, keyID: keyID, publicKey: publicKey)
            return .json(["team_id": .string(teamID), "key_id": .string(keyID)], status: 201)
        } catch {
            return error.response
        }
    }

    /// `POST /_admin/keys/rotate`: `rotateKeys()`; answers `{"kid"}` of the new signing key.
    func adminRotateKeys(_ request: HTTPRequest) -> HTTPResponse {
        do {
            return .json(["kid": .string(try rotateKeys())])
        } catch {
            return AppleAdminError(error: OAuthErrorCode.serverError, description: error.message, status: 500)
                .response
        }
    }

    /// `POST /_admin/transfer` `{"bundle_id", "team_id"}`: `transferApp(bundleID:toTeam:)`.
    func adminTransfer(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AppleAdminError) {
            let body = try Self.adminBody(request)
            let bundleID = try Self.requiredString(body, "bundle_id")
            let teamID = try Self.requiredString(body, "team_id")
            transferApp(bundleID: bundleID, toTeam: teamID)
            return .json(["bundle_id": .string(bundleID), "team_id": .string(teamID)])
        } catch {
            return error.response
        }
    }

    // MARK: - Reading admin bodies

    static func adminBody(_ request: HTTPRequest) throws(AppleAdminError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try request.jsonBody()
        } catch {
            throw .invalidRequest("the body must be a JSON object: \(error.message)")
        }
        guard let object = value.objectValue else { throw .invalidRequest("the body must be a JSON object") }
        return object
    }

    static func requiredString(_ body: [String: JSONValue], _ name: String) throws(AppleAdminError) -> String
    {
        guard let value = try optionalString(body, name), !value.isEmpty else {
            throw .invalidRequest("\(name) is required")
        }
        return value
    }

    static func optionalString(_ body: [String: JSONValue], _ name: String) throws(AppleAdminError) -> String?
    {
        guard let value = body[name], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidRequest("\(name) must be a string") }
        return text
    }

    static func optionalBool(_ body: [String: JSONValue], _ name: String) throws(AppleAdminError) -> Bool? {
        guard let value = body[name], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw .invalidRequest("\(name) must be a boolean") }
        return flag
    }
}
