import ArgumentParser
import Foundation
import PushAgentCore
import QRImage

/// Where `pushctl enroll` takes the URI from. The URI holds the account's shared secret, and a command-line argument
/// can be read by every local user (`ps`, /proc/PID/cmdline) while pushctl runs; stdin and a file cannot.
enum EnrollmentInput {
    case argument(String)
    case standardInput
    case file(String)
    case qrImage(String)

    /// The control API refuses larger bodies, so more than this cannot be one enrollment.
    static let maximumBytes = 64 * 1024
    /// `pushctl enroll -`
    static let standardInputMarker = "-"
    /// What an enrollment URI looks like, for a message about an input that holds none.
    static let exampleURI = "pushauth://push/Issuer:account?… (the forms known: \(ProviderRegistry.enrollmentLabels.joined(separator: ", ")))"

    /// The one source the flags name; none is stdin at a terminal (the URI is asked for) and a usage error
    /// elsewhere; several is a usage error.
    init(argument: String?, uriFile: String?, qrImage: String?, interactive: Bool = isatty(STDIN_FILENO) != 0) throws(ValidationError) {
        let sources: [EnrollmentInput] = [
            argument.map { $0 == Self.standardInputMarker ? .standardInput : .argument($0) },
            uriFile.map(EnrollmentInput.file),
            qrImage.map(EnrollmentInput.qrImage),
        ].compactMap { $0 }
        guard let source = sources.first else {
            if interactive {
                self = .standardInput
                return
            }
            throw ValidationError("give the URI on stdin (`pushctl enroll -`), in a file (--uri-file PATH), "
                                  + "or as a picture of the QR code (--qr IMAGE)")
        }
        guard sources.count == 1 else {
            throw ValidationError("give the URI one way only: `-` (stdin), --uri-file PATH, --qr IMAGE, or the URI itself")
        }
        self = source
    }

    /// Where the URI came from, for messages.
    var origin: String {
        switch self {
        case .argument: "the URI argument"
        case .standardInput: "stdin"
        case .file(let path): "--uri-file \(path)"
        case .qrImage(let path): "--qr \(path)"
        }
    }

    var isVisibleToOtherUsers: Bool {
        if case .argument = self { return true }
        return false
    }

    /// The URI, without surrounding whitespace. An empty input or more than one URI is a `ValidationError` (usage);
    /// an unreadable file or picture is an `EnrollmentInputError`.
    func read() throws -> String {
        let text: String
        switch self {
        case .argument(let uri): text = uri
        case .standardInput: text = try Self.readStandardInput()
        case .file(let path): text = try Self.readFile(path)
        case .qrImage(let path):
            do { try UserNamedFile.refuseDirectory(path, origin: origin, expected: "a PNG or JPEG picture of the QR code") }
            catch { throw EnrollmentInputError(description: error.description) }
            do { text = try QRImage.text(inImageAt: path) }
            catch { throw EnrollmentInputError(description: error.description) }
        }
        return try Self.singleURI(in: text, from: origin)
    }

    /// Whitespace around the URI (a file's final newline, a pasted line) is dropped; whitespace inside means more than
    /// one URI, since an enrollment URI percent-encodes its spaces.
    static func singleURI(in text: String, from origin: String) throws(ValidationError) -> String {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard let uri = words.first else {
            throw ValidationError("\(origin) holds no URI: give the URI the QR code holds, e.g. `pushctl enroll - < uri.txt`")
        }
        guard words.count == 1 else {
            // Every enrollment URI has a scheme and "://"; text without one (a pasted sentence, the wrong file) is
            // no URI at all, however many words it has.
            let uris = words.filter { $0.contains("://") }.count
            if uris == 0 {
                throw ValidationError("\(origin) holds no enrollment URI, only text (\(words.count) words): give the URI the "
                                      + "provider's QR code holds, which looks like \(exampleURI), "
                                      + "or a picture of the QR code with --qr IMAGE")
            }
            throw ValidationError("\(origin) holds \(uris == 1 ? "a URI and other text" : "\(uris) URIs") "
                                  + "(\(words.count) words, or a URI with spaces): enroll one account at a time, "
                                  + "with the URI alone on a line of its own")
        }
        return String(uri)
    }

    private static func readStandardInput() throws -> String {
        // At a terminal, one pasted line is the whole input, not shown (it holds the account's secret); a pipe or
        // file is read to its end.
        if isatty(STDIN_FILENO) != 0 {
            return try PasswordInput.ask("Paste the enrollment URI (it is not shown) and press Enter: ")
        }
        return try read(FileHandle.standardInput, origin: "stdin")
    }

    private static func readFile(_ path: String) throws -> String {
        let handle: FileHandle
        do { handle = try UserNamedFile.open(path, origin: "--uri-file \(path)", expected: "the file that holds the URI") }
        catch { throw EnrollmentInputError(description: error.description) }
        defer { try? handle.close() }
        return try read(handle, origin: "--uri-file \(path)")
    }

    private static func read(_ handle: FileHandle, origin: String) throws -> String {
        let data: Data
        do { data = try handle.read(upToCount: maximumBytes + 1) ?? Data() }
        catch { throw EnrollmentInputError(description: "cannot read \(origin): \(error.localizedDescription)") }
        guard data.count <= maximumBytes else {
            throw ValidationError("\(origin) holds more than \(maximumBytes / 1024) KiB: that is not an enrollment URI")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The URI could not be read (exit 1): a missing file, a picture without a QR code.
struct EnrollmentInputError: Error, CustomStringConvertible {
    var description: String
}
