#!/usr/bin/env bash
# Sends one FCM message through pushrelay with the real firebase-admin Python SDK (from PyPI), as an identity
# provider's backend does: a service-account file whose token_uri is the relay's /token, and the relay standing in
# for fcm.googleapis.com. The interop test of the relay's OAuth2 token endpoint (Tests/PushRelayTests).
#
#   scripts/firebase-admin-send.sh install                             create the cached venv (idempotent)
#   scripts/firebase-admin-send.sh SERVICE_ACCOUNT_JSON RELAY_URL TOKEN [minimal|every-platform]
#                                   send a data message to the device TOKEN (every-platform: with every platform
#                                   block firebase-admin has: AndroidConfig, APNSConfig, WebpushConfig, FCMOptions)
#
# Prints one JSON line: {"name": ..., "token_lifetime": seconds} or {"error": class name, "message": ...} (exit 1).
# The venv lives in $PUSHAGENT_FIREBASE_ADMIN_CACHE (default .cache/firebase-admin, gitignored).
set -euo pipefail

VERSION=7.7.0
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PUSHAGENT_FIREBASE_ADMIN_CACHE:-$ROOT/.cache/firebase-admin}
VENV=$CACHE/venv-$VERSION

# shellcheck source=python-venv.sh
. "$ROOT/scripts/python-venv.sh"

case "${1:-}" in
install)
    ensure_venv "$VENV" "firebase-admin==$VERSION"
    ;;
*)
    [ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: $0 install | SERVICE_ACCOUNT_JSON RELAY_URL TOKEN [minimal|every-platform]" >&2; exit 2; }
    ensure_venv "$VENV" "firebase-admin==$VERSION"
    exec "$VENV/bin/python" "$ROOT/scripts/firebase_admin_send.py" "$@"
    ;;
esac
