import ControlWire
import Hummingbird

/// `POST /v1/backup` and `POST /v1/restore`: both hand over every account's secrets, so both are writers' only.
struct BackupRoutes: ControlRouteCollection {
    let backups: BackupService
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.writersPost("backup", BackupRequest.self, writers: writers) { body, peer, _ in
            try await backups.backup(passphrase: body.passphrase, peer: peer)
        }
        v1.writersPost("restore", RestoreRequest.self, writers: writers, limit: BackupService.restoreRequestLimit) { body, peer, _ in
            try await backups.restore(file: body.backup, passphrase: body.passphrase, peer: peer)
        }
    }
}
