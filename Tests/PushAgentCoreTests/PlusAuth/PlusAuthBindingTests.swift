import Foundation
import Testing
@testable import PushAgentCore

@Suite struct PlusAuthBindingTests {
    static let here = PlusAuthBinding.fingerprint(machineID: "4f1a…machine-a\n", configuredIdentity: nil)
    static let there = PlusAuthBinding.fingerprint(machineID: "machine-b", configuredIdentity: nil)
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func fingerprintsHideTheMachineIdAndTellMachinesApart() {
        let fingerprint = PlusAuthBinding.fingerprint(machineID: "0123456789abcdef", configuredIdentity: "tpm:1")
        #expect(fingerprint?.count == 64 && fingerprint?.contains("0123456789abcdef") == false)
        #expect(fingerprint != PlusAuthBinding.fingerprint(machineID: "0123456789abcdef", configuredIdentity: "tpm:2"))
        #expect(PlusAuthBinding.fingerprint(machineID: "m\n", configuredIdentity: nil) == PlusAuthBinding.fingerprint(machineID: "m", configuredIdentity: ""))
        #expect(PlusAuthBinding.fingerprint(machineID: nil, configuredIdentity: "  ") == nil)
        #expect(Self.here != Self.there)
    }

    @Test func unboundAccountsIgnoreIdentityChanges() {
        let binding = PlusAuthBinding(enrolledIdentity: Self.here)
        #expect(binding.admit(.push(bindingRequested: false), currentIdentity: Self.there, at: Self.now).refusal == nil)
        #expect(binding.admit(.code, currentIdentity: Self.there, at: Self.now).refusal == nil)
    }

    @Test func aBoundAccountOnItsMachineWorksAndBindsCodes() {
        let push = PlusAuthBinding(enrolledIdentity: Self.here).admit(.push(bindingRequested: true), currentIdentity: Self.here, at: Self.now)
        #expect(push.refusal == nil && push.binding.required && push.binding.brokenAt == nil)
        #expect(push.binding.admit(.code, currentIdentity: Self.here, at: Self.now).refusal == nil)
        let moved = push.binding.admit(.code, currentIdentity: Self.there, at: Self.now)
        #expect(moved.refusal?.contains("this machine's identity has changed since it was enrolled") == true)
        #expect(moved.binding.brokenAt == Self.now)
    }

    @Test func aChangedIdentityRefusesForGood() {
        let seen = PlusAuthBinding(enrolledIdentity: Self.here)
            .admit(.push(bindingRequested: true), currentIdentity: Self.there, at: Self.now)
        #expect(seen.refusal == "the account is bound to the machine it was enrolled on (PlusAuth bind_sim), and this machine's identity has changed since it was enrolled (noticed 2023-11-14T22:13:20Z)")
        // Back on the first machine, or with binding turned off: still refused until re-enrolled.
        #expect(seen.binding.admit(.push(bindingRequested: false), currentIdentity: Self.here, at: Self.now).refusal != nil)
        #expect(seen.binding.admit(.code, currentIdentity: Self.here, at: Self.now).refusal != nil)
    }

    @Test func noRecordedIdentityCannotBeBound() {
        let admission = PlusAuthBinding(enrolledIdentity: nil).admit(.push(bindingRequested: true), currentIdentity: nil, at: Self.now)
        #expect(admission.refusal?.contains("no machine identity was recorded when it was enrolled") == true)
    }
}
