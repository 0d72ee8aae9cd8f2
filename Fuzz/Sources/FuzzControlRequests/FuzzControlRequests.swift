import ControlWire
import Foundation
import FuzzSupport
import PushAgentCore

@_cdecl("FuzzControlRequests_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testControlRequests) }

/// Every request body the control API decodes, with the daemon's decoder (ControlJSON, RFC 3339 dates); an
/// enrollment's URI goes on to the parser, as the daemon sends it. Any local user in the agent's group can send these.
func testControlRequests(_ bytes: Data) {
    let decoder = ControlJSON.decoder()
    if let enroll = try? decoder.decode(EnrollRequest.self, from: bytes) { _ = try? EnrollmentURI.parse(enroll.uri) }
    _ = try? decoder.decode(ApproveRequest.self, from: bytes)
    _ = try? decoder.decode(DenyRequest.self, from: bytes)
    _ = try? decoder.decode(HyphenSignInRequest.self, from: bytes)
    _ = try? decoder.decode(StepUpRequest.self, from: bytes)
    _ = try? decoder.decode(BackupRequest.self, from: bytes)
    _ = try? decoder.decode(RestoreRequest.self, from: bytes)
}
