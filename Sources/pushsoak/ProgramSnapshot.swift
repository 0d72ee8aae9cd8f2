import ClusterHarness
import Foundation

/// Copies of the programs under test, taken at the start: the build directory is shared, and a rebuild during a
/// long run would otherwise swap the daemon between two kills (or make a restart fail with "text file busy").
struct ProgramSnapshot {
    static let programs = ["pushagentd", "pushrelay", "pushsim", "pushctl"]
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushsoak-bin-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for program in Self.programs {
            try FileManager.default.copyItem(atPath: Binaries.path(program), toPath: directory + "/" + program)
        }
        setenv("PUSHAGENT_BIN_DIR", directory, 1)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
