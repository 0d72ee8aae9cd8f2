import Foundation
import FuzzSupport

@_cdecl("FuzzPushRouting_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testPushRouting) }

/// A push's `data` as any sender can make it (`key=value` lines): routed, read unverified, and verified against
/// keys the sender does not have.
func testPushRouting(_ bytes: Data) {
    PushDataChecks.exercise(FuzzInput.pushData(bytes))
}
