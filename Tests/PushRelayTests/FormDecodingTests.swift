import Foundation
import Testing
@testable import PushRelay

@Suite("Form and query decoding")
struct FormDecodingTests {
    /// Text with nothing to decode skips Foundation's decoding; the rest goes through it as before.
    @Test(arguments: [
        ("after=12", "after=12"), ("", ""), ("a+b", "a b"), ("a%2Bb", "a+b"), ("%E2%9C%93", "✓"), ("é", "é"),
        // Foundation's default search took `+` and the mark after it as one and left the `+`.
        ("x+\u{301}", "x \u{301}"),
    ])
    func decodes(text: String, expected: String) {
        #expect(formDecode(Substring(text)) == expected)
    }

    @Test(arguments: ["%zz", "%", "a%2"])
    func refusesABrokenEscape(text: String) {
        #expect(formDecode(Substring(text)) == nil)
    }
}

@Suite("Query parameters")
struct QueryParameterTests {
    @Test func decodesEachParameterAndKeepsTheFirstOfARepeatedName() {
        #expect(queryParameters("/v1/devices/d/messages?after=12&wait=30&limit=5")
            == ["after": "12", "wait": "30", "limit": "5"])
        #expect(queryParameters("/p?a=1&a=2&b&c=&d=x%3Dy+z&%C3%A9=%E2%9C%93&&e=é")
            == ["a": "1", "b": "", "c": "", "d": "x=y z", "é": "✓", "e": "é"])
        #expect(queryParameters("/p?bad=%zz&good=1") == ["good": "1"])
    }

    /// A combining mark after a separator made one `Character` with it, so the query split there no more.
    @Test func aCombiningMarkAfterASeparatorStillSplits() {
        #expect(queryParameters("/p?a=1&\u{301}b=2&c=\u{301}") == ["a": "1", "\u{301}b": "2", "c": "\u{301}"])
    }

    @Test func aPathWithoutAQueryHasNoParameters() {
        #expect(queryParameters("/v1/devices/d/messages").isEmpty)
        #expect(queryParameters("/p?").isEmpty)
        #expect(queryParameters("").isEmpty)
    }
}

@Suite("Routes")
struct RelayRouterTests {
    private var router: RelayRouter {
        var router = RelayRouter()
        router.add(.get, "/v1/devices/:device_id/messages") { _ in nil }
        router.add(.delete, "/v1/devices/:device_id") { _ in nil }
        router.add(.post, "/v1/projects/:project/messages:send") { _ in nil }
        router.add(.get, "/healthz") { _ in nil }
        return router
    }

    @Test func aPathMatchesItsRouteAndNamesItsSegments() throws {
        guard case .route(let route, let parameters) = router.match(.get, path: "/v1/devices/dev-1/messages?after=3") else {
            Issue.record("no route"); return
        }
        #expect(route.segments == ["v1", "devices", ":device_id", "messages"])
        #expect(parameters == ["device_id": "dev-1"])
        guard case .route(_, let send) = router.match(.post, path: "/v1/projects/p%20x/messages:send") else {
            Issue.record("no route"); return
        }
        #expect(send == ["project": "p%20x"])
        guard case .route(_, let none) = router.match(.get, path: "//healthz/") else { Issue.record("no route"); return }
        #expect(none.isEmpty)
    }

    @Test func aPathWithAnotherMethodIsRefusedWithTheMethodsItTakes() {
        guard case .methodNotAllowed(let allowed) = router.match(.post, path: "/v1/devices/d") else {
            Issue.record("expected 405"); return
        }
        #expect(allowed == [.delete])
    }

    @Test(arguments: ["/v1/devices/d/messages/x", "/v1/devices", "/v1/projects/p/messages:sendx", "/healthz2", "/", "",
                      "/v1/devicés/d/messages", "/healthz%2F"])
    func anUnknownPathIsNotFound(path: String) {
        guard case .notFound = router.match(.get, path: path) else { Issue.record("\(path) matched"); return }
    }
}

@Suite("Form bodies")
struct URLEncodedFormTests {
    @Test func readsEachFieldAndRefusesARepeatedNameOrABrokenEscape() {
        #expect(urlEncodedForm(Data("grant_type=a%3Ab&assertion=x.y+z&&e=".utf8))
            == ["grant_type": "a:b", "assertion": "x.y z", "e": ""])
        #expect(urlEncodedForm(Data("a=1&a=1".utf8)) == nil)
        #expect(urlEncodedForm(Data("a=%zz".utf8)) == nil)
        #expect(urlEncodedForm(Data()) == [:])
    }

    /// Read by `Character`, `a=1&\u{301}b=2` was one field, `a` = "1&\u{301}b=2": a form is split as bytes, as
    /// every other reader of forms does (Python's `urllib.parse.parse_qsl` gives the two fields below).
    @Test func aCombiningMarkAfterASeparatorStillSplits() {
        #expect(urlEncodedForm(Data("a=1&\u{301}b=2".utf8)) == ["a": "1", "\u{301}b": "2"])
        #expect(urlEncodedForm(Data("assertion=\u{301}x".utf8)) == ["assertion": "\u{301}x"])
        // U+0600 joins what follows it: the separator after it too.
        #expect(urlEncodedForm(Data("a\u{600}=1&b=\u{600}&c=2".utf8)) == ["a\u{600}": "1", "b": "\u{600}", "c": "2"])
    }
}
