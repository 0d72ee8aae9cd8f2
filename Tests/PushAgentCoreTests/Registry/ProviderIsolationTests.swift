import Foundation
import Testing
import PushAgentCore

/// docs/design.md §2: a provider is added by its own folders and one line in each registry. Code outside those that
/// names a provider (its identifier, or a type or value spelled after it) is a place the next provider would have to
/// edit too.
struct ProviderIsolationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The modules of the agent itself, and of the emulator and the harness that play the providers.
    static let modules = ["PushAgentCore", "PushAgentStore", "PushAgentDaemon", "DesktopNotify", "ControlWire",
                          "ControlClient", "pushctl", "pushagentd", "PushSim", "pushsim", "ClusterHarness"]
    /// The lists a provider is added to, one line each.
    static let registries = ["PushAgentCore/Providers/Registry/ProviderRegistry.swift",
                             "PushAgentDaemon/Providers/ProviderModules.swift", "pushctl/PushCtl.swift",
                             "PushSim/Server/SimRole.swift", "pushsim/PushSimCommand.swift"]

    @Test func noSharedFileNamesAProvider() throws {
        let names = ProviderRegistry.all.map(\.provider.rawValue)
        let pattern = try NSRegularExpression(pattern: "\\b(" + names.joined(separator: "|") + ")", options: .caseInsensitive)
        var offenders: [String] = []
        for module in Self.modules {
            let directory = Self.root.appendingPathComponent("Sources/\(module)")
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let path = "\(module)/\(file)"
                guard !Self.registries.contains(path), !Self.isProvidersOwn(path, names: names) else { continue }
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = Self.withoutComment(String(line))
                    if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                        offenders.append("Sources/\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "shared code names a provider:\n\(offenders.joined(separator: "\n"))")
    }

    /// A folder or file named after the provider is its own.
    static func isProvidersOwn(_ path: String, names: [String]) -> Bool {
        path.split(separator: "/").contains { part in names.contains { part.lowercased().contains($0) } }
    }

    /// Comments may name a provider as an example; a past schema migration keeps the name it was applied under.
    static func withoutComment(_ line: String) -> String {
        if line.contains("registerMigration(") { return "" }
        guard let range = line.range(of: "//") else { return line }
        return String(line[..<range.lowerBound])
    }
}
