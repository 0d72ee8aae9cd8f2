#!/usr/bin/env bash
# A real privacyIDEA server (from PyPI) on 127.0.0.1, for the integration tests and for trying pushagent by hand.
#
#   scripts/privacyidea-server.sh install              create the cached venv (idempotent)
#   scripts/privacyidea-server.sh serve DIR PORT       configure DIR on first use, then run the server in the foreground
#
# The venv lives in $PUSHAGENT_PRIVACYIDEA_CACHE (default .cache/privacyidea, gitignored) and is reused between runs;
# pip's download cache sits beside it. DIR gets a SQLite database and this configuration:
#   admin "admin" / "admin-password-for-tests"; realm "pushrealm" (default) over a flat-file (passwd) resolver with
#   users alice, bob and carol; an enrollment policy push_firebase_configuration = "poll only", push_ssl_verify = 0,
#   push_registration_url = http://127.0.0.1:PORT/ttype/push; authentication policies push_ssl_verify = 0 for
#   everyone, push_require_presence for bob and push_code_to_phone for carol.
set -euo pipefail

VERSION=3.14
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PUSHAGENT_PRIVACYIDEA_CACHE:-$ROOT/.cache/privacyidea}
VENV=$CACHE/venv-$VERSION

log() { echo "privacyidea-server: $*" >&2; }

# shellcheck source=python-venv.sh
. "$ROOT/scripts/python-venv.sh"

install() { ensure_venv "$VENV" "privacyidea==$VERSION"; }

configure() {
    local dir=$1 port=$2
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    cat >"$dir/pi.cfg" <<EOF
SQLALCHEMY_DATABASE_URI = 'sqlite:///$dir/privacyidea.sqlite'
SECRET_KEY = '$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')'
PI_PEPPER = '$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')'
PI_ENCFILE = '$dir/enckey'
PI_AUDIT_KEY_PRIVATE = '$dir/audit-private.pem'
PI_AUDIT_KEY_PUBLIC = '$dir/audit-public.pem'
PI_LOGFILE = '$dir/privacyidea.log'
PI_LOGLEVEL = 20
PI_BASE_URL = 'http://127.0.0.1:$port/'
EOF
    printf '%s\n' 'alice:x:1001:1001:Alice Example,,,:/home/alice:/bin/sh' \
        'bob:x:1002:1002:Bob Example,,,:/home/bob:/bin/sh' 'carol:x:1003:1003:Carol Example,,,:/home/carol:/bin/sh' \
        >"$dir/users"
    cat >"$dir/config.json" <<EOF
{
  "resolver": {"flatfile": {"type": "passwdresolver", "resolvername": "flatfile", "data": {"fileName": "$dir/users"}}},
  "realm": {"pushrealm": {"default": true, "resolver": [{"name": "flatfile", "type": "passwdresolver", "priority": null}]}},
  "policy": [
    {"name": "push-enroll", "scope": "enrollment", "active": true, "action": {
      "push_firebase_configuration": "poll only", "push_registration_url": "http://127.0.0.1:$port/ttype/push",
      "push_ssl_verify": "0", "push_ttl": "10"}},
    {"name": "push-auth", "scope": "authentication", "active": true, "action": {"push_ssl_verify": "0"}},
    {"name": "push-presence", "scope": "authentication", "active": true, "user": ["bob"],
     "action": {"push_ssl_verify": "0", "push_require_presence": true}},
    {"name": "push-code-to-phone", "scope": "authentication", "active": true, "user": ["carol"],
     "action": {"push_ssl_verify": "0", "push_code_to_phone": true}}
  ]
}
EOF
    export PRIVACYIDEA_CONFIGFILE=$dir/pi.cfg
    local manage=$VENV/bin/pi-manage
    "$manage" setup create_enckey >/dev/null
    "$manage" setup create_audit_keys >/dev/null
    "$manage" setup create_tables >/dev/null 2>&1
    "$manage" admin add admin -p admin-password-for-tests >/dev/null
    "$manage" config import -i "$dir/config.json" >/dev/null
    touch "$dir/.configured"
}

case "${1:-}" in
install)
    install
    ;;
serve)
    [ $# -eq 3 ] || { log "usage: $0 serve DIR PORT"; exit 2; }
    started=$(date +%s)
    install
    installed=$(date +%s)
    [ -f "$2/.configured" ] || configure "$2" "$3"
    log "ready to start after $((installed - started)) s of install and $(($(date +%s) - installed)) s of configuration"
    export PRIVACYIDEA_CONFIGFILE=$(cd "$2" && pwd)/pi.cfg
    exec "$VENV/bin/pi-manage" run --host 127.0.0.1 --port "$3" --no-debug --no-reload
    ;;
*)
    log "usage: $0 install | serve DIR PORT"
    exit 2
    ;;
esac
