import ClusterHarness
import Foundation
@testable import PushAgentDaemon
import Testing

/// The real Linux-PAM library over a private service whose pam_exec script knows one password.
struct PAMAuthenticatorTests {
    static func withService(_ body: (PAMTestService) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pam-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(try PAMTestService(in: directory, password: "correct horse"))
    }

    @Test func acceptsTheRightPassword() async throws {
        try await Self.withService { service in
            let pam = PAMAuthenticator(service: PAMTestService.service, configDirectory: service.directory)
            try await pam.authenticate(user: "nobody", password: "correct horse")
        }
    }

    @Test func refusesAWrongOrEmptyPassword() async throws {
        try await Self.withService { service in
            let pam = PAMAuthenticator(service: PAMTestService.service, configDirectory: service.directory)
            for password in ["correct horse!", "", "correct"] {
                let error = await #expect(throws: PAMAuthenticator.Failure.self) {
                    try await pam.authenticate(user: "nobody", password: password)
                }
                // pam_exec says "System error" when its command fails; pam_unix "Authentication failure".
                #expect(error?.description.isEmpty == false)
            }
        }
    }

    @Test func refusesAServiceWithoutAFile() async throws {
        try await Self.withService { service in
            let pam = PAMAuthenticator(service: "no-such-service", configDirectory: service.directory)
            let error = await #expect(throws: PAMAuthenticator.Failure.self) {
                try await pam.authenticate(user: "nobody", password: "correct horse")
            }
            #expect(error?.description.hasPrefix("cannot start PAM service 'no-such-service' in \(service.directory)") == true,
                    "\(String(describing: error))")
        }
    }

    @Test func namesUsersByUID() {
        #expect(PAMAuthenticator.userName(of: 0) == "root")
        #expect(PAMAuthenticator.userName(of: 65534) == "nobody")
        #expect(PAMAuthenticator.userName(of: 4_000_000_000) == nil)
    }
}
