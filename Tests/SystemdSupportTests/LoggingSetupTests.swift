import Testing
@testable import SystemdSupport

@Suite struct LoggingSetupTests {
    @Test func journalOnlyUnderSystemdWithSocket() {
        #expect(LoggingSetup.choose(forced: nil, stderrIsJournal: true, invocationID: nil, journalSocketExists: true) == .journal)
        #expect(LoggingSetup.choose(forced: nil, stderrIsJournal: false, invocationID: "4f1c", journalSocketExists: true) == .journal)
        #expect(LoggingSetup.choose(forced: nil, stderrIsJournal: true, invocationID: "4f1c", journalSocketExists: false) == .console)
        #expect(LoggingSetup.choose(forced: nil, stderrIsJournal: false, invocationID: nil, journalSocketExists: true) == .console)
        #expect(LoggingSetup.choose(forced: nil, stderrIsJournal: false, invocationID: "", journalSocketExists: true) == .console)
    }

    @Test func environmentForcesFormat() {
        #expect(LoggingSetup.choose(forced: "journal", stderrIsJournal: false, invocationID: nil, journalSocketExists: false) == .journal)
        #expect(LoggingSetup.choose(forced: "console", stderrIsJournal: true, invocationID: "4f1c", journalSocketExists: true) == .console)
        #expect(LoggingSetup.choose(forced: "bogus", stderrIsJournal: true, invocationID: nil, journalSocketExists: true) == .journal)
    }

    @Test func journalStreamMustMatchDeviceAndInode() {
        #expect(StandardError.journalStream("8:12345", matchesDevice: 8, inode: 12345))
        #expect(!StandardError.journalStream("8:12346", matchesDevice: 8, inode: 12345))
        #expect(!StandardError.journalStream("8:", matchesDevice: 8, inode: 0))
        #expect(!StandardError.journalStream("garbage", matchesDevice: 8, inode: 12345))
        #expect(!StandardError.journalStream(nil, matchesDevice: 8, inode: 12345))
    }
}
