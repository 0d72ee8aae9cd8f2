import Foundation
import FuzzSupport
import PushAgentCore

@_cdecl("FuzzEnrollmentURI_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testEnrollmentURI) }

/// Every enrollment scheme through the entry pushctl and the daemon use (pushauth/mfauth, otpauth://push,
/// otpauth://pipush and pia://pipush, hyphen://), then what is read from a parsed URI: the dry-run summary and,
/// where the URI carries TOTP parameters, codes. A refusal's message quotes the URI, so it is built too.
func testEnrollmentURI(_ bytes: Data) {
    let uri: EnrollmentURI
    do { uri = try EnrollmentURI.parse(FuzzInput.text(bytes)) } catch {
        _ = error.description
        return
    }
    _ = uri.summary
    for now in FuzzClock.samples { _ = uri.details.offlineCodes.map { TOTP.code($0, at: now) } }
}
