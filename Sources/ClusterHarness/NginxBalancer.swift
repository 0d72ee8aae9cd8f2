import Foundation

/// A private nginx balancing HTTP round-robin over relay instances, as docs/relay.md's example does: its own prefix
/// in a temporary directory, in the foreground, stopped by its PID. Debian's `nginx` package is installed when it
/// is missing and we are root.
public final class NginxBalancer: Sendable {
    public let url: String
    private let directory: String
    private let master: ManagedProcess

    /// - Parameters:
    ///   - port: where it listens on 127.0.0.1.
    ///   - upstreams: the relays' `HOST:PORT`s.
    public init(port: Int, upstreams: [String]) async throws {
        let nginx = try await Self.executable()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-nginx-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        let configuration = """
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log stderr warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
            \(Self.relayBalancing(upstreams: upstreams, listen: "127.0.0.1:\(port)"))
            }
            """
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        master = try ManagedProcess(name: "nginx", executable: nginx, arguments: [
            "-p", directory, "-c", directory + "/nginx.conf", "-g", "daemon off;"])
        url = "http://127.0.0.1:\(port)"
        try await eventually("nginx listens on \(url)", timeout: .seconds(10)) {
            guard master.isRunning else { throw HarnessError("nginx exited:\n\(master.text)") }
            return Self.accepts(port: port)
        }
    }

    /// The `upstream` and `server` blocks of docs/relay.md's load-balancer example.
    static func relayBalancing(upstreams: [String], listen: String) -> String {
        """
            upstream pushrelay {
                \(upstreams.map { "server \($0) max_fails=1 fail_timeout=2s;" }.joined(separator: "\n        "))
                keepalive 32;
            }
            server {
                listen \(listen);
                location / {
                    proxy_pass http://pushrelay;
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                    proxy_set_header Host $host;
                    proxy_read_timeout 75s;
                    proxy_next_upstream error timeout http_502 http_503;
                    proxy_next_upstream_tries 3;
                }
            }
        """
    }

    public func stop() async {
        await master.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func executable() async throws -> String {
        let path = "/usr/sbin/nginx"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        guard getuid() == 0 else { throw HarnessError("nginx is not installed: run `make deps` or apt-get install nginx") }
        let install = try await CommandResult.run("/bin/sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx"])
        guard install.status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("installing nginx failed:\n\(install.stdout)\n\(install.stderr)")
        }
        return path
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
