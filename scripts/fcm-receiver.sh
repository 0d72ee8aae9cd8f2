#!/usr/bin/env bash
# Runs the real firebase-messaging FCM client (PyPI, pinned) against pushsim's FCM emulator: the proof that the
# emulator speaks what a client nobody here wrote expects (Tests/IntegrationTests/FCMEmulatorInteropTests.swift).
#
#   scripts/fcm-receiver.sh install                                   create the cached venv (idempotent)
#   scripts/fcm-receiver.sh python ARGS...                            its python (with http_ece: webpush_encrypt.py)
#   SSL_CERT_FILE=CA.pem scripts/fcm-receiver.sh HTTP_BASE MCS_HOST MCS_PORT STATE_FILE
#
# See scripts/fcm_receiver.py for what it prints. The venv lives in $PUSHAGENT_FCM_RECEIVER_CACHE
# (default .cache/firebase-messaging, gitignored).
set -euo pipefail

VERSION=0.4.4
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PUSHAGENT_FCM_RECEIVER_CACHE:-$ROOT/.cache/firebase-messaging}
VENV=$CACHE/venv-$VERSION

# shellcheck source=python-venv.sh
. "$ROOT/scripts/python-venv.sh"

case "${1:-}" in
install)
    ensure_venv "$VENV" "firebase-messaging==$VERSION"
    ;;
python)
    shift
    ensure_venv "$VENV" "firebase-messaging==$VERSION"
    exec "$VENV/bin/python" "$@"
    ;;
*)
    [ $# -eq 4 ] || { echo "usage: $0 install | python ARGS... | HTTP_BASE MCS_HOST MCS_PORT STATE_FILE" >&2; exit 2; }
    ensure_venv "$VENV" "firebase-messaging==$VERSION"
    exec "$VENV/bin/python" -u "$ROOT/scripts/fcm_receiver.py" "$@"
    ;;
esac
