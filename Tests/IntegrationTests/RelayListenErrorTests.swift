import ClusterHarness
import Foundation
import Testing

/// Issue 43 item 12: pushrelay on a port in use said `bind(descriptor:ptr:bytes:): Address already in use) (errno:
/// 98)`: no address, a stray parenthesis, nothing to do about it.
struct RelayListenErrorTests {
    @Test func aPortInUseIsNamedWithWhatToDo() async throws {
        let held = try ListeningSocket.loopback()
        defer { close(held.fd) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-bind-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await CommandResult.run(Binaries.path("pushrelay"), [
            "--listen", "127.0.0.1:\(held.port)", "--state-dir", directory, "--config", "/dev/null"])
        #expect(result.status == 1)
        let expected = "pushrelay: cannot listen on 127.0.0.1:\(held.port): the address is in use, by another pushrelay or another program (`ss -ltnp 'sport = :\(held.port)'` shows which): stop it, or give this one another address with --listen HOST:PORT or `listen` in pushrelay.toml"
        #expect(result.stderr.split(separator: "\n").last.map(String.init) == expected, "\(result.stderr)")
    }
}
