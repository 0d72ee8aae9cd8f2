import Foundation

/// Auth0 Guardian vectors (protocols.md §10.7), each naming its upstream source. LITERAL: copied from the
/// named upstream test or sample; VERIFIED: its signature checked here; DERIVED: computed from literal inputs.
enum GuardianVectors {
    /// GU-URI-1 (LITERAL, auth0/auth0-guardian.js `test/utils/enrollment_uri_helper.test.js`, "when account label
    /// is specified"). Its secret `superSecret` is 11 characters: not whole bytes of base32.
    static let jsURI = "otpauth://totp/issuer%20name:myuser%40gmail.com?secret=superSecret&enrollment_tx_id=aa1%20234"
        + "&issuer=issuer%20name&id=1234&base_url=https%3A%2F%2Fa.guardian.auth0.com&algorithm=sha1&digits=6&counter=0&period=30"
    /// GU-URI-2 (LITERAL, same file, "when only issuer label and otp secret is specified"): a plain TOTP URI.
    static let jsPlainTOTP = "otpauth://totp/issuer%20name?secret=superSecret&issuer=issuer%20name"

    /// GU-BASE (LITERAL, Guardian.swift `GuardianTests/GuardianSpec.swift` "adding path component", the same five in
    /// Guardian.Android `GuardianAPIClientTest.java`): `base_url` → API base.
    static let apiBases: [(String, String)] = [
        ("https://samples.guardian.auth0.com", "https://samples.guardian.auth0.com"),
        ("https://samples.guardian.en.auth0.com", "https://samples.guardian.en.auth0.com"),
        ("https://samples.auth0.com/appliance-mfa", "https://samples.auth0.com/appliance-mfa"),
        ("https://samples.auth0.com", "https://samples.auth0.com/appliance-mfa"),
        ("https://samples.guardian.some.thing.auth0.com", "https://samples.guardian.some.thing.auth0.com/appliance-mfa"),
    ]

    /// GU-PUSH-1 (LITERAL values of Guardian.swift `GuardianTests/NotificationSpec.swift` `payload()`, its `mfa`
    /// dictionary laid out as FCM delivers it on Android: `s` and `l` as JSON strings, as in Guardian.Android
    /// `ParcelableNotificationTest.createPushNotificationPayload`).
    static let iosPush: [String: String] = [
        "dai": "dev_VJGBI87d093cnl03", "txtkn": "random_tx_token", "txlnkid": "tx_VJGBI87d093cnl03",
        "c": "random_challenge", "d": "2015-12-17T19:53:31.000Z", "sh": "samples.auth0.com",
        "s": #"{"b":{"n":"Safari","v":"9.0.3"},"os":{"n":"Mac OS","v":"10.11.3"}}"#,
        "l": #"{"lat":"-34.57115","long":"-58.423297","n":"Palermo, BA, Argentina"}"#,
    ]
    /// GU-PUSH-1's `d`: 1450382011 (the spec's "should have started at date").
    static let iosPushStartedAt = Date(timeIntervalSince1970: 1_450_382_011)

    /// GU-PUSH-2 (LITERAL, Guardian.Android `ParcelableNotificationTest.java` constants and the exact `s`/`l`
    /// strings its `createPushNotificationPayload` writes; the test's `new Date()` fixed here).
    static let androidPush: [String: String] = [
        "sh": "example.com", "txtkn": "TRANSACTION_TOKEN", "dai": "DEVICE_ID", "txlnkid": "TRANSACTION_LINKING_ID",
        "c": "CHALLENGE", "d": "2024-03-01T10:00:00.123Z",
        "s": #"{"b":{"v":"BROWSER_VERSION","n":"BROWSER_NAME"},"os":{"v":"OS_VERSION","n":"OS_NAME"}}"#,
        "l": #"{"n":"LOCATION","lat":"56.87","long":"34.34"}"#,
    ]

    /// GU-JWT-1 (LITERAL, VERIFIED here, Guardian.swift `GuardianTests/JWTSpec.swift` "guardian claims" string
    /// token): a rejection with reason `hacked`, signed by the test key whose public half is
    /// `GuardianTests/Data/guardian-test.public.json` (below).
    static let iosAnswerJWT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJpYXQiOjE1MzI5OTAwNzQsImF1dGgwX2d1YXJkaWFuX3JlYXNvbiI6ImhhY2tlZCIsImF1dGgwX2d1YXJkaWFuX2FjY2VwdGVkIjpmYWxzZSwic3ViIjoiMzgxMzNGM0ItNTY2Mi00MzYxLUIyMTItQkRFQkJDODZDNUZGIiwiYXV0aDBfZ3VhcmRpYW5fbWV0aG9kIjoicHVzaCIsImV4cCI6MTUzMjk5MDE1MCwiYXVkIjoiOUU4QjNGNjYtOTAxRC00QjM2LUJGNkItMTFDRkNBRkMwMUExIiwiaXNzIjoiRUE3RThDMzAtREQ4Ny00M0IwLTg0MEEtMzc2MTUzMkU2ODkzIn0.g28ieoHqXkYlqZ8clIlIsPac04x9a8c0XEkFzvr17sOfnZUxnswUXm2J8Rf7syZ9zs_nW5WPS4o357FSAb1DA-CYQ_tzmFVE3rEqZ_KT0n2tnxMNw6G_fULIivdpan17gOb3jTjyDmfQBcodIhuOrglPDiA-AUNYEdqE8KYgNLBn0hRhfVw2L7PnQYSwdu-hAZgiIqqCSLQ5BdalyKk87LALoXpn5RH_CWbEjU6NSUb3h62gI7aIZpwqCww0ehp--IUBj-NBmFB4fFNOYOKC38RxV2bTIyK1QbwLmvv02Hj5WiVBt-KzZ8xAptmxWwsG7axYTYRYpFqbi6pkiWUzUw"
    /// The public test key (LITERAL, `guardian-test.public.json`); its `n` keeps the SDKs' leading zero byte.
    static let iosTestKey = (
        n: "ALu7GAWPGbUUf4TQSQgXOkafVoPBjVGEqXVKfZQCbLAuxF6OoytC1uSJIqRXev_GmWGdoJWSSBtKIeFh2hORsc6TDtA_xnFPXVB4HJ1ctJGt-jtVu0ctwJK_4qfN9fFFo5MQ21Q2koGnqt5_bDgHItu5CATyXICut5ztUBWF32Fl-18salPCaLCi9uzNHRzhRDloWQO-8V5VApWLrRadYQcZ7lZn2Jv562f8yylJiqmDDnTVw2AkKRYCX9dGdGGEboK-zzmupnHdhiQ2h6kdXrWg6cFO8I01_4h4hTOBBJOLTVkdqNv2scAEtp3008xo_jVot_vcFzrx-ImS84StnhM",
        e: "AQAB")

    /// GU-ENROLL-REPLY (LITERAL, abbaspour/guardian-bash `readme.md`, "POST /appliance-mfa/api/enroll" response).
    static let enrollmentReply = #"""
        {"id": "dev_ztaIUOx5Z3zeRimt", "url": "https://TENANT.auth0.com", "issuer": "TENANT",
         "user_id": "auth0|5fadc2e53f6a96006f998832", "token": "191YCA4wYITisPHHSGrgZOiJvADmIA...",
         "totp": {"secret": "GRXC4KC5KUYWCZDDLVFFIWB6IB2UKLBF", "algorithm": "SHA1", "digits": 6, "period": 30}}
        """#
}
