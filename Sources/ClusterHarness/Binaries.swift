import Foundation

/// Where the built programs are: `PUSHAGENT_BIN_DIR`, else the package's `.build/debug`.
public enum Binaries {
    public static func path(_ name: String, file: String = #filePath) -> String {
        if let dir = ProcessInfo.processInfo.environment["PUSHAGENT_BIN_DIR"], !dir.isEmpty { return dir + "/" + name }
        return packageRoot(file: file).appendingPathComponent(".build/debug/\(name)").path
    }

    /// The checkout this file belongs to (where Package.swift is).
    public static func packageRoot(file: String = #filePath) -> URL {
        var root = URL(fileURLWithPath: file)
        while root.path != "/", !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        return root
    }
}
