import Device
import Issuer
import JOSE
public import JSON
import SignInSDK
import WebAuthSession

/// The JSON Schema (draft 2020-12) of scenario and flow files, as checked in at
/// `scenarios/scenario.schema.json` for editors (a test keeps the two identical). It describes
/// the shape; `ScenarioLoader` checks the rest (includes, app ids, value ranges) and reports
/// every problem.
///
/// Made from three parts: the hand-written `shape`; the closed sets (profiles, faults, error
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

    /// Every closed set a scenario names, by its `$defs` name.
    static var closedSets: [String: JSONValue] {
        let callOutcome = choice(CallOutcome.names, "none (success) or an SDK error code.")
        return [
            "fault": choice(
                IssuerFault.allCases.map(\.rawValue),
                "An issuer fault: an RP conformance id or a transport fault."),
            "appPhase": choice(AppPhase.allCases.map(\.rawValue), "The app's lifecycle phase."),
            "callOutcome": callOutcome,
            "callOutcomes": .object([
                "description":
                    "The outcomes allowed, none meaning success: one, a list, or several separated by spaces.",
                "anyOf": [
                    .object(["pattern": .string(joined(CallOutcome.names, by: " +")), "type": "string"]),
                    .object([
                        "items": .object(["$ref": "#/$defs/callOutcome"]), "minItems": 1, "type": "array",
                    ]),
                ],
            ]),
            "profile": .object([
                "description": .string(
                    "The SDK behaviour profile: one of " + BehaviorProfile.names.joined(separator: ", ")
                        + ", or several joined with +."),
                "pattern": .string(joined(BehaviorProfile.names, by: #" *\+ *"#)), "type": "string",
            ]),
            "appleCredentialState": choice(
                AppleCredentialStateName.allCases.map(\.rawValue), "An Apple ID credential state."),
            "refreshTokenVerdict": choice(
                RefreshTokenVerdict.allCases.map(\.rawValue),
                "What the refresh tokens the device received are at the issuer."),
            "consent": choice(
                WebUserScript.ConsentDecision.allCases.map(\.rawValue), "The answer on the consent page."),
            "interruptionPoint": choice(
                WebUserScript.Point.allCases.map(\.rawValue), "Where in the web sheet the person stops."),
            "endpoint": choice(StepDecoder.endpoints, "An endpoint of the issuer, by its role."),
            "signingAlgorithm": choice(
                JWSAlgorithm.allCases.map(\.rawValue), "A signing algorithm of the issuer's keys."),
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

    /// The hand-written shape: every step, key and value type. Closed sets are `$ref`s that
    /// `closedSets` fills in from their declarations.
    private static let shape = #"""
        {
          "$defs": {
            "armedRequests": {
              "description": "The next requests a network condition applies to: a count, or {count, path}.",
              "oneOf": [
                {
                  "minimum": 1,
                  "type": "integer"
                },
                {
                  "$ref": "#/$defs/requestMatch"
                }
              ]
            },
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
            },
            "requestMatch": {
              "additionalProperties": false,
              "description": "How many requests (at least 1), and only those to path when it is given.",
              "properties": {
                "count": {
                  "minimum": 1,
                  "type": "integer"
                },
                "path": {
                  "type": "string"
                }
              },
              "type": "object"
            },
            "requests": {
              "additionalProperties": false,
              "properties": {
                "at_least": {
                  "minimum": 0,
                  "type": "integer"
                },
                "count": {
                  "minimum": 0,
                  "type": "integer"
                },
                "endpoint": {
                  "$ref": "#/$defs/endpoint"
                },
                "headers": {
                  "additionalProperties": {
                    "description": "A value to equal, or present / absent."
                  },
                  "type": "object"
                },
                "method": {
                  "type": "string"
                },
                "params": {
                  "additionalProperties": {
                    "description": "A value to equal, or present / absent."
                  },
                  "type": "object"
                },
                "path": {
                  "type": "string"
                }
              },
              "type": "object"
            },
            "step": {
              "oneOf": [
                {
                  "oneOf": [
                    {
                      "const": "install"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "install": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "install"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "launch"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "launch": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "launch"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "prewarm"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "prewarm": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "prewarm"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "foreground"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "foreground": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "foreground"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "resignActive"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "resignActive": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "resignActive"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "background"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "background": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "background"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "terminate"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "terminate": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "terminate"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "uninstall"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "uninstall": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "uninstall"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "reinstall"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "reinstall": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "reinstall"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "const": "reboot"
                },
                {
                  "const": "lock"
                },
                {
                  "const": "unlock"
                },
                {
                  "additionalProperties": false,
                  "description": "Moves the world's time.",
                  "properties": {
                    "advance": {
                      "$ref": "#/$defs/duration"
                    }
                  },
                  "required": [
                    "advance"
                  ],
                  "type": "object"
                },
                {
                  "additionalProperties": false,
                  "description": "Sets how far the device clock is ahead of the world (negative: behind).",
                  "properties": {
                    "skew": {
                      "$ref": "#/$defs/duration"
                    }
                  },
                  "required": [
                    "skew"
                  ],
                  "type": "object"
                },
                {
                  "description": "The user stops using Apple ID with the app (embedded Apple); a running app is notified.",
                  "oneOf": [
                    {
                      "const": "appleRevokeConsent"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "appleRevokeConsent": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "appleRevokeConsent"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "additionalProperties": false,
                  "description": "The credential state of the phone's Apple ID for the app changes at Apple (embedded Apple).",
                  "properties": {
                    "appleCredential": {
                      "additionalProperties": false,
                      "properties": {
                        "app": {
                          "type": "string"
                        },
                        "state": {
                          "$ref": "#/$defs/appleCredentialState"
                        },
                        "team": {
                          "description": "With state transferred: the team the app moves to.",
                          "type": "string"
                        }
                      },
                      "required": [
                        "state"
                      ],
                      "type": "object"
                    }
                  },
                  "required": [
                    "appleCredential"
                  ],
                  "type": "object"
                },
                {
                  "additionalProperties": false,
                  "properties": {
                    "network": {
                      "additionalProperties": false,
                      "properties": {
                        "captive_portal": {
                          "type": "boolean"
                        },
                        "fail_next": {
                          "$ref": "#/$defs/armedRequests"
                        },
                        "latency_ms": {
                          "minimum": 0,
                          "type": "integer"
                        },
                        "lose_responses": {
                          "$ref": "#/$defs/armedRequests"
                        },
                        "offline": {
                          "type": "boolean"
                        },
                        "resend": {
                          "$ref": "#/$defs/armedRequests"
                        },
                        "reset": {
                          "type": "boolean"
                        },
                        "status": {
                          "additionalProperties": false,
                          "properties": {
                            "code": {
                              "maximum": 599,
                              "minimum": 100,
                              "type": "integer"
                            },
                            "count": {
                              "minimum": 1,
                              "type": "integer"
                            },
                            "path": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "code"
                          ],
                          "type": "object"
                        }
                      },
                      "type": "object"
                    }
                  },
                  "required": [
                    "network"
                  ],
                  "type": "object"
                },
                {
                  "oneOf": [
                    {
                      "const": "appleAccount"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "appleAccount": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
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
                            }
                          ]
                        }
                      },
                      "required": [
                        "appleAccount"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "additionalProperties": false,
                  "description": "Embedded issuer only: one of fault, clear_faults, rotate_keys, user, clock.",
                  "properties": {
                    "issuer": {
                      "additionalProperties": false,
                      "properties": {
                        "clear_faults": {
                          "type": "boolean"
                        },
                        "clock": {
                          "additionalProperties": false,
                          "description": "Moves the issuer's clock (POST /_admin/clock): advance by a duration, or set the offset from its start.",
                          "maxProperties": 1,
                          "minProperties": 1,
                          "properties": {
                            "advance": {
                              "$ref": "#/$defs/duration"
                            },
                            "offset": {
                              "$ref": "#/$defs/duration"
                            }
                          },
                          "type": "object"
                        },
                        "count": {
                          "minimum": 1,
                          "type": "integer"
                        },
                        "delay_ms": {
                          "minimum": 0,
                          "type": "integer"
                        },
                        "error": {
                          "description": "oauth-error: the error code answered.",
                          "type": "string"
                        },
                        "error_description": {
                          "description": "oauth-error: the error_description answered.",
                          "type": "string"
                        },
                        "fault": {
                          "$ref": "#/$defs/fault"
                        },
                        "path": {
                          "type": "string"
                        },
                        "rotate_keys": {
                          "oneOf": [
                            {
                              "type": "boolean"
                            },
                            {
                              "$ref": "#/$defs/signingAlgorithm"
                            }
                          ]
                        },
                        "status": {
                          "description": "http-html-error and oauth-error: the HTTP status answered.",
                          "maximum": 599,
                          "minimum": 100,
                          "type": "integer"
                        },
                        "user": {
                          "$ref": "#/$defs/user"
                        }
                      },
                      "type": "object"
                    }
                  },
                  "required": [
                    "issuer"
                  ],
                  "type": "object"
                },
                {
                  "additionalProperties": false,
                  "description": "Branches started together: each a step, or a list of steps run in order.",
                  "properties": {
                    "parallel": {
                      "items": {
                        "oneOf": [
                          {
                            "$ref": "#/$defs/step"
                          },
                          {
                            "items": {
                              "$ref": "#/$defs/step"
                            },
                            "minItems": 1,
                            "type": "array"
                          }
                        ]
                      },
                      "minItems": 2,
                      "type": "array"
                    }
                  },
                  "required": [
                    "parallel"
                  ],
                  "type": "object"
                },
                {
                  "additionalProperties": false,
                  "properties": {
                    "runFlow": {
                      "oneOf": [
                        {
                          "type": "string"
                        },
                        {
                          "additionalProperties": false,
                          "properties": {
                            "env": {
                              "$ref": "#/$defs/env"
                            },
                            "file": {
                              "type": "string"
                            },
                            "when": {
                              "oneOf": [
                                {
                                  "type": "string"
                                },
                                {
                                  "type": "boolean"
                                }
                              ]
                            }
                          },
                          "required": [
                            "file"
                          ],
                          "type": "object"
                        }
                      ]
                    }
                  },
                  "required": [
                    "runFlow"
                  ],
                  "type": "object"
                },
                {
                  "additionalProperties": false,
                  "properties": {
                    "expect": {
                      "additionalProperties": false,
                      "properties": {
                        "app": {
                          "type": "string"
                        },
                        "app_phase": {
                          "$ref": "#/$defs/appPhase"
                        },
                        "apple_credential": {
                          "$ref": "#/$defs/appleCredentialState"
                        },
                        "claims": {
                          "additionalProperties": {
                            "description": "A value to equal, or present / absent."
                          },
                          "type": "object"
                        },
                        "cookies": {
                          "additionalProperties": false,
                          "properties": {
                            "count": {
                              "minimum": 0,
                              "type": "integer"
                            },
                            "name": {
                              "type": "string"
                            }
                          },
                          "type": "object"
                        },
                        "error": {
                          "oneOf": [
                            {
                              "$ref": "#/$defs/callOutcome"
                            },
                            {
                              "type": "null"
                            }
                          ]
                        },
                        "issuer_refresh_tokens": {
                          "$ref": "#/$defs/refreshTokenVerdict"
                        },
                        "issuer_user": {
                          "properties": {
                            "email": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "email"
                          ],
                          "type": "object"
                        },
                        "keychain": {
                          "oneOf": [
                            {
                              "minimum": 0,
                              "type": "integer"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "items": {
                                  "minimum": 0,
                                  "type": "integer"
                                }
                              },
                              "required": [
                                "items"
                              ],
                              "type": "object"
                            }
                          ]
                        },
                        "login_forms": {
                          "description": "How many login forms the person has submitted in the app's web sheets (retries included), whatever path the issuer's form posts to.",
                          "minimum": 0,
                          "type": "integer"
                        },
                        "refresh_token": {
                          "enum": [
                            "present",
                            "absent",
                            true,
                            false
                          ]
                        },
                        "requests": {
                          "oneOf": [
                            {
                              "$ref": "#/$defs/requests"
                            },
                            {
                              "items": {
                                "$ref": "#/$defs/requests"
                              },
                              "type": "array"
                            }
                          ]
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
                        "session": {
                          "enum": [
                            "present",
                            "absent",
                            true,
                            false
                          ]
                        },
                        "signed_out_at_issuer": {
                          "description": "Whether the app's last signOut has evidence that the issuer ended its session: the post-logout redirect came back with the state sent.",
                          "type": "boolean"
                        },
                        "token_type": {
                          "type": "string"
                        }
                      },
                      "type": "object"
                    }
                  },
                  "required": [
                    "expect"
                  ],
                  "type": "object"
                },
                {
                  "additionalProperties": false,
                  "description": "Waits (real time, at most 10 s) until the app's sheet is presented or closed, or the device has sent count requests to path.",
                  "properties": {
                    "wait": {
                      "additionalProperties": false,
                      "properties": {
                        "app": {
                          "type": "string"
                        },
                        "requests": {
                          "$ref": "#/$defs/requestMatch"
                        },
                        "sheet": {
                          "enum": [
                            "presented",
                            "closed"
                          ]
                        }
                      },
                      "type": "object"
                    }
                  },
                  "required": [
                    "wait"
                  ],
                  "type": "object"
                },
                {
                  "oneOf": [
                    {
                      "const": "configure"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "configure": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "configure"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "signIn"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "signIn": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "abandon": {
                                  "$ref": "#/$defs/interruptionPoint"
                                },
                                "app": {
                                  "type": "string"
                                },
                                "cancel": {
                                  "$ref": "#/$defs/interruptionPoint"
                                },
                                "consent": {
                                  "$ref": "#/$defs/consent"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                },
                                "fill": {
                                  "additionalProperties": {
                                    "type": "string"
                                  },
                                  "type": "object"
                                },
                                "login_hint": {
                                  "type": "string"
                                },
                                "max_age": {
                                  "minimum": 0,
                                  "type": "integer"
                                },
                                "password": {
                                  "type": "string"
                                },
                                "prompt": {
                                  "type": "string"
                                },
                                "retry": {
                                  "description": "What is typed when the login form comes back after a refused attempt, one entry per attempt.",
                                  "items": {
                                    "additionalProperties": false,
                                    "properties": {
                                      "password": {
                                        "type": "string"
                                      },
                                      "username": {
                                        "type": "string"
                                      }
                                    },
                                    "type": "object"
                                  },
                                  "minItems": 1,
                                  "type": "array"
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
                                "username": {
                                  "type": "string"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "signIn"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "additionalProperties": false,
                  "properties": {
                    "handleRedirect": {
                      "oneOf": [
                        {
                          "type": "string"
                        },
                        {
                          "additionalProperties": false,
                          "properties": {
                            "app": {
                              "type": "string"
                            },
                            "error": {
                              "$ref": "#/$defs/callOutcomes"
                            },
                            "url": {
                              "type": "string"
                            }
                          },
                          "required": [
                            "url"
                          ],
                          "type": "object"
                        }
                      ]
                    }
                  },
                  "required": [
                    "handleRedirect"
                  ],
                  "type": "object"
                },
                {
                  "oneOf": [
                    {
                      "const": "getSession"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "getSession": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "getSession"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "renewSession"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "renewSession": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "renewSession"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "userInfo"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "userInfo": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "userInfo"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "getAccessToken"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "getAccessToken": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                },
                                "force": {
                                  "type": "boolean"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "getAccessToken"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "signOut"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "signOut": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "end_session": {
                                  "type": "boolean"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "signOut"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "signInWithApple"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "signInWithApple": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "cancel": {
                                  "type": "boolean"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                },
                                "nonce": {
                                  "type": "string"
                                },
                                "scopes": {
                                  "items": {
                                    "enum": [
                                      "name",
                                      "email"
                                    ]
                                  },
                                  "type": "array"
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "signInWithApple"
                      ],
                      "type": "object"
                    }
                  ]
                },
                {
                  "oneOf": [
                    {
                      "const": "getCredentialState"
                    },
                    {
                      "additionalProperties": false,
                      "properties": {
                        "getCredentialState": {
                          "oneOf": [
                            {
                              "type": "null"
                            },
                            {
                              "additionalProperties": false,
                              "properties": {
                                "app": {
                                  "type": "string"
                                },
                                "error": {
                                  "$ref": "#/$defs/callOutcomes"
                                },
                                "state": {
                                  "$ref": "#/$defs/appleCredentialState",
                                  "description": "The credential state the call must return."
                                }
                              },
                              "type": "object"
                            }
                          ]
                        }
                      },
                      "required": [
                        "getCredentialState"
                      ],
                      "type": "object"
                    }
                  ]
                }
              ]
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
                    "description": "The aud of a private_key_jwt assertion: the issuer identifier (the default) or the token endpoint URL.",
                    "oneOf": [
                      {
                        "enum": [
                          "",
                          "issuer",
                          "token_endpoint"
                        ]
                      },
                      {
                        "description": "A ${VARIABLE} reference, substituted when the scenario is loaded.",
                        "pattern": "\\$\\{",
                        "type": "string"
                      }
                    ]
                  },
                  "client_auth_method": {
                    "description": "How the client authenticates at the token endpoint; empty or absent: chosen from its credentials and discovery.",
                    "oneOf": [
                      {
                        "enum": [
                          "",
                          "client_secret_basic",
                          "client_secret_post",
                          "private_key_jwt",
                          "none"
                        ]
                      },
                      {
                        "description": "A ${VARIABLE} reference, substituted when the scenario is loaded.",
                        "pattern": "\\$\\{",
                        "type": "string"
                      }
                    ]
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
                    "description": "prompt values separated by spaces, or omit to send none; empty or absent: consent when the scopes include offline_access.",
                    "type": "string"
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
                      "description": "The aud of a private_key_jwt assertion: the issuer identifier (the default) or the token endpoint URL.",
                      "oneOf": [
                        {
                          "enum": [
                            "",
                            "issuer",
                            "token_endpoint"
                          ]
                        },
                        {
                          "description": "A ${VARIABLE} reference, substituted when the scenario is loaded.",
                          "pattern": "\\$\\{",
                          "type": "string"
                        }
                      ]
                    },
                    "client_auth_method": {
                      "description": "How the client authenticates at the token endpoint; empty or absent: chosen from its credentials and discovery.",
                      "oneOf": [
                        {
                          "enum": [
                            "",
                            "client_secret_basic",
                            "client_secret_post",
                            "private_key_jwt",
                            "none"
                          ]
                        },
                        {
                          "description": "A ${VARIABLE} reference, substituted when the scenario is loaded.",
                          "pattern": "\\$\\{",
                          "type": "string"
                        }
                      ]
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
                      "description": "prompt values separated by spaces, or omit to send none; empty or absent: consent when the scopes include offline_access.",
                      "type": "string"
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
