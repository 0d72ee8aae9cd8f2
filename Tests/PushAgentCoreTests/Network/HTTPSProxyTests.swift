import Foundation
import PushAgentCore
import Testing

/// The proxy for MCS is found as curl finds the one for pushagentd's HTTPS requests, and its CONNECT answer read.
struct HTTPSProxyTests {
    @Test func theVariablesAreReadAsCurlReadsThem() throws {
        #expect(try HTTPSProxy.forHost("mtalk.google.com", environment: [:]) == nil)
        #expect(try HTTPSProxy.forHost("mtalk.google.com", environment: ["HTTPS_PROXY": "proxy.corp:3128"])
                == HTTPSProxy(host: "proxy.corp", port: 3128))
        #expect(try HTTPSProxy.forHost("mtalk.google.com", environment: ["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"])?
                .host == "a", "the lower-case one first")
        #expect(try HTTPSProxy.forHost("h", environment: ["HTTPS_PROXY": "http://p"])?.port == 1080, "curl's default port")
        #expect(try HTTPSProxy.forHost("h", environment: ["HTTPS_PROXY": "http://us%40er:p%3Ass@p:8080"])?.credentials
                == "us@er:p:ss")
        #expect(try HTTPSProxy.forHost("h", environment: ["HTTPS_PROXY": "http://u:p%2541@p:8080"])?.credentials == "u:p%41",
                "decoded once")
        #expect(try HTTPSProxy.forHost("h", environment: ["ALL_PROXY": "http://all:3128"])?.host == "all", "curl's fallback")
        #expect(try HTTPSProxy.forHost("h", environment: ["ALL_PROXY": "http://all:3128", "https_proxy": "http://s:1"])?.host == "s")
    }

    @Test func aBadProxyURLIsNamedWithoutItsPassword() {
        #expect { try HTTPSProxy.forHost("h", environment: ["HTTPS_PROXY": "https://alice:s3cret@proxy:3128"]) } throws: { error in
            "\(error)".contains("'https://…@proxy:3128'") && !"\(error)".contains("s3cret")
        }
    }

    @Test(arguments: [
        ("*", "mtalk.google.com", true), ("google.com", "mtalk.google.com", true), (".google.com", "mtalk.google.com", true),
        ("example.com, google.com", "mtalk.google.com", true), ("oogle.com", "mtalk.google.com", false),
        ("127.0.0.1", "127.0.0.1", true), ("10.0.0.1", "127.0.0.1", false), ("MTALK.google.com", "mtalk.google.COM", true),
    ])
    func noProxyListsHostsReachedDirectly(noProxy: String, host: String, direct: Bool) throws {
        let proxy = try HTTPSProxy.forHost(host, environment: ["HTTPS_PROXY": "http://p:1", "NO_PROXY": noProxy])
        #expect((proxy == nil) == direct)
    }

    @Test(arguments: ["https://p:1", "socks5://p:1", "http://", "http://p:1/path"])
    func aProxyURLItCannotUseIsAnErrorNotADirectConnection(value: String) {
        #expect { try HTTPSProxy.forHost("h", environment: ["HTTPS_PROXY": value]) } throws: { error in
            "\(error)".contains("is not an http://host:port URL")
        }
    }

    @Test func theConnectRequestNamesTheTargetAndTheCredentials() {
        #expect(HTTPSProxy(host: "p", port: 1).connectRequest(to: "mtalk.google.com", port: 5228)
                == "CONNECT mtalk.google.com:5228 HTTP/1.1\r\nHost: mtalk.google.com:5228\r\n\r\n")
        #expect(HTTPSProxy(host: "p", port: 1, credentials: "u:p").connectRequest(to: "::1", port: 443)
                == "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\nProxy-Authorization: Basic dTpw\r\n\r\n")
    }

    @Test func theProxysAnswerOpensTheTunnelOrSaysWhyNot() {
        #expect(HTTPConnectReply.parse(Array("HTTP/1.1 200 Connection".utf8)) == nil, "not complete yet")
        #expect(HTTPConnectReply.parse(Array("HTTP/1.0 200 Connection established\r\nProxy-agent: x\r\n\r\n".utf8))
                == .established(headLength: 55))
        #expect(HTTPConnectReply.parse(Array("HTTP/1.1 403 Access violation\r\n\r\n".utf8))
                == .refused("the proxy refused the tunnel: HTTP/1.1 403 Access violation"))
        #expect(HTTPConnectReply.parse(Array("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n".utf8)) ==
                .refused("the proxy refused the tunnel: HTTP/1.1 407 Proxy Authentication Required (it wants credentials: http://user:password@host:port)"))
        #expect(HTTPConnectReply.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8))
                == .refused("the proxy did not answer CONNECT with HTTP: 'SSH-2.0-OpenSSH'"))
        #expect(HTTPConnectReply.parse([UInt8](repeating: 65, count: 20_000)) == .refused("the proxy's answer has no end"))
    }
}
