import Foundation
import Testing
@testable import PushAgentCore

@Suite struct HyphenTimestampTests {
    static let july = Date(timeIntervalSince1970: 1_689_964_587.872)

    @Test(arguments: [
        // The server's documented form (Hyphen "Handling 2FA Push").
        ("2023-07-21T18:36:27.872Z", july),
        ("2023-07-21T18:36:27Z", Date(timeIntervalSince1970: 1_689_964_587)),
        ("2023-07-21T20:36:27.872+02:00", july),
        ("2023-07-21T13:36:27.872-0500", july),
        ("2023-07-21T18:36:27.872", july),
        ("2023-07-21T18:36:27.872123456Z", Date(timeIntervalSince1970: 1_689_964_587.872123456)),
        // The Android SDK's preview form (Hyphen2FAView.kt).
        ("2023-06-21T00:00:00:000", Date(timeIntervalSince1970: 1_687_305_600)),
    ])
    func accepted(_ text: String, _ date: Date) throws {
        let parsed = try #require(HyphenTimestamp.parse(text))
        #expect(abs(parsed.timeIntervalSince(date)) < 0.000_01, "\(text)")
    }

    @Test(arguments: ["", "yesterday", "2023-07-21", "2023-07-21 18:36:27Z", "2023-07-21T18:36Z", "2023-13-01T00:00:00Z",
                      "2023-02-30T00:00:00Z", "2023-07-21T18:36:27.Z", "2023-07-21T18:36:27Zjunk", "1689964587",
                      // Issue 12: past year 9999 once the zone is applied, or before 1970: no time the store can keep.
                      "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00Z"])
    func refused(_ text: String) {
        #expect(HyphenTimestamp.parse(text) == nil, "\(text)")
    }

    @Test func formatRoundTrips() throws {
        #expect(HyphenTimestamp.format(Self.july) == "2023-07-21T18:36:27.872Z")
        let parsed = try #require(HyphenTimestamp.parse(HyphenTimestamp.format(Self.july)))
        #expect(abs(parsed.timeIntervalSince(Self.july)) < 0.000_01)
        #expect(HyphenTimestamp.format(Date(timeIntervalSince1970: 1_689_964_587.05)) == "2023-07-21T18:36:27.050Z")
    }
}
