import Foundation
import Testing
@testable import PushAgentCore

/// The REST calls as protocols.md §3.2 lists them: paths, bodies and the headers every call carries.
@Suite struct HyphenAPITests {
    static let api = HyphenAPI(baseURL: "http://127.0.0.1:9/hyphen/", appSecret: "app-secret")
    static let device = HyphenDevice.linux(publicKey: "ab", pushToken: "relay-token", name: "build-01", osVersion: "6.1")

    static func json(_ request: OutboundRequest) throws -> [String: JSONValue] {
        guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: request.body) else { return [:] }
        return object
    }

    @Test func everyCallCarriesTheSDKHeaders() throws {
        for request in [try Self.api.deny(twoFactorAuthId: "x", token: "tok"),
                        try Self.api.signIn2FA(credential: "cred", chain: .testnet, device: Self.device)] {
            #expect(request.header("X-Hyphen-App-Secret") == "app-secret")
            #expect(request.header("X-Hyphen-SDK-Platform") == "Android")
            #expect(request.header("X-Hyphen-SDK-Version") == "0.1.0")
            #expect(request.header("Content-Type") == "application/json")
        }
        #expect(try Self.api.deny(twoFactorAuthId: "x", token: "tok").header("Authorization") == "Bearer tok")
        #expect(try Self.api.signIn2FA(credential: "c", chain: .testnet, device: Self.device).header("Authorization") == nil)
    }

    @Test func destinationDeviceCalls() throws {
        let approve = try Self.api.approve(twoFactorAuthId: "2fa/1", transactionId: "ff00", token: "t")
        #expect(approve.method == "POST" && approve.url == "http://127.0.0.1:9/hyphen/device/v1/2fa/2fa%2F1/approve")
        #expect(try Self.json(approve) == ["txId": .string("ff00")])
        let deny = try Self.api.deny(twoFactorAuthId: "abc", token: "t")
        #expect(deny.method == "DELETE" && deny.url.hasSuffix("/device/v1/2fa/abc") && deny.body.isEmpty)
        let sign = try Self.api.signTransaction(Data([0xde, 0xad]), token: "t")
        #expect(sign.url.hasSuffix("/sign/v1/cadence/transaction"))
        #expect(try Self.json(sign) == ["message": .string("dead")])
        #expect(try Self.api.signAsPaymaster(Data([1]), token: "t").url.hasSuffix("/sign/v1/cadence/paymaster"))
        #expect(try Self.api.keys(token: "t").url.hasSuffix("/key/v1/keys"))
    }

    @Test func sourceDeviceCalls() throws {
        let signIn = try Self.json(Self.api.signIn2FA(credential: "cred", chain: .testnet, device: Self.device))
        #expect(signIn["request"] == .object(["method": .string("firebase"), "token": .string("cred"),
                                               "chainName": .string("flow-testnet")]))
        #expect(signIn["userKey"]?["type"] == .string("device") && signIn["userKey"]?["publicKey"] == .string("ab"))
        #expect(signIn["userKey"]?["device"]?["pushToken"] == .string("relay-token"))
        #expect(signIn["userKey"]?["device"]?["osName"] == .string("Android"), "the SDKs' closed enum")
        let signUp = try Self.json(Self.api.signUp(credential: "cred", chain: .mainnet, device: Self.device))
        #expect(signUp["chainName"] == .string("flow-mainnet") && signUp["token"] == .string("cred"))
        let finish = try Self.api.finish2FA(requestId: "r1", ephemeralToken: "eph")
        #expect(finish.url.hasSuffix("/auth/v1/signin/2fa/finish") && finish.header("Authorization") == "Bearer eph")
        #expect(try Self.json(finish) == ["twoFactorAuthRequestId": .string("r1")])
        let poll = try Self.api.twoFactorStatus(twoFactorAuthId: "f1", ephemeralToken: "eph")
        #expect(poll.method == "GET" && poll.url.hasSuffix("/device/v1/2fa/f1"))
        let challenge = try Self.json(Self.api.signInChallenge(credential: "cred", chain: .testnet, publicKey: "ab"))
        #expect(challenge["challengeType"] == .string("deviceKey") && challenge["publicKey"] == .string("ab"))
    }
}
