import Foundation
import FuzzSupport
import RelayPollReply

@_cdecl("FuzzRelayPollReply_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testRelayPollReply) }

/// What the daemon reads from the relay: `{"messages": [...], "next": ...}` and a registration, then every
/// delivered message's `data` through the push checks, as the poller hands them on. The relay (or whatever answers
/// at its URL) chooses all of it.
func testRelayPollReply(_ bytes: Data) {
    _ = RelayPollReply.registration(bytes)
    for data in (try? RelayPollReply.messages(bytes)) ?? [] { PushDataChecks.exercise(data) }
}
