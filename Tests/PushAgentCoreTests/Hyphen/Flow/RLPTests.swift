import Foundation
import Testing
@testable import PushAgentCore

/// The examples of the RLP specification (ethereum.org, "Recursive-length prefix (RLP) serialization", and the
/// yellow paper's appendix B). The Flow vectors in FlowEncodingTests exercise the same encoder on whole transactions.
@Suite struct RLPTests {
    @Test(arguments: [
        (RLP.text("dog"), "83646f67"),
        (.list([.text("cat"), .text("dog")]), "c88363617483646f67"),
        (.text(""), "80"),
        (.list([]), "c0"),
        (.uint(0), "80"),
        (.bytes(Data([0x00])), "00"),
        (.bytes(Data([0x0f])), "0f"),
        (.bytes(Data([0x80])), "8180"),
        (.uint(1024), "820400"),
        (.list([.list([]), .list([.list([])]), .list([.list([]), .list([.list([])])])]), "c7c0c1c0c3c0c1c0"),
        (.text("Lorem ipsum dolor sit amet, consectetur adipisicing elit"),
         "b8384c6f72656d20697073756d20646f6c6f722073697420616d65742c20636f6e7365637465747572206164697069736963696e6720656c6974"),
    ])
    func specificationExamples(_ item: RLP, _ expected: String) {
        #expect(item.encoded.hex == expected)
    }

    /// A list longer than 55 bytes takes the long form with its length's length.
    @Test func longList() {
        let items = Array(repeating: RLP.text("dog"), count: 20)
        #expect(RLP.list(items).encoded.hex == "f850" + String(repeating: "83646f67", count: 20))
    }
}
