import Foundation
@testable import PushAgentCore
import SwiftProtobuf
import Testing

/// Registration's requests and the reading of Google's replies, against the replies recorded in firebase-messaging's
/// tests/fixtures (values redacted there; shapes are Google's).
struct FCMRegistrationTests {
    static let app = FirebaseAppProfile(name: "example", projectID: "example-mfa", apiKey: "AIzaSyExample",
                                        appID: "1:123456789012:web:0123abcd", senderID: "123456789012")
    static let requests = FCMRegistrationRequests(endpoints: FCMEndpoints(), app: app)
    static let device = GCMDevice(androidID: 5_678_901_234_567_890_123, securityToken: 123_456_789_012_345_678)

    @Test func checkinAsksAsChromeOnLinuxAndReadsTheRecordedReply() throws {
        let request = try CheckinProto_AndroidCheckinRequest(serializedBytes: try GCMCheckin.request(renewing: Self.device))
        #expect(request.checkin.type == .deviceChromeBrowser && request.checkin.chromeBuild.platform == .linux)
        #expect(request.version == 3 && request.id == 5_678_901_234_567_890_123 && request.securityToken == Self.device.securityToken)
        #expect(try CheckinProto_AndroidCheckinRequest(serializedBytes: try GCMCheckin.request()).hasID == false)

        // tests/fixtures/android_checkin_response.json (its token without the leading zero proto JSON refuses)
        let recorded = try CheckinProto_AndroidCheckinResponse(jsonString: #"""
            {"statsOk": true, "timeMsec": "1697711296660", "androidId": "5678901234567890123",
             "securityToken": "123456789012345678", "versionInfo": "Y9B3d2P5mMMSQKri541rkWUVCal3tBg"}
            """#)
        let device = try GCMCheckin.device(fromResponse: try recorded.serializedBytes())
        #expect(device == Self.device)
        #expect(device.mcsDeviceID == "android-4ecf8295b0f244cb")
        #expect(throws: FCMRegistrationError.self) { try GCMCheckin.device(fromResponse: Data([0xff, 0x01])) }
        var anonymous = CheckinProto_AndroidCheckinResponse()
        anonymous.statsOk = true
        #expect(throws: FCMRegistrationError.malformedReply(step: .checkin, "no android id or security token in the reply")) {
            try GCMCheckin.device(fromResponse: try anonymous.serializedBytes())
        }
    }

    @Test func gcmRegistrationAuthenticatesAsTheDeviceAndReadsItsToken() throws {
        let request = Self.requests.gcmRegister(device: Self.device, subtype: "wp:receiver.push.com#abc")
        #expect(request.header("Authorization") == "AidLogin 5678901234567890123:123456789012345678")
        let form = String(decoding: request.body, as: UTF8.self)
        #expect(form.contains("X-subtype=wp%3Areceiver.push.com%23abc") && form.contains("app=org.chromium.linux"))
        #expect(form.contains("sender=\(FCMRegistrationRequests.defaultSenderKey)"))
        // tests/fixtures/gcm_register_response.txt
        let recorded = "token=XYZ01234zyx:APA91b0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz-0123456789\n"
        #expect(try FCMRegistrationRequests.gcmToken(fromReply: Data(recorded.utf8)).hasPrefix("XYZ01234zyx:APA91b"))
        #expect(throws: FCMRegistrationError.refused(step: .gcmRegister, "PHONE_REGISTRATION_ERROR")) {
            try FCMRegistrationRequests.gcmToken(fromReply: Data("Error=PHONE_REGISTRATION_ERROR".utf8))
        }
    }

    @Test func installationsAreCreatedRefreshedAndRenewedADayEarly() throws {
        let fid = FCMRegistrationRequests.newFID()
        #expect(fid.count == 22 && "cdef".contains(fid.first!))
        let create = Self.requests.createInstallation(fid: fid)
        #expect(create.url == "https://firebaseinstallations.googleapis.com/v1/projects/example-mfa/installations")
        #expect(create.header("x-goog-api-key") == "AIzaSyExample")
        let body = try JSONSerialization.jsonObject(with: create.body) as? [String: String]
        #expect(body == ["appId": Self.app.appID, "authVersion": "FIS_v2", "fid": fid, "sdkVersion": "w:0.6.6"])

        // tests/fixtures/fcm_install_response.json, shortened tokens
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var installation = try FirebaseInstallation(createReply: Data(#"""
            {"name": "projects/123456789101/installations/1234AMXDRTTYODLsd-nb14", "fid": "1234AMXDRTTYODLsd-nb14",
             "refreshToken": "1_OPQRSTUVWXYZ", "authToken": {"token": "OPQRSTUVWXYZ-01234", "expiresIn": "604800s"}}
            """#.utf8), receivedAt: now)
        #expect(installation.fid == "1234AMXDRTTYODLsd-nb14" && installation.authTokenExpiresAt == now + 604_800)
        #expect(!installation.needsRefresh(at: now + 5 * 86_400) && installation.needsRefresh(at: now + 6.5 * 86_400))
        let refresh = Self.requests.refreshInstallationToken(installation)
        #expect(refresh.url.hasSuffix("/installations/1234AMXDRTTYODLsd-nb14/authTokens:generate"))
        #expect(refresh.header("Authorization") == "FIS_v2 1_OPQRSTUVWXYZ")
        try installation.applyRefreshReply(Data(#"{"token": "fresh", "expiresIn": "3600s"}"#.utf8), receivedAt: now)
        #expect(installation.authToken == "fresh" && installation.authTokenExpiresAt == now + 3600)
        #expect(throws: FCMRegistrationError.self) {
            try installation.applyRefreshReply(Data(#"{"token": "x", "expiresIn": "soon"}"#.utf8), receivedAt: now)
        }
    }

    @Test func theFCMRegistrationCarriesTheWebPushKeysAndYieldsTheToken() throws {
        let keys = WebPushKeys.generate()
        let installation = FirebaseInstallation(fid: "f", refreshToken: "r", authToken: "a", authTokenExpiresAt: Date())
        let request = Self.requests.registerWebPush(gcmToken: "gcm:1", keys: keys, installation: installation)
        #expect(request.url == "https://fcmregistrations.googleapis.com/v1/projects/example-mfa/registrations")
        #expect(request.header("x-goog-firebase-installations-auth") == "a")
        let web = (try JSONSerialization.jsonObject(with: request.body) as? [String: [String: String]])?["web"]
        #expect(web == ["auth": keys.authSecret.base64URLUnpadded, "p256dh": keys.publicKey.base64URLUnpadded,
                        "endpoint": "https://fcm.googleapis.com/fcm/send/gcm:1"], "no applicationPubKey without a VAPID key")
        // tests/fixtures/fcm_register_response.json
        let token = try FCMRegistrationRequests.fcmToken(fromReply: Data(#"""
            {"token": "zyxXYZ01234:APA91b01234abcdef", "pushSet": "01234zyxXYZ:APA91b43210zyxw"}
            """#.utf8))
        #expect(token == "zyxXYZ01234:APA91b01234abcdef")
    }

    @Test func aProfileSaysWhatIsMissingAndWhereToFindIt() {
        #expect(Self.app.problem() == nil)
        var empty = Self.app
        empty.apiKey = ""
        empty.senderID = " "
        #expect(empty.problem(keyPrefix: "fcm_")?.contains("lacks fcm_api_key, fcm_sender_id") == true)
        #expect(empty.problem()?.contains("Project settings") == true)
        var wrong = Self.app
        wrong.senderID = "abc"
        #expect(wrong.problem() == "FCM app 'example': sender_id 'abc' is not a project number")
    }
}
