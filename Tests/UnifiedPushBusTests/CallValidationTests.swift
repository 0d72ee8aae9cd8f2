import Foundation
import Testing
@testable import UnifiedPushBus

/// The spec's limits and the outcome of a connector call, without a bus.
@Suite("UnifiedPushBus: the spec's limits")
struct CallValidationTests {
    @Test func busNames() {
        for good in ["org.example.App", "a.b", "org.kde.neochat", "_x.y-z", "org.example.App2"] {
            #expect(CallValidation.serviceProblem(good) == nil, "\(good)")
        }
        for bad in ["", "single", "a..b", ".a.b", "a.b.", "org.3d.App", "org.ex ample.App", ":1.5", "org.exämple.App",
                    String(repeating: "a.", count: 128) + "a"] {
            #expect(CallValidation.serviceProblem(bad) != nil, "\(bad)")
        }
    }

    @Test func tokens() {
        #expect(CallValidation.tokenProblem(String(repeating: "x", count: 100)) == nil)
        #expect(CallValidation.tokenProblem(String(repeating: "x", count: 101)) != nil)
        #expect(CallValidation.tokenProblem("") != nil)
    }

    @Test func vapidKeys() {
        let point = Data([4] + (1...64).map { UInt8($0) })
        let key = point.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(key.count == 87)
        #expect(CallValidation.vapidProblem(key) == nil)
        #expect(CallValidation.vapidProblem(String(key.dropLast())) != nil)
        #expect(CallValidation.vapidProblem(key.replacingOccurrences(of: "_", with: "/")) != nil || !key.contains("_"))
        #expect(CallValidation.vapidProblem("A" + key.dropFirst()) != nil)  // not an uncompressed point
        // An empty key is no key.
        guard case .success(let call) = CallValidation.register(service: "a.b", token: "t", description: "",
                                                                vapid: "", version: .v2, sender: ":1.1") else {
            Issue.record("an empty vapid key was refused")
            return
        }
        #expect(call.vapid == nil && call.description == nil)
    }

    @Test func descriptionsAreCutToWholeCharacters() {
        #expect(CallValidation.truncatedDescription(String(repeating: "€", count: 40))?.utf8.count == 99)
        #expect(CallValidation.truncatedDescription("short") == "short")
        #expect(CallValidation.truncatedDescription(nil) == nil)
    }

    @Test func outcomes() {
        #expect(Deliveries.outcome(errorName: nil, errorMessage: nil, acknowledgedID: "a", expectedID: "a") == .delivered)
        #expect(Deliveries.outcome(errorName: nil, errorMessage: nil, acknowledgedID: nil, expectedID: "a") == .delivered)
        #expect(Deliveries.outcome(errorName: nil, errorMessage: nil, acknowledgedID: "b", expectedID: "a")
                    == .failed("the app acknowledged message id \"b\", not \"a\""))
        #expect(Deliveries.outcome(errorName: "org.freedesktop.DBus.Error.ServiceUnknown", errorMessage: "gone",
                                   acknowledgedID: nil, expectedID: nil)
                    == .appNotFound("org.freedesktop.DBus.Error.ServiceUnknown: gone"))
        #expect(Deliveries.outcome(errorName: "org.freedesktop.DBus.Error.UnknownMethod", errorMessage: "no",
                                   acknowledgedID: nil, expectedID: nil)
                    == .failed("org.freedesktop.DBus.Error.UnknownMethod: no"))
    }
}
