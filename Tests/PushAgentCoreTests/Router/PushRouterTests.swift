import Testing
import PushAgentCore

@Suite struct PushRouterTests {
    @Test func routesEachDialect() {
        #expect(PushRouter.route(["hyphen:type": "2fa-request", "hyphen:data": "{}"]) == .hyphen)
        #expect(PushRouter.route(["messageId": "AUTHENTICATE:x", "message": "a.b.c"]) == .forgerock)
        #expect(PushRouter.route(["context": "a.b.c"]) == .plusauth)
        #expect(PushRouter.route(["nonce": "n", "serial": "PIPU1", "signature": "S", "title": "t"]) == .privacyidea)
    }

    // docs/design.md §2: first match wins, in the order hyphen, ForgeRock, PlusAuth, privacyIDEA.
    @Test func firstMatchWins() {
        #expect(PushRouter.route(["hyphen:type": "2fa-status-change", "messageId": "m", "message": "j"])
                == .hyphen)
        #expect(PushRouter.route(["messageId": "m", "message": "j", "context": "c"]) == .forgerock)
        #expect(PushRouter.route(["context": "c", "nonce": "n", "serial": "s", "signature": "x"]) == .plusauth)
    }

    @Test func incompleteOrUnknownIsNil() {
        #expect(PushRouter.route([:]) == nil)
        #expect(PushRouter.route(["messageId": "m"]) == nil)
        #expect(PushRouter.route(["message": "j"]) == nil)
        #expect(PushRouter.route(["nonce": "n", "serial": "s"]) == nil)
        #expect(PushRouter.route(["hello": "world"]) == nil)
    }
}
