import CQRImage
import Foundation

/// Reads the enrollment URI out of a picture of a QR code (PNG or JPEG), with libzbar.
public enum QRImage {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The text of the one QR code in the image at `path`.
    public static func text(inImageAt path: String) throws(Failure) -> String {
        var text: UnsafeMutablePointer<CChar>?
        var error = [CChar](repeating: 0, count: 256)
        let found = cqr_decode_file(path, &text, &error, error.count)
        defer { free(text) }
        switch found {
        case ..<0:
            throw Failure(description: "\(path): \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        case 0:
            throw Failure(description: "\(path): no QR code found in the image (crop it to the code, or paste the URI instead)")
        case 1:
            guard let text else { throw Failure(description: "\(path): out of memory") }
            return String(cString: text)
        default:
            throw Failure(description: "\(path): the image holds \(found) QR codes; crop it to the one to enroll")
        }
    }
}
