import Foundation
import FuzzSupport
@testable import PushAgentCore

@_cdecl("FuzzTOTP_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testTOTP) }

/// TOTP parameters from their two sources, then codes at the ends of time: the stored JSON form (decoding runs the
/// same checks as enrollment), and an otpauth query (`secret=…&digits=…&period=…&algorithm=…`) read the way every
/// enrollment URI's TOTP part is. The first byte picks which.
func testTOTP(_ bytes: Data) {
    guard let (mode, rest) = FuzzInput.mode(of: bytes, count: 2) else { return }
    let parameters: TOTPParameters?
    if mode == 0 {
        parameters = try? JSONDecoder().decode(TOTPParameters.self, from: rest)
    } else {
        parameters = try? oathParameters(query: FuzzInput.text(rest))
    }
    guard let parameters else { return }
    for now in FuzzClock.samples { _ = TOTP.code(parameters, at: now) }
}

private func oathParameters(query: String) throws(EnrollmentURIError) -> TOTPParameters {
    let parts = try EnrollmentURIParts("otpauth://totp/Fuzz:fuzz?" + query)
    let parameters = EnrollmentParameters(scheme: parts.scheme, query: parts.query)
    return try parameters.totp(secret: parameters.oathSecret())
}
