import ClusterHarness
import Foundation
import QRImage
import Testing

/// Pictures made by real tools (qrencode, netpbm, cjpeg from Debian), read back through libzbar.
@Suite struct QRImageTests {
    static let uri = "pushauth://push/forgerock:user?a=aHR0cDovL2Rldi5vcGVuYW0uZXhhbXBsZS5jb20&s=b3uYLkQ7dRPjBaIzV0t_aijoXRgMq-NP5AwVAvRfa_E"

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("qrimage-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Runs a shell pipeline in the test's folder.
    func shell(_ command: String) async throws {
        let result = try await CommandResult.run("/bin/sh", ["-c", "set -e; cd \"$0\"; " + command, directory.path])
        try #require(result.status == 0, "failed: \(command): \(result.stderr)")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @Test func readsThePNGThatQrencodeWrote() async throws {
        try await shell("qrencode -o code.png '\(Self.uri)'")
        #expect(try QRImage.text(inImageAt: path("code.png")) == Self.uri)
    }

    @Test func readsAJPEG() async throws {
        try await shell("qrencode -s 6 -o code.png '\(Self.uri)'; pngtopnm code.png | cjpeg -quality 85 > code.jpg")
        #expect(try QRImage.text(inImageAt: path("code.jpg")) == Self.uri)
    }

    @Test func imageWithoutACodeSaysSo() async throws {
        try await shell("ppmmake white 120 120 | pnmtopng > blank.png")
        let error = #expect(throws: QRImage.Failure.self) { try QRImage.text(inImageAt: path("blank.png")) }
        #expect(error?.description.contains("no QR code found") == true)
    }

    @Test func twoCodesAreRefused() async throws {
        try await shell("qrencode -o a.png one; qrencode -o b.png two; pngtopnm a.png > a.pnm; pngtopnm b.png > b.pnm; pnmcat -lr a.pnm b.pnm | pnmtopng > two.png")
        let error = #expect(throws: QRImage.Failure.self) { try QRImage.text(inImageAt: path("two.png")) }
        #expect(error?.description.contains("2 QR codes") == true)
    }

    @Test(arguments: ["not an image at all", "\u{89}PNG\r\n\u{1A}\n truncated"])
    func fileThatIsNotAPictureIsAClearError(content: String) throws {
        try Data(content.utf8).write(to: directory.appendingPathComponent("bad.png"))
        let error = #expect(throws: QRImage.Failure.self) { try QRImage.text(inImageAt: path("bad.png")) }
        #expect(error?.description.contains("bad.png") == true, "names the file: \(error?.description ?? "")")
    }

    @Test func missingFileIsAClearError() {
        let error = #expect(throws: QRImage.Failure.self) { try QRImage.text(inImageAt: path("nowhere.png")) }
        #expect(error?.description.contains("cannot open") == true)
    }
}
