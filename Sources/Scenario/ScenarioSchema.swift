import Device
import HTTPCore
import JOSE
public import JSON
import OAuthCore
import SignInSDK
import WorldVocabulary

/// The JSON Schema (draft 2020-12) of scenario and flow files, as checked in at
/// `scenarios/scenario.schema.json` for editors (a test keeps the two identical). It describes
/// the shape; `ScenarioLoader` checks the rest (includes, app ids, value ranges) and reports
/// every problem.
///
/// Made from four parts: the hand-written `shape` of the header; every step and its arguments
/// from `StepCatalog`, the declaration the loader reads steps with; the closed sets (profiles, faults, error
/// codes, app phases, …) taken from the declarations the loader reads them with, so a new
/// fault or error code is in the schema without an edit here; and the rules the loader applies
/// to every file: `${VAR}` may stand for any value (a number, a boolean, a name of a closed
/// set), and a file may be a flow for `runFlow` (a list of steps, or `description`, `env` and
/// `steps`).
public enum ScenarioSchema {
    /// The schema as `signinsim schema` prints it.
    public static let json: String = document.prettyPrinted() + "\n"

    /// The schema as a JSON value.
    public static var document: JSONValue {
        guard case .object(var root)? = try? JSONValue.parse(Array(shape.utf8)),
            case .object(var definitions)? = root.removeValue(forKey: "$defs")
        else {
            // `shape` is this file's own constant; ScenarioSchemaTests parse it.
            return .object([:])
        }
        for (name, schema) in closedSets { definitions[name] = schema }
        for (name, shape) in StepCatalog.definitions { definitions[name] = shape.schema }
        definitions["step"] = StepCatalog.stepSchema
        var document: [String: JSONValue] = [:]
        for key in ["$id", "$schema"] { document[key] = root.removeValue(forKey: key) }
        document["title"] = "SignInSim scenario or flow"
        document["description"] = root.removeValue(forKey: "description")
        definitions["scenario"] = .object(root)
        definitions["flow"] = flow
        document["anyOf"] = [.object(["$ref": "#/$defs/scenario"]), .object(["$ref": "#/$defs/flow"])]
        definitions = definitions.mapValues(substitutable)
        // Added after, so that it does not refer to itself.
        definitions[variableDefinition] = .object([
            "description": "A ${NAME} or ${NAME:-default} reference, substituted before the file is read.",
            "pattern": .string(#"\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}"#), "type": "string",
        ])
        document["$defs"] = .object(definitions)
        return .object(document)
    }

    /// The names of every closed set a scenario names, by its `$defs` name: each list taken
    /// from the declaration the loader reads the set with (`ClosedSetTests` walks them).
    public static var closedSetNames: [String: [String]] {
        [
            "fault": IssuerFault.allCases.map(\.rawValue),
            "appPhase": AppPhase.allCases.map(\.rawValue),
            "callOutcome": CallOutcome.names,
            "callOutcomes": CallOutcome.names,
            "lastError": CallOutcome.sdkNames,
            "profile": BehaviorProfile.names,
            "prompt": ScenarioReader.promptNames,
            "browser": BrowserEngine.allCases.map(\.rawValue),
            "appleCredentialState": AppleIDCredentialState.allCases.map(\.rawValue),
            "appleScope": AppleAuthorizationScope.allCases.map(\.rawValue),
            "refreshTokenVerdict": RefreshTokenVerdict.allCases.map(\.rawValue),
            "consent": WebUserScript.ConsentDecision.allCases.map(\.rawValue),
            "interruptionPoint": WebUserScript.Point.allCases.map(\.rawValue),
            "endpoint": EndpointRole.allCases.map(\.rawValue),
            "signingAlgorithm": JWSAlgorithm.allCases.map(\.rawValue),
            "clientAuthMethod": ClientAuthenticationMethod.allCases.map(\.rawValue),
            "clientAssertionAudience": ClientAssertionAudience.allCases.map(\.rawValue),
            "sheetState": SheetState.allCases.map(\.rawValue),
            "sheetEnding": SheetEnding.names,
        ]
    }

    /// Every closed set a scenario names, by its `$defs` name, and the shapes used in places.
    static var closedSets: [String: JSONValue] {
        func names(_ set: String) -> [String] { closedSetNames[set] ?? [] }
        return [
            "fault": choice(names("fault"), "An issuer fault: an RP conformance id or a transport fault."),
            "appPhase": choice(names("appPhase"), "The app's lifecycle phase."),
            "callOutcome": choice(
                names("callOutcome"), "none (success), an SDK error code, or what the run found in the call."),
            "callOutcomes": .object([
                "description":
                    "The outcomes allowed, none meaning success: one, a list, or several separated by spaces.",
                "anyOf": [
                    .object(["pattern": .string(joined(names("callOutcomes"), by: " +")), "type": "string"]),
                    .object([
                        "items": .object(["$ref": "#/$defs/callOutcome"]), "minItems": 1, "type": "array",
                    ]),
                ],
            ]),
            "lastError": choice(names("lastError"), "none (success) or an SDK error code."),
            "profile": .object([
                "description": .string(
                    "The SDK behaviour profile: one of " + names("profile").joined(separator: ", ")
                        + ", or several joined with +."),
                "pattern": .string(joined(names("profile"), by: #" *\+ *"#)), "type": "string",
            ]),
            "prompt": .object([
                "description":
                    "prompt values (OpenID Connect Core 3.1.2.1) separated by spaces, or omit to send none; empty: consent when the scopes include offline_access.",
                "pattern": .string(
                    "^( *|omit|"
                        + String(
                            joined(PromptValue.allCases.map(\.rawValue), by: " +").dropFirst().dropLast())
                        + ")$"),
                "type": "string",
            ]),
            "browser": choice(
                names("browser"),
                "The browser engine of the web sheet: lite (no JavaScript) or webkit (WebKitGTK)."),
            "appleCredentialState": choice(names("appleCredentialState"), "An Apple ID credential state."),
            "appleScope": choice(names("appleScope"), "A scope of native Sign in with Apple."),
            "refreshTokenVerdict": choice(
                names("refreshTokenVerdict"), "What the refresh tokens the device received are at the issuer."
            ),
            "consent": choice(names("consent"), "The answer on the consent page."),
            "interruptionPoint": choice(
                names("interruptionPoint"), "Where in the web sheet the person stops."),
            "endpoint": choice(names("endpoint"), "An endpoint of the issuer, by its role."),
            "signingAlgorithm": choice(
                names("signingAlgorithm"), "A signing algorithm of the issuer's keys."),
            "clientAuthMethod": choice(
                [""] + names("clientAuthMethod"),
                "How the client authenticates at the token endpoint; empty or absent: chosen from its credentials and discovery."
            ),
            "clientAssertionAudience": choice(
                [""] + names("clientAssertionAudience"),
                "The aud of a private_key_jwt assertion: the issuer identifier (the default) or the token endpoint URL."
            ),
            "sheetState": choice(names("sheetState"), "Whether the app's web sheet is up or closed."),
            "sheetEnding": choice(
                names("sheetEnding"),
                "How the app's last web sheet ended: callback, or the code of the error that ended it."),
            "user": .object([
                "additionalProperties": false,
                "description":
                    "A user at the embedded issuer, found by email (or user_id) and created when new.",
                "properties": .object(
                    Dictionary(
                        uniqueKeysWithValues: UserUpdate.jsonKeys.map { key in
                            (key, JSONValue.object(["type": key == "email_verified" ? "boolean" : "string"]))
                        })),
                "required": ["email"], "type": "object",
            ]),
        ]
    }

    /// A flow file for `runFlow`: its steps, alone or with `description` and `env` defaults.
    private static var flow: JSONValue {
        let steps: JSONValue = .object(["items": .object(["$ref": "#/$defs/step"]), "type": "array"])
        return .object([
            "anyOf": [
                steps,
                .object([
                    "additionalProperties": false,
                    "properties": .object([
                        "description": .object(["type": "string"]), "env": .object(["$ref": "#/$defs/env"]),
                        "steps": steps,
                    ]),
                    "required": ["steps"], "type": "object",
                ]),
            ],
            "description": "A flow for runFlow: a list of steps, or description, env and steps.",
        ])
    }

    private static let variableDefinition = "variable"

    private static func choice(_ names: [String], _ description: String) -> JSONValue {
        .object(["description": .string(description), "enum": .array(names.map(JSONValue.string))])
    }

    /// A pattern for one or more of `names` with `separator` between them.
    private static func joined(_ names: [String], by separator: String) -> String {
        let one = "(" + names.map(escaped).joined(separator: "|") + ")"
        return "^" + one + "(" + separator + one + ")*$"
    }

    private static func escaped(_ name: String) -> String {
        var pattern = ""
        for character in name {
            if "\\^$.|?*+()[]{}".contains(character) { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern
    }

    /// `schema` with `${VAR}` allowed wherever it constrains a value beyond "some text" (a
    /// number, a boolean, an enum, a pattern), as the loader substitutes every value before it
    /// reads one; and `oneOf` as `anyOf`, since a reference can match two alternatives.
    private static func substitutable(_ schema: JSONValue) -> JSONValue {
        guard case .object(var members) = schema else { return schema }
        for key in ["properties", "$defs"] {
            if case .object(let schemas)? = members[key] {
                members[key] = .object(schemas.mapValues(substitutable))
            }
        }
        for key in ["items", "additionalProperties"] {
            if let inner = members[key], case .object = inner { members[key] = substitutable(inner) }
        }
        if let alternatives = members.removeValue(forKey: "oneOf") { members["anyOf"] = alternatives }
        if case .array(let alternatives)? = members["anyOf"] {
            members["anyOf"] = .array(alternatives.map(substitutable))
        }
        let types =
            members["type"].map { type in
                type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            } ?? []
        let constrained =
            members["enum"] != nil || members["pattern"] != nil
            || (!types.isEmpty && !types.contains("string") && !types.contains("object")
                && !types.contains("array"))
        guard constrained else { return .object(members) }
        return .object([
            "anyOf": [.object(members), .object(["$ref": .string("#/$defs/" + variableDefinition)])]
        ])
    }

    /// The hand-written shape of a scenario's header. The steps come from `StepCatalog`, and
    /// closed sets are `$ref`s that `closedSets` fills in from their declarations.
    private static let shape = #"""
        {
          "$defs": {
            "duration": {
              "description": "Seconds: an integer, or a number with s, m, h or d (\"15m\").",
              "oneOf": [
                {
                  "type": "integer"
                },
                {
                  "pattern": "^-?[0-9]+[smhd]$",
                  "type": "string"
                }
              ]
            },
            "env": {
              "additionalProperties": {
                "type": [
                  "string",
                  "number",
                  "boolean",
                  "null"
                ]
              },
              "type": "object"
            }
          },
          "$id": "https://signinsim.example/scenario.schema.json",
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "additionalProperties": false,
          "description": "A scenario for signinsim run: a header describing the world, then the steps replayed in it. See scenarios/README.md.",
          "properties": {
            "apps": {
              "items": {
                "additionalProperties": false,
                "properties": {
                  "acr_values": {
                    "type": "string"
                  },
                  "audience": {
                    "type": "string"
                  },
                  "browser": {
                    "$ref": "#/$defs/browser"
                  },
                  "authorization_parameters": {
                    "description": "Other authorization request parameters: a mapping of names to strings, or one form-encoded string.",
                    "oneOf": [
                      {
                        "additionalProperties": {
                          "type": "string"
                        },
                        "type": "object"
                      },
                      {
                        "type": "string"
                      }
                    ]
                  },
                  "client_assertion_audience": {
                    "$ref": "#/$defs/clientAssertionAudience"
                  },
                  "client_auth_method": {
                    "$ref": "#/$defs/clientAuthMethod"
                  },
                  "client_id": {
                    "type": "string"
                  },
                  "client_jwk": {
                    "description": "The private key of private_key_jwt, as a private JWK.",
                    "type": "object"
                  },
                  "client_key_file": {
                    "description": "The private key of private_key_jwt: a file holding a private JWK or a PEM key, relative to the scenario file.",
                    "type": "string"
                  },
                  "client_secret": {
                    "type": "string"
                  },
                  "dpop": {
                    "type": "boolean"
                  },
                  "id": {
                    "type": "string"
                  },
                  "issuer_suffix": {
                    "type": "string"
                  },
                  "leeway": {
                    "$ref": "#/$defs/duration",
                    "description": "Seconds of leeway on an ID token's exp, instead of the profile's (60 s by default, 0 s with appauth-clock or strict-clock)."
                  },
                  "login_hint": {
                    "type": "string"
                  },
                  "max_age": {
                    "oneOf": [
                      {
                        "minimum": 0,
                        "type": "integer"
                      },
                      {
                        "type": "string"
                      }
                    ]
                  },
                  "organization": {
                    "type": "string"
                  },
                  "password_field": {
                    "type": "string"
                  },
                  "post_logout_redirect_uri": {
                    "type": "string"
                  },
                  "profile": {
                    "$ref": "#/$defs/profile"
                  },
                  "prompt": {
                    "$ref": "#/$defs/prompt"
                  },
                  "redirect_uri": {
                    "type": "string"
                  },
                  "scopes": {
                    "oneOf": [
                      {
                        "items": {
                          "type": "string"
                        },
                        "type": "array"
                      },
                      {
                        "type": "string"
                      }
                    ]
                  },
                  "shared_session": {
                    "type": "boolean"
                  },
                  "ui_locales": {
                    "type": "string"
                  },
                  "username_field": {
                    "type": "string"
                  }
                },
                "type": "object"
              },
              "minItems": 1,
              "type": "array"
            },
            "description": {
              "type": "string"
            },
            "device": {
              "additionalProperties": false,
              "properties": {
                "apple_account": {
                  "additionalProperties": false,
                  "properties": {
                    "email": {
                      "type": "string"
                    },
                    "family_name": {
                      "type": "string"
                    },
                    "given_name": {
                      "type": "string"
                    },
                    "private_relay": {
                      "type": "boolean"
                    }
                  },
                  "required": [
                    "email"
                  ],
                  "type": "object"
                },
                "passcode": {
                  "type": "boolean"
                },
                "skew": {
                  "$ref": "#/$defs/duration"
                }
              },
              "type": "object"
            },
            "env": {
              "$ref": "#/$defs/env"
            },
            "issuer": {
              "oneOf": [
                {
                  "type": "string"
                },
                {
                  "additionalProperties": false,
                  "properties": {
                    "acr_values": {
                      "type": "string"
                    },
                    "apple_url": {
                      "type": "string"
                    },
                    "audience": {
                      "type": "string"
                    },
                    "authorization_parameters": {
                      "description": "Other authorization request parameters: a mapping of names to strings, or one form-encoded string.",
                      "oneOf": [
                        {
                          "additionalProperties": {
                            "type": "string"
                          },
                          "type": "object"
                        },
                        {
                          "type": "string"
                        }
                      ]
                    },
                    "client_assertion_audience": {
                      "$ref": "#/$defs/clientAssertionAudience"
                    },
                    "client_auth_method": {
                      "$ref": "#/$defs/clientAuthMethod"
                    },
                    "client_id": {
                      "type": "string"
                    },
                    "client_jwk": {
                      "description": "The private key of private_key_jwt, as a private JWK.",
                      "type": "object"
                    },
                    "client_key_file": {
                      "description": "The private key of private_key_jwt: a file holding a private JWK or a PEM key, relative to the scenario file.",
                      "type": "string"
                    },
                    "client_secret": {
                      "type": "string"
                    },
                    "issuer_suffix": {
                      "type": "string"
                    },
                    "login_hint": {
                      "type": "string"
                    },
                    "max_age": {
                      "oneOf": [
                        {
                          "minimum": 0,
                          "type": "integer"
                        },
                        {
                          "type": "string"
                        }
                      ]
                    },
                    "organization": {
                      "type": "string"
                    },
                    "password_field": {
                      "type": "string"
                    },
                    "post_logout_redirect_uri": {
                      "type": "string"
                    },
                    "prompt": {
                      "$ref": "#/$defs/prompt"
                    },
                    "redirect_uri": {
                      "type": "string"
                    },
                    "scopes": {
                      "oneOf": [
                        {
                          "items": {
                            "type": "string"
                          },
                          "type": "array"
                        },
                        {
                          "type": "string"
                        }
                      ]
                    },
                    "tenant": {
                      "description": "A tenant document, as signinsim serve --tenant reads.",
                      "type": "object"
                    },
                    "ui_locales": {
                      "type": "string"
                    },
                    "url": {
                      "type": "string"
                    },
                    "username_field": {
                      "type": "string"
                    }
                  },
                  "type": "object"
                }
              ]
            },
            "name": {
              "type": "string"
            },
            "profile": {
              "$ref": "#/$defs/profile"
            },
            "browser": {
              "$ref": "#/$defs/browser"
            },
            "seed": {
              "minimum": 0,
              "type": "integer"
            },
            "steps": {
              "items": {
                "$ref": "#/$defs/step"
              },
              "minItems": 1,
              "type": "array"
            },
            "tags": {
              "oneOf": [
                {
                  "items": {
                    "type": "string"
                  },
                  "type": "array"
                },
                {
                  "type": "string"
                }
              ]
            },
            "timeout": {
              "$ref": "#/$defs/duration"
            }
          },
          "required": [
            "name",
            "steps"
          ],
          "title": "SignInSim scenario",
          "type": "object"
        }
        """#
}
