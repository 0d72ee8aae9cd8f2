#!/usr/bin/env bash
# A UnifiedPush connector (an app's side of the D-Bus spec) in Python with dbus-fast from PyPI, written from the
# specification, not by us for the distributor: what the tests of the UnifiedPush distributor, its end-to-end test
# and its soak stand in for apps with (Tests/UnifiedPushBusTests). scripts/unifiedpush_connector.py's docstring
# says what each subcommand does and the JSON it prints or logs.
#
#   scripts/unifiedpush-connector.sh install                  create the cached venv (idempotent)
#   scripts/unifiedpush-connector.sh register ARGS...         Register with a distributor, print the result
#   scripts/unifiedpush-connector.sh unregister ARGS...       Unregister a token
#   scripts/unifiedpush-connector.sh serve ARGS...            serve Connector1/2 for apps, logging each call
#
# A D-Bus service file may run `serve` as its Exec (activation). The venv lives in $PUSHAGENT_UNIFIEDPUSH_CACHE
# (default .cache/unifiedpush-connector, gitignored).
set -euo pipefail

REQUIREMENTS=("dbus-fast==5.2.0")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PUSHAGENT_UNIFIEDPUSH_CACHE:-$ROOT/.cache/unifiedpush-connector}
VENV=$CACHE/venv-dbus-fast-5.2.0

# shellcheck source=python-venv.sh
. "$ROOT/scripts/python-venv.sh"

case "${1:-}" in
install)
    ensure_venv "$VENV" "${REQUIREMENTS[@]}"
    ;;
register | unregister | serve)
    ensure_venv "$VENV" "${REQUIREMENTS[@]}"
    exec "$VENV/bin/python" "$ROOT/scripts/unifiedpush_connector.py" "$@"
    ;;
*)
    echo "usage: $0 install | register|unregister|serve ARGS... (see scripts/unifiedpush_connector.py)" >&2
    exit 2
    ;;
esac
