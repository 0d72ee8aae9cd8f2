import ControlWire
import Hummingbird

/// `POST /v1/backup` and `POST /v1/restore`: both hand over every account's secrets, so both are writers' only.
struct BackupRoutes: ControlRouteCollection {
    let backups: BackupService
    let writers: Writers

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.post("backup") { request, context in
            let peer = try await writers.peer(context)
            let body = try await request.decodeJSON(BackupRequest.self)
            return try JSONResponse.ok(try await backups.backup(passphrase: body.passphrase, peer: peer))
        }
        v1.post("restore") { request, context in
            let peer = try await writers.peer(context)
            let body = try await request.decodeJSON(RestoreRequest.self, limit: BackupService.restoreRequestLimit)
            return try JSONResponse.ok(try await backups.restore(file: body.backup, passphrase: body.passphrase, peer: peer))
        }
    }
}
