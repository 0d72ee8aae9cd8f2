import Foundation
@testable import PushAgentCore

/// protocols.md §1.7. Each constant names the upstream test it is copied from (LITERAL) or says DERIVED when it was
/// computed from literal inputs (recomputed independently with Python's hmac/hashlib).
enum FRVectors {
    // FR-URI-1 — ForgeRock/forgerock-android-sdk forgerock-authenticator/src/test/java/org/forgerock/android/auth/PushParserTest.java
    static let uri1 = "pushauth://push/forgerock:user?a=aHR0cDovL2Rldi5vcGVuYW0uZXhhbXBsZS5jb206ODA4MS9vcGVuYW0vanNvbi9kZXYvcHVzaC9zbnMvbWVzc2FnZT9fYWN0aW9uPWF1dGhlbnRpY2F0ZQ&b=519387&r=aHR0cDovL2Rldi5vcGVuYW0uZXhhbXBsZS5jb206ODA4MS9vcGVuYW0vanNvbi9kZXYvcHVzaC9zbnMvbWVzc2FnZT9fYWN0aW9uPXJlZ2lzdGVy&s=b3uYLkQ7dRPjBaIzV0t_aijoXRgMq-NP5AwVAvRfa_E&c=9giiBAdUHjqpo0XE4YdZ7pRlv0hrQYwDz8Z1wwLLbkg&l=YW1sYmNvb2tpZT0wMQ&m=REGISTER:8be951c6-af83-438d-8f74-421bd18650421570561063169&issuer=Rm9yZ2VSb2Nr"

    // FR-URI-2 — same file, testShouldParseMfaUri
    static let uri2 = "mfauth://totp/ForgeRock:demo?a=aHR0cHM6Ly9mb3JnZXJvY2suZXhhbXBsZS5jb20vb3BlbmFtL2pzb24vcHVzaC9zbnMvbWVzc2FnZT9fYWN0aW9uPWF1dGhlbnRpY2F0ZQ&image=https://img.favpng.com/9/25/24/computer-icons-instagram-logo-sticker-png-favpng-LZmXr3KPyVbr8LkxNML458QV3.jpg&b=ff00ff&r=aHR0cHM6Ly9mb3JnZXJvY2suZXhhbXBsZS5jb20vb3BlbmFtL2pzb24vcHVzaC9zbnMvbWVzc2FnZT9fYWN0aW9uPXJlZ2lzdGVy&s=ryJkqNRjXYd_nX523672AX_oKdVXrKExq-VjVeRKKTc&c=Daf8vrc8onKu-dcptwCRS9UHmdui5u16vAdG2HMU4w0&l=YW1sYmNvb2tpZT0wMQ==&m=9326d19c-4d08-4538-8151-f8558e71475f1464361288472&policies=eyJiaW9tZXRyaWNBdmFpbGFibGUiOiB7IH0sImRldmljZVRhbXBlcmluZyI6IHsic2NvcmUiOiAwLjh9fQ&digits=6&secret=R2PYFZRISXA5L25NVSSYK2RQ6E======&period=30&issuer=Rm9yZ2VSb2Nr"

    // FR-HMAC-1 — forgerock-android-sdk .../PushResponderTest.java testShouldGenerateChallengeResponseCorrectly
    static let hmac1Response = "Df02AwA3Ra+sTGkL5+QvkEtN3eLdZiFmL5nxAV1m0k8="

    // FR-MSG-1 — ForgeRock/forgerock-ios-sdk FRAuthenticator/FRAuthenticatorTests/UnitTests/Push/FRAPushHandlerTests.swift test_04
    static let msg1URI = "pushauth://push/forgerock:pushtestuser?a=aHR0cDovL29wZW5hbS5leGFtcGxlLmNvbTo4MDgxL29wZW5hbS9qc29uL3B1c2gvc25zL21lc3NhZ2U_X2FjdGlvbj1hdXRoZW50aWNhdGU&b=519387&r=aHR0cDovL29wZW5hbS5leGFtcGxlLmNvbTo4MDgxL29wZW5hbS9qc29uL3B1c2gvc25zL21lc3NhZ2U_X2FjdGlvbj1yZWdpc3Rlcg&s=-3xGWaKjfls_ZHFRnGeIvFHn--GxzjQyg1RVG_Pak1s&c=esDK4G8eYce0_Gdf4p9XGGg2cIYYoxf6CTlL_O_1aF8&l=YW1sYmNvb2tpZT0wMQ&m=REGISTER:593b6a92-f5c1-4ac0-a94a-a63e05451dd51589138620791&issuer=Rm9yZ2VSb2NrU2FuZGJveA"
    static let msg1Secret = LenientBase64.decode("-3xGWaKjfls_ZHFRnGeIvFHn--GxzjQyg1RVG_Pak1s")!
    static let msg1UID = "759ACE9D-C64B-43E6-981D-97F7B54C3B01"
    static let msg1MessageId = "AUTHENTICATE:e29b50b6-bf3d-4993-aa84-144d09fe19cf1589138699819"
    static let msg1 = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoibFltZmVQUzllYisrMWtpbzJJSUpBdHdVV1dDY1pDcytCU2dLUGpaS04yOD0iLCJ0IjoiMTIwIiwidSI6Ijc1OUFDRTlELUM2NEItNDNFNi05ODFELTk3RjdCNTRDM0IwMSIsImwiOiJZVzFzWW1OdmIydHBaVDB3TVE9PSJ9.Kflihn5sCXFQ3TDWe8GBayCinguSLs9nsu4j4JxddtY"
    static let msg1Challenge = "lYmfePS9eb++1kio2IIJAtwUWWCcZCs+BSgKPjZKN28="
    static let msg1RegistrationResponse = "GegEYE/KfWEqf6+vFjQ4E+xpe1EZDlZasKxxa1mdbys="  // DERIVED
    static let msg1AcceptResponse = "lfqHCgODYjajPO5xuZgwQxHJXjDGoE58l48DGgAjX/E="  // DERIVED

    // FR-MSG-2 — same file, test_14 (VERIFIED)
    static let msg2 = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoibFltZmVQUzllYisrMWtpbzJJSUpBdHdVV1dDY1pDcytCU2dLUGpaS04yOD0iLCJ0IjoiMTIwIiwidSI6Ijc1OUFDRTlELUM2NEItNDNFNi05ODFELTk3RjdCNTRDM0IwMSIsImwiOiJZVzFzWW1OdmIydHBaVDB3TVE9PSIsImQiOiJ1c2VyMSJ9.24GeB5p2tpHfgIIqtdAsGtRIb-L9kK3OBwFyX-ksHGg"

    /// test_28..31 — forgerock-ios-sdk FRAuthenticator/FRAuthenticatorTests/E2ETests/AuthenticatorManager/AuthenticatorManagerTests.swift
    /// (VERIFIED): (token, challenge, DERIVED accept response), all under the FR-MSG-1 secret.
    static let managerMessages: [(token: String, challenge: String, response: String)] = [
        ("eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoicGtJZm1rZDFSbDNJWnFhSmNZSUhLUzJic2wvZnhiWGNPYTEvNE83Z2pMTT0iLCJ0IjoiMTIwIiwidSI6Ijc1OUFDRTlELUM2NEItNDNFNi05ODFELTk3RjdCNTRDM0IwMSIsImwiOiJZVzFzWW1OdmIydHBaVDB3TVE9PSJ9.o_F0jvSiQlcpInyexi5ED4pjKNHxoHknPIsowYbpyYQ",
         "pkIfmkd1Rl3IZqaJcYIHKS2bsl/fxbXcOa1/4O7gjLM=", "96Gzel+SRUs06fXVIM36qLk8v10q3ZJzv+vytmaPIRs="),
        ("eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoiK2ZreklzbG1PN01GcHYzZEppQVY4Sm5yRzFra0hUdDA2NkRaaEcxamJwbz0iLCJ0IjoiMTIwIiwidSI6Ijc1OUFDRTlELUM2NEItNDNFNi05ODFELTk3RjdCNTRDM0IwMSIsImwiOiJZVzFzWW1OdmIydHBaVDB3TVE9PSJ9.1zuEgWy1gN7QAaJscGKgAqGxt_58Ad5HAZjOe8PLMBo",
         "+fkzIslmO7MFpv3dJiAV8JnrG1kkHTt066DZhG1jbpo=", "P3bGxvwiZyP6l1WJ1/bJiD947T7A1WfxbQAoLfscZHI="),
        ("eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoiTVkzR01Fbkl6M3EweHFkR0wrMUdBaWNKdGxFVkhGenRsaVpTS1ZqdEZpaz0iLCJ0IjoiMTIwIiwidSI6Ijc1OUFDRTlELUM2NEItNDNFNi05ODFELTk3RjdCNTRDM0IwMSIsImwiOiJZVzFzWW1OdmIydHBaVDB3TVE9PSJ9._cRsNnhNbHJ-AUnFTnW-jd6m4u7te1mIJXR9AHJUQhE",
         "MY3GMEnIz3q0xqdGL+1GAicJtlEVHFztliZSKVjtFik=", "NkxvHBAHbfplaklGt41qI/yhcW6luf3/HME1MujBM8k="),
    ]

    // FR-MSG-3 — forgerock-ios-sdk FRAuthenticator/FRAuthenticatorTests/UnitTests/JWT/FRCompactJWTTests.swift test_10
    // (AM-shaped; no secret is public, so parse-only).
    static let msg3Challenge = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJwIjoieyAgfSIsImMiOiJ2TGhoaW9FNTIxVlcyYmNsNUM2aktERGp1bXk3Um01d2NwVkpYQllUY2ZFPSIsInQiOiIyMCIsInUiOiI0NkQ2QkUzQi02NTEyLTQ4QTQtODY4Ni1DQUIxQTkxNTZCNDQiLCJpIjoiMTY2Nzk0MDI3NDk0MiIsImsiOiJjaGFsbGVuZ2UiLCJsIjoiWVcxc1ltTnZiMnRwWlQwd01RPT0iLCJtIjoiRGlkIHlvdSB0cnkgdG8gbG9naW4_IiwibiI6IjUwLDYyLDg5In0.GXCMwE1VJTC1zVzLfBcSeiGEfPiY5i13lrtf6Fpwz6w"
    static let msg3Default = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJwIjoieyAgfSIsImMiOiJqK0NBWlhrUnlRdEdxdHljYmFMc3EwTWtjcFJZbU9SSzRhUzgyQWNlTWNrPSIsInQiOiIyMCIsInUiOiI0NkQ2QkUzQi02NTEyLTQ4QTQtODY4Ni1DQUIxQTkxNTZCNDQiLCJpIjoiMTY2Nzk0MTA5MTMwNiIsImsiOiJkZWZhdWx0IiwibCI6IllXMXNZbU52YjJ0cFpUMHdNUT09IiwibSI6IkRpZCB5b3UgdHJ5IHRvIGxvZ2luPyJ9.L2WjxnumzIgA9gpNN8p7onip0As5Rytb0RuOW8_sDWI"
    static let msg3UID = "46D6BE3B-6512-48A4-8686-CAB1A9156B44"

    // FR-JWT-1 — FRCompactJWTTests.swift test_02/03 (valid HS256) and test_06 (HS384 header)
    static let jwt1Secret = "cXdlcnR5dWlvcGFzZGZnaGprbHp4Y3Zibm0xMjM0NTY="
    static let jwt1 = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJGb3JnZVJvY2siLCJpYXQiOjE1ODg2MjkwNzAsImV4cCI6MTYyMDE2NTA3MCwiYXVkIjoid3d3LmZvcmdlcm9jay5jb20iLCJzdWIiOiJqYW1lcy5nb0Bmb3JnZXJvY2suY29tIn0.cjyALUH79vmz9DU6zJsUFGiZyO_qkcnfyMmUrRF2Egw"
    static let hs384Header = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzM4NCJ9"

    // FR-NEG — FRAPushHandlerTests.swift test_05..10. Their key is not public (iOS rejects them before any
    // signature check), so they are used with `peek` as they are, and re-signed under the FR-MSG-1 key for `verify`.
    static let negMessageId = "AUTHENTICATE:f7234068-7217-4d40-8184-58cb976b7d461588712419081"
    static let negMissingMessageId = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoid3h3QWdtTmxWV1NvSSsxaTVjZUhEZFFkaEgxMTkrNE85S0N0amREYm9KST0iLCJ0IjoiMTIwIiwidSI6IkNCNENBN0I3LTQ0N0QtNEY4Ri1BODI5LTVCMUIxNTZEQzAwMSIsImwiOiJZVzFzWW1OdmIydHBaVDB3TVE9PSJ9.RuwhTrgrOvDj-UUFOkyhZTKYkUpqa5kMEWYRCTQWNh0"  // test_05
    static let negMissingL = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoid3h3QWdtTmxWV1NvSSsxaTVjZUhEZFFkaEgxMTkrNE85S0N0amREYm9KST0iLCJ0IjoiMTIwIiwidSI6IkNCNENBN0I3LTQ0N0QtNEY4Ri1BODI5LTVCMUIxNTZEQzAwMSJ9.6CHMdmN0WRt-FmPzsdgVFch030bfFfSwjgBRikW94XQ"  // test_07
    static let negMissingU = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoid3h3QWdtTmxWV1NvSSsxaTVjZUhEZFFkaEgxMTkrNE85S0N0amREYm9KST0iLCJ0IjoiMTIwIiwibCI6IllXMXNZbU52YjJ0cFpUMHdNUT09In0.GYdmtnA8r0nBzmg2ZSnlENyr0Pjoi8uEnRra_Cu-nh0"  // test_08
    static let negMissingT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJjIjoid3h3QWdtTmxWV1NvSSsxaTVjZUhEZFFkaEgxMTkrNE85S0N0amREYm9KST0iLCJ1IjoiQ0I0Q0E3QjctNDQ3RC00RjhGLUE4MjktNUIxQjE1NkRDMDAxIiwibCI6IllXMXNZbU52YjJ0cFpUMHdNUT09In0.Jzdw5Wf59Ow1m8zsTRVRxy5iiOgACVu0V4P9MDoFneA"  // test_09
    static let negMissingC = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJ0IjoiMTIwIiwidSI6IkNCNENBN0I3LTQ0N0QtNEY4Ri1BODI5LTVCMUIxNTZEQzAwMSIsImwiOiJZVzFzWW1OdmIydHBaVDB3TVE9PSJ9.jMiSNb8fMvA0kDWK1L1eePQo6T8zsjeYEHMEAlo_awk"  // test_10
    static let negUID = "CB4CA7B7-447D-4F8F-A829-5B1B156DC001"

    // FR-AUTH-REQ — forgerock-ios-sdk FRAuthenticator/FRAuthenticatorTests/UnitTests/Push/PushNotificationAuthenticationTests.swift test_03/04/08
    static let authSecret = LenientBase64.decode("O9JHEGfOsaZqc5JT0DHM5hYFA8jofohw5vAP0EpG4JU")!
    static let authMessageId = "AUTHENTICATE:8af40ee6-8fa0-4bdd-949c-1dd29d5e55931588721432364"
    static let authUID = "32E28B44-153C-4BDE-9FDB-38069BC23D9C"
    static let authChallenge = "6ggPLysKJ6wSwBsQFtPclHQKebpOTMNwHP53kZxIGE4="
    static let authResponse = "35mXeMEs7GTeiqkfJlzaKTgbYira397gWVK4i/Mu2hI="  // DERIVED
    static let authRegistrationChallenge = "75OQ3FXmzV99TPf0ihevFfB0s43XsxQ747sY6BopgME"
    static let authRegistrationResponse = "y8zfJ7klOQj8vs7jIq/L5J9gqOYD1g9kaNm6ikJpqkw="  // DERIVED
}

/// Test helpers for JWTs built by hand (so a test controls every byte of the header and payload).
enum TestJWT {
    /// `header.payload` signed with HMAC-SHA256 under `key` (ForgeRockChallenge.response is exactly base64(HMAC-SHA256)).
    static func sign(header: String, payload: String, key: Data) -> String {
        let mac = ForgeRockChallenge.response(secret: key, challenge: Data("\(header).\(payload)".utf8))
        return "\(header).\(payload).\(LenientBase64.decode(mac)!.base64URLUnpadded)"
    }

    /// The same header and payload bytes as `token`, signed under `key`.
    static func resign(_ token: String, key: Data) -> String {
        let parts = token.split(separator: ".")
        return sign(header: String(parts[0]), payload: String(parts[1]), key: key)
    }

    static let hs256Header = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9"

    static func payloadSegment(_ json: String) -> String { Data(json.utf8).base64URLUnpadded }

    /// The JWT inside an OutboundRequest's `{"messageId", "jwt"}` body.
    static func body(of request: OutboundRequest) throws -> ForgeRockMessageBody {
        try JSONDecoder().decode(ForgeRockMessageBody.self, from: request.body)
    }
}
