import Foundation
import Testing
@testable import PushAgentCore

struct ProviderRegistryTests {
    @Test func theStoredNamesAreTheOnesEarlierVersionsWrote() throws {
        #expect(ProviderRegistry.all.map(\.provider.rawValue) == ["hyphen", "forgerock", "plusauth", "privacyidea", "edumfa", "guardian"])
        #expect(String(decoding: try JSONEncoder().encode([Provider.forgerock, .local]), as: UTF8.self) == #"["forgerock","local"]"#)
        #expect(try JSONDecoder().decode(Provider.self, from: Data(#""privacyidea""#.utf8)) == .privacyidea)
    }

    @Test func eachProviderAndEachEnrollmentFormIsListedOnce() {
        let names = ProviderRegistry.all.map(\.provider)
        #expect(Set(names).count == names.count)
        #expect(Set(ProviderRegistry.enrollmentLabels).count == ProviderRegistry.enrollmentLabels.count)
        #expect(!names.contains(.local))
    }

    @Test func aNameThisBuildDoesNotSpeakIsNotKnown() {
        #expect(Provider.known("forgerock") == .forgerock && Provider.known("local") == .local)
        #expect(Provider.known("okta") == nil && Provider.known("") == nil)
        #expect(Provider(rawValue: "okta").displayName == "okta" && Provider.local.displayName == "local step-up")
    }

    @Test func capabilitiesAreWhatEachDialectDoes() {
        #expect(ProviderRegistry[.privacyidea]?.capabilities.contains(.pollSource) == true)
        #expect(ProviderRegistry.all.filter { $0.capabilities.contains(.fraudReport) }.map(\.provider) == [.plusauth, .privacyidea])
        #expect(ProviderRegistry.all.filter { $0.capabilities.contains(.pushTokenUpdate) }.map(\.provider) == [.forgerock, .privacyidea, .edumfa, .guardian])
    }
}
