@testable import ClusterHarness
import Foundation
import Testing

/// Servers that bind their port later (privacyIDEA, PostgreSQL, tinyproxy, relay processes) are given one no socket
/// bound to port 0 can take meanwhile: privacyIDEA once found its port held by another test's relay.
@Suite struct HarnessPortTests {
    @Test func portsForLaterBindsLieBelowTheEphemeralRangeAndAreNeverRepeated() throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let ephemeralStart = try #require(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        let ports = try (0..<200).map { _ in try Cluster.freePort() }
        #expect(ports.allSatisfy { $0 < ephemeralStart }, "\(ports.filter { $0 >= ephemeralStart })")
        #expect(Set(ports).count == ports.count)
    }
}
