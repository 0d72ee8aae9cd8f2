import Foundation
import GRDB
@testable import PushAgentStore
import Testing

/// The records a push writes format their dates themselves; the text must be GRDB's to the byte, or rows written
/// either way, and dates bound as query arguments, would compare and sort apart.
struct StoredDateTests {
    private func grdb(_ date: Date) -> String? { String.fromDatabaseValue(date.databaseValue) }
    private func ours(_ date: Date) -> String? { String.fromDatabaseValue(StoredDate.databaseValue(date).databaseValue) }

    @Test func writesWhatGRDBWrites() {
        var random = SystemRandomNumberGenerator()
        // Both ends: a date a hair before 1970 rounds into it, one a hair before 10000 rounds out of the stored years.
        var dates = [0, -0.0004, 0.0005, 0.0004999, 0.9995, 951_782_400, 253_402_300_799.999, 253_402_300_799.9994,
                     253_402_300_799.9996, Date().timeIntervalSince1970]
            .map { Date(timeIntervalSince1970: $0) }
        for _ in 0..<20_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: 0..<253_402_300_800, using: &random)))
            // Whole milliseconds give or take a hair: where rounding decides.
            let milliseconds = Double(Int64.random(in: 0..<4_102_444_800_000, using: &random))
            dates.append(Date(timeIntervalSince1970: milliseconds / 1000 + Double.random(in: -1e-6...1e-6, using: &random)))
            dates.append(Date(timeIntervalSince1970: (milliseconds + 0.5) / 1000))
        }
        for date in dates {
            #expect(ours(date) == grdb(date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func datesOutsideTheStoredYearsAreLeftToGRDB() {
        for seconds in [-1.0, -86_400 * 365.25 * 100, 253_402_300_800, 1e13] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ours(date) == grdb(date), "\(seconds)")
        }
    }
}
