import Foundation

/// Where the built programs are: `PUSHAGENT_BIN_DIR`, else the package's `.build/debug`.
public enum Binaries {
    public static func path(_ name: String, file: String = #filePath) -> String {
        if let dir = ProcessInfo.processInfo.environment["PUSHAGENT_BIN_DIR"], !dir.isEmpty { return dir + "/" + name }
        var root = URL(fileURLWithPath: file)
        while root.path != "/", !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/\(name)").path
    }
}
