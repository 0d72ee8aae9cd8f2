import Foundation
import FuzzSupport
import RelaySendBody

@_cdecl("FuzzRelaySendBody_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testRelaySendBody) }

/// The relay's `messages:send` body, validated as FCM does, then measured against FCM's payload limit. Senders
/// hold a service-account key, but a key can leak and a sender can have bugs. The JSON reader under it is checked
/// against Foundation's on the way.
func testRelaySendBody(_ bytes: Data) {
    RelaySendBody.checkReaderAgainstFoundation(bytes)
    guard let request = try? RelaySendBody.parse(bytes) else { return }
    _ = RelaySendBody.payloadSize(request)
}
