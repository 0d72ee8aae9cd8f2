#!/usr/bin/env bash
# A real privacyIDEA server, or its fork eduMFA (both from PyPI), on 127.0.0.1, for the integration tests and for
# trying pushagent by hand.
#
#   scripts/privacyidea-server.sh [--edumfa] install            create the cached venv (idempotent)
#   scripts/privacyidea-server.sh [--edumfa] serve DIR PORT     configure DIR on first use, then run the server in the
#                                                               foreground
#   scripts/edumfa-server.sh ...                                the same as --edumfa
#
# privacyIDEA 3.14, or with --edumfa eduMFA 2.9.5. The venv lives in $PUSHAGENT_PRIVACYIDEA_CACHE (default
# .cache/privacyidea), for eduMFA in $PUSHAGENT_EDUMFA_CACHE (default .cache/edumfa), both gitignored, and is reused
# between runs; pip's download cache sits beside it. DIR gets a SQLite database and this configuration:
#   admin "admin" / "admin-password-for-tests"; realm "pushrealm" (default) over a flat-file (passwd) resolver with
#   users alice, bob and carol; an enrollment policy firebase configuration = "poll only", ssl_verify = 0, ttl = 10,
#   registration_url = http://127.0.0.1:PORT/ttype/<token type>, and an authentication policy ssl_verify = 0 for
#   everyone. privacyIDEA: the push token's policies (push_…), and authentication policies push_require_presence for
#   bob and push_code_to_phone for carol. eduMFA: the same policies for both of its push token types, edupush_… for
#   `edupush` (/ttype/edupush) and push_… for the legacy `push` (/ttype/push); it has neither presence nor code to
#   phone.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --edumfa ]; then
    shift
    NAME=edumfa-server PACKAGE=edumfa VERSION=2.9.5 CACHE=${PUSHAGENT_EDUMFA_CACHE:-$ROOT/.cache/edumfa}
    MANAGE=edumfa-manage SETUP=() IMPORT=(config importer) CONFIGFILE_VARIABLE=EDUMFA_CONFIGFILE CONFIG=EDUMFA
    CFG=edumfa.cfg
    PUSH_TYPES=(edupush push)
else
    NAME=privacyidea-server PACKAGE=privacyidea VERSION=3.14 CACHE=${PUSHAGENT_PRIVACYIDEA_CACHE:-$ROOT/.cache/privacyidea}
    MANAGE=pi-manage SETUP=(setup) IMPORT=(config import) CONFIGFILE_VARIABLE=PRIVACYIDEA_CONFIGFILE CONFIG=PI
    CFG=pi.cfg
    PUSH_TYPES=(push)
fi
VENV=$CACHE/venv-$VERSION

log() { echo "$NAME: $*" >&2; }

# shellcheck source=python-venv.sh
. "$ROOT/scripts/python-venv.sh"

install() { ensure_venv "$VENV" "$PACKAGE==$VERSION"; }

random_hex() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# The policies' JSON objects, comma separated: for each push token type an enrollment and an authentication policy
# (the action prefix is the token type), then privacyIDEA's presence and code-to-phone users.
policies() {
    local port=$1 type separator=""
    for type in "${PUSH_TYPES[@]}"; do
        cat <<EOF
    $separator{"name": "$type-enroll", "scope": "enrollment", "active": true, "action": {
      "${type}_firebase_configuration": "poll only", "${type}_registration_url": "http://127.0.0.1:$port/ttype/$type",
      "${type}_ssl_verify": "0", "${type}_ttl": "10"}},
    {"name": "$type-auth", "scope": "authentication", "active": true, "action": {"${type}_ssl_verify": "0"}}
EOF
        separator=,
    done
    [ "$PACKAGE" = privacyidea ] || return 0
    cat <<EOF
    ,{"name": "push-presence", "scope": "authentication", "active": true, "user": ["bob"],
     "action": {"push_ssl_verify": "0", "push_require_presence": true}},
    {"name": "push-code-to-phone", "scope": "authentication", "active": true, "user": ["carol"],
     "action": {"push_ssl_verify": "0", "push_code_to_phone": true}}
EOF
}

configure() {
    local dir=$1 port=$2
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    cat >"$dir/$CFG" <<EOF
SQLALCHEMY_DATABASE_URI = 'sqlite:///$dir/$PACKAGE.sqlite'
SECRET_KEY = '$(random_hex)'
${CONFIG}_PEPPER = '$(random_hex)'
${CONFIG}_ENCFILE = '$dir/enckey'
${CONFIG}_AUDIT_KEY_PRIVATE = '$dir/audit-private.pem'
${CONFIG}_AUDIT_KEY_PUBLIC = '$dir/audit-public.pem'
${CONFIG}_LOGFILE = '$dir/$PACKAGE.log'
${CONFIG}_LOGLEVEL = 20
EOF
    # eduMFA has no base URL setting.
    [ "$PACKAGE" = edumfa ] || echo "PI_BASE_URL = 'http://127.0.0.1:$port/'" >>"$dir/$CFG"
    printf '%s\n' 'alice:x:1001:1001:Alice Example,,,:/home/alice:/bin/sh' \
        'bob:x:1002:1002:Bob Example,,,:/home/bob:/bin/sh' 'carol:x:1003:1003:Carol Example,,,:/home/carol:/bin/sh' \
        >"$dir/users"
    cat >"$dir/config.json" <<EOF
{
  "resolver": {"flatfile": {"type": "passwdresolver", "resolvername": "flatfile", "data": {"fileName": "$dir/users"}}},
  "realm": {"pushrealm": {"default": true, "resolver": [{"name": "flatfile", "type": "passwdresolver", "priority": null}]}},
  "policy": [
$(policies "$port")
  ]
}
EOF
    export "$CONFIGFILE_VARIABLE=$dir/$CFG"
    local manage=$VENV/bin/$MANAGE
    "$manage" "${SETUP[@]}" create_enckey >/dev/null
    "$manage" "${SETUP[@]}" create_audit_keys >/dev/null
    "$manage" "${SETUP[@]}" create_tables >/dev/null 2>&1
    "$manage" admin add admin -p admin-password-for-tests >/dev/null
    local import=$dir/config.json
    if [ "$PACKAGE" = edumfa ]; then
        # eduMFA's importer tries a Python literal first and fails on JSON's true and null instead of going on to JSON.
        import=$dir/config.py
        "$VENV/bin/python" -c 'import json, sys; print(repr(json.load(sys.stdin)))' <"$dir/config.json" >"$import"
    fi
    "$manage" "${IMPORT[@]}" -i "$import" >/dev/null
    touch "$dir/.configured"
}

case "${1:-}" in
install)
    install
    ;;
serve)
    [ $# -eq 3 ] || { log "usage: $0 [--edumfa] serve DIR PORT"; exit 2; }
    started=$(date +%s)
    install
    installed=$(date +%s)
    [ -f "$2/.configured" ] || configure "$2" "$3"
    log "ready to start after $((installed - started)) s of install and $(($(date +%s) - installed)) s of configuration"
    export "$CONFIGFILE_VARIABLE=$(cd "$2" && pwd)/$CFG"
    exec "$VENV/bin/$MANAGE" run --host 127.0.0.1 --port "$3" --no-debug --no-reload
    ;;
*)
    log "usage: $0 [--edumfa] install | serve DIR PORT"
    exit 2
    ;;
esac
