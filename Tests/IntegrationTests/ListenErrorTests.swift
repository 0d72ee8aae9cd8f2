import ClusterHarness
import Foundation
import Testing

/// Issue 43 item 12: pushrelay on a port in use said `bind(descriptor:ptr:bytes:): Address already in use) (errno:
/// 98)`: no address, a stray parenthesis, nothing to do about it. pushsim, which `make demo` starts, said the same
/// behind "the server stopped:".
struct ListenErrorTests {
    static func inUse(_ port: Int, program: String, change: String) -> String {
        "\(program): cannot listen on 127.0.0.1:\(port): the address is in use, by another \(program) or another program (`ss -ltnp 'sport = :\(port)'` shows which): stop it, or give this one another address with \(change)"
    }

    @Test func aPortInUseIsNamedWithWhatToDo() async throws {
        let held = try ListeningSocket.loopback()
        defer { close(held.fd) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-bind-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await CommandResult.run(Binaries.path("pushrelay"), [
            "--listen", "127.0.0.1:\(held.port)", "--state-dir", directory, "--config", "/dev/null"])
        #expect(result.status == 1)
        let expected = Self.inUse(held.port, program: "pushrelay", change: "--listen HOST:PORT or `listen` in pushrelay.toml")
        #expect(result.stderr.split(separator: "\n").last.map(String.init) == expected, "\(result.stderr)")
    }

    /// pushsim's providers' listener, and its FCM emulator's HTTP and MCS listeners.
    @Test(arguments: ["serve", "fcm --listen", "fcm --mcs-listen"])
    func pushsimSaysWhichOfItsAddressesIsInUse(listener: String) async throws {
        let held = try ListeningSocket.loopback()
        defer { close(held.fd) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushsim-bind-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let busy = "127.0.0.1:\(held.port)"
        let arguments: [String]
        switch listener {
        case "serve":
            arguments = ["serve", "--listen", busy, "--relay", "http://127.0.0.1:9", "--sender-key", "k", "--project", "p"]
        default:
            try await FCMEmulatorProcess.makeCertificate(directory + "/cert.pem", key: directory + "/key.pem")
            let (http, mcs) = listener == "fcm --listen" ? (busy, "127.0.0.1:0") : ("127.0.0.1:0", busy)
            arguments = ["fcm", "serve", "--listen", http, "--mcs-listen", mcs, "--tls-cert", directory + "/cert.pem",
                         "--tls-key", directory + "/key.pem"]
        }
        let result = try await CommandResult.run(Binaries.path("pushsim"), arguments)
        #expect(result.status != 0)
        let flag = listener == "fcm --mcs-listen" ? "--mcs-listen" : "--listen"
        #expect(result.stderr.contains(Self.inUse(held.port, program: "pushsim", change: "\(flag) HOST:PORT")), "\(result.stderr)")
    }
}
