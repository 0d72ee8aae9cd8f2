#!/usr/bin/env bash
# Sends Web Push messages to a pushrelay endpoint with two PyPI libraries nobody here wrote, pywebpush and webpush,
# and decrypts what a device received: the interop test of the relay's push service (Tests/IntegrationTests).
#
#   scripts/webpush-send.sh install                 create the cached venv (idempotent)
#   scripts/webpush-send.sh python ARGS...          run scripts/webpush_send.py in it (its docstring says what)
#
# The venv lives in $PUSHAGENT_WEBPUSH_CACHE (default .cache/webpush-senders, gitignored).
set -euo pipefail

REQUIREMENTS=("pywebpush==2.5.0" "webpush==1.0.6")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PUSHAGENT_WEBPUSH_CACHE:-$ROOT/.cache/webpush-senders}
VENV=$CACHE/venv-pywebpush-2.5.0-webpush-1.0.6

# shellcheck source=python-venv.sh
. "$ROOT/scripts/python-venv.sh"

case "${1:-}" in
install)
    ensure_venv "$VENV" "${REQUIREMENTS[@]}"
    ;;
python)
    shift
    ensure_venv "$VENV" "${REQUIREMENTS[@]}"
    exec "$VENV/bin/python" "$ROOT/scripts/webpush_send.py" "$@"
    ;;
*)
    echo "usage: $0 install | python vapid-key|send|send-to|decrypt ARGS..." >&2
    exit 2
    ;;
esac
