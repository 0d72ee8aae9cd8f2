import Foundation
import FuzzSupport
import PushAgentCore

@_cdecl("FuzzPrivacyIDEASignedChallenge_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testPrivacyIDEASignedChallenge) }

/// The input is a challenge's fields (`key=value` lines); the target signs them, and the capabilities when they
/// are a JSON object, with the server's key, as a genuine server would. Past verification: the approval and the
/// stored answer context. RSA signing makes this the slowest target, so inputs that cannot verify skip it.
func testPrivacyIDEASignedChallenge(_ bytes: Data) {
    var data = FuzzInput.pushData(bytes)
    if let nonce = data["nonce"], let url = data["url"], let serial = data["serial"], let question = data["question"],
       let title = data["title"], let sslVerify = data["sslverify"] {
        let text = PrivacyIDEASignText.challenge(nonce: nonce, url: url, serial: serial, question: question, title: title,
                                                 sslVerify: sslVerify, presenceOptions: data["require_presence"])
        data["signature"] = try? PrivacyIDEASignature.sign(text, with: FuzzFixtures.privacyIDEAKey)
        if let capabilities = data["capabilities"].flatMap({ try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }) {
            let input = PrivacyIDEACapabilities.signingInput(capabilities: capabilities, nonce: nonce)
            data["capabilities_signature"] = try? PrivacyIDEASignature.sign(input, with: FuzzFixtures.privacyIDEAKey)
        }
    }
    _ = try? PrivacyIDEAPush.peekSerial(data)
    guard let challenge = try? PrivacyIDEAPush.verify(data, serverKey: FuzzFixtures.privacyIDEAServerKey,
                                                       receivedAt: FuzzClock.receivedAt) else { return }
    let account = FuzzFixtures.account(.privacyidea)
    _ = try? challenge.approvalDraft(provider: .privacyidea, accountId: account.id, accountName: account.name)
    if let context = try? challenge.answerContext() { _ = try? PrivacyIDEAChallenge(answerContext: context) }
}
