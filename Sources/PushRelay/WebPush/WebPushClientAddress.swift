import NIOCore

/// The address a Web Push sender's rate counts under when it has no key to count under: its IPv4 address, or the /64
/// of its IPv6 one (a host is given a whole /64 and may pick any address in it). An IPv4 client of a dual-stack
/// listener (`::ffff:a.b.c.d`) counts as its IPv4 address. The TCP peer, that is: behind a proxy, the proxy's.
enum WebPushClientAddress {
    static func key(_ address: SocketAddress?) -> String? {
        switch address {
        case .v4: return address?.ipAddress
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                return bytes[12...].map(String.init).joined(separator: ".")
            }
            return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":") + "::/64"
        case .unixDomainSocket, nil: return nil
        }
    }
}
