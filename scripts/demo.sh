#!/usr/bin/env bash
# The demo: pushrelay + pushagentd (user mode, state in ./demo-state, or DEMO_DIR) + pushsim playing a ForgeRock
# server. It enrolls an account from a pushauth:// URI pushsim issued, sends a push that waits PUSH_TTL seconds
# (15 minutes: time to read the instructions), and tells you what to type, and how to send another push.
# With --auto it approves the push itself and checks that pushsim verified the answer, then runs the step-up part
# approved the same way (used by `make test`): in a temporary state directory of its own (removed when it passes),
# so that it never touches a demo someone is running.
# With --stepup it shows step-up MFA instead (docs/stepup.md): stepup-example calls stepup-server's protected
# endpoint, the server asks for a TOTP code, and pushagentd asks you (pushctl approve) before the code is given.
set -euo pipefail
cd "$(dirname "$0")/.."

AUTO=0
STEPUP=0
case "${1:-}" in
    "") ;;
    --auto) AUTO=1 ;;
    --stepup) STEPUP=1 ;;
    *) echo "usage: $0 [--auto | --stepup]" >&2; exit 2 ;;
esac
BIN=${PUSHAGENT_BIN_DIR:-$PWD/.build/debug}
if [ "$AUTO" = 1 ]; then
    DIR=${DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/pushagent-demo-auto.XXXXXX")}
else
    DIR=${DEMO_DIR:-$PWD/demo-state}
fi
PUSH_TTL=${PUSH_TTL:-900}
KEY=demo-sender-key-0123456789abcdef0123
PROJECT=demo
SOCKET=$DIR/pushagentd.sock

for program in pushrelay pushagentd pushsim pushctl stepup-server stepup-example; do
    [ -x "$BIN/$program" ] || { echo "demo: $BIN/$program is missing: run 'make build' first" >&2; exit 1; }
done

pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "$AUTO" = 1 ] && [ -z "${DEMO_DIR:-}" ]; then
        if [ "$status" = 0 ]; then rm -rf "$DIR"; else echo "demo: its logs are in $DIR" >&2; fi
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# One demo at a time in a state directory: the lock is on the directory itself, held until this script ends, so a
# second demo started in it stops here instead of removing the running one's state.
mkdir -p "$DIR"
exec 9<"$DIR"
if ! flock -n 9; then
    echo "demo: another demo is running with its state in $DIR: stop it (Ctrl-C in its terminal), or give this" \
         "one a directory of its own: DEMO_DIR=/tmp/demo2 $0 $*" >&2
    exit 1
fi
find "$DIR" -mindepth 1 -maxdepth 1 -exec rm -rf {} +

# Waits for a program's "… listening on URL" line and prints the URL.
listening_url() {
    local log=$1 prefix=$2
    for _ in $(seq 1 200); do
        if line=$(grep -m1 "^$prefix" "$log" 2>/dev/null); then echo "${line#"$prefix"}"; return 0; fi
        sleep 0.1
    done
    echo "demo: no '$prefix' line in $log:" >&2; cat "$log" >&2; return 1
}

"$BIN/pushrelay" --listen 127.0.0.1:0 --state-dir "$DIR/relay" --sender-key "$PROJECT=$KEY" >"$DIR/relay.log" 2>&1 &
pids+=($!)
RELAY=$(listening_url "$DIR/relay.log" "pushrelay listening on ")

"$BIN/pushsim" serve --listen 127.0.0.1:0 --relay "$RELAY" --sender-key "$KEY" --project "$PROJECT" >"$DIR/sim.log" 2>&1 &
pids+=($!)
SIM=$(listening_url "$DIR/sim.log" "pushsim listening on ")

PUSHAGENT_LOG_FORMAT=console "$BIN/pushagentd" --state-dir "$DIR/agent" --socket "$SOCKET" --relay "$RELAY" >"$DIR/agent.log" 2>&1 &
pids+=($!)
export PUSHAGENT_SOCKET=$SOCKET
for _ in $(seq 1 200); do
    "$BIN/pushctl" status --json 2>/dev/null | grep -q '"connected"' && break
    sleep 0.1
done
"$BIN/pushctl" status --json | grep -q '"connected"' || { echo "demo: pushagentd did not connect:" >&2; cat "$DIR/agent.log" >&2; exit 1; }

# Step-up: an account with TOTP (mfauth://totp), a server that expects its codes, and the example client asking.
# The server and pushagentd both know the secret from the URI, as an IdP's server and its authenticator would.
start_stepup() {
    local uri secret server_url
    uri=$("$BIN/pushsim" forgerock enroll-uri --sim "$SIM" --account bob --totp)
    printf '%s\n' "$uri" | "$BIN/pushctl" enroll -
    STEPUP_ACCOUNT=$("$BIN/pushctl" --json accounts | grep -o 'acc_[a-z2-7]*' | tail -n1)
    secret=$(printf '%s' "$uri" | sed -n 's/.*[?&]secret=\([A-Za-z2-7]*\).*/\1/p')
    "$BIN/stepup-server" --listen 127.0.0.1:0 --trigger github-otp --totp-secret "$secret" >"$DIR/stepup-server.log" 2>&1 &
    pids+=($!)
    server_url=$(listening_url "$DIR/stepup-server.log" "stepup-server listening on ")
    "$BIN/stepup-example" "$server_url/protected" --account "$STEPUP_ACCOUNT" --requests 3 >"$DIR/stepup-example.log" 2>&1 &
    EXAMPLE_PID=$!
    pids+=($EXAMPLE_PID)
    for _ in $(seq 1 100); do
        "$BIN/pushctl" list --json | grep -q '"stepup"' && break
        sleep 0.1
    done
    STEPUP_ID=$("$BIN/pushctl" list --json | grep -o 'apr_[a-z2-7]*' | head -n1)
    [ -n "$STEPUP_ID" ] || { echo "demo: no step-up arrived:" >&2; cat "$DIR/stepup-example.log" "$DIR/agent.log" >&2; exit 1; }
}

if [ "$STEPUP" = 1 ]; then
    start_stepup
    "$BIN/pushctl" list
    cat <<TXT

stepup-example sent 3 requests to a protected endpoint; the server asked for a one-time code, and the
example asked pushagentd, once for all three. In another terminal, type:

    export PUSHAGENT_SOCKET=$SOCKET
    $BIN/pushctl show $STEPUP_ID
    $BIN/pushctl approve $STEPUP_ID        (or: $BIN/pushctl deny $STEPUP_ID)

The example's requests then complete below. Logs are in $DIR. Press Ctrl-C to stop everything.

TXT
    tail -n +1 -f "$DIR/stepup-example.log" &
    pids+=($!)
    wait "$EXAMPLE_PID" || true
    sleep 0.2
    exit 0
fi

URI=$("$BIN/pushsim" forgerock enroll-uri --sim "$SIM" --account alice)
echo "pushsim issued: $URI"
# On stdin: as an argument the URI (and the secret in it) would show in every local user's process list.
printf '%s\n' "$URI" | "$BIN/pushctl" enroll -
# One line, run here and printed for sending another push.
SEND_PUSH="$(printf %q "$BIN/pushsim") forgerock push --sim $(printf %q "$SIM") --ttl $PUSH_TTL --message 'Sign in to the demo app from Firefox on Linux?'"
eval "$SEND_PUSH"

for _ in $(seq 1 100); do
    "$BIN/pushctl" list --json | grep -q '"pending"' && break
    sleep 0.1
done
ID=$("$BIN/pushctl" list --json | grep -o 'apr_[a-z2-7]*' | head -n1)
[ -n "$ID" ] || { echo "demo: the push did not arrive:" >&2; cat "$DIR/agent.log" >&2; exit 1; }

# Push bombing: a push reported as fraud mutes the account, and its next push is denied at the provider unseen.
show_mute_after_fraud() {
    "$BIN/pushsim" forgerock push --sim "$SIM" --message "Sign in from a country you never visited?" >/dev/null
    local attack=""
    for _ in $(seq 1 100); do
        attack=$("$BIN/pushctl" list --json | grep -o 'apr_[a-z2-7]*' | head -n1)
        [ -n "$attack" ] && break
        sleep 0.1
    done
    [ -n "$attack" ] || { echo "demo: the second push did not arrive" >&2; exit 1; }
    "$BIN/pushctl" deny "$attack" --fraud
    "$BIN/pushctl" status | grep "muted:" || { echo "demo: the account is not muted" >&2; exit 1; }
    "$BIN/pushsim" forgerock push --sim "$SIM" --message "And again?" >/dev/null
    for _ in $(seq 1 100); do
        "$BIN/pushctl" history | grep -q "muted" && break
        sleep 0.1
    done
    "$BIN/pushctl" history | grep "muted" || { echo "demo: the muted account's push was not denied" >&2; exit 1; }
    "$BIN/pushctl" unmute "$("$BIN/pushctl" --json accounts | grep -o 'acc_[a-z2-7]*' | head -n1)"
}

if [ "$AUTO" = 1 ]; then
    "$BIN/pushctl" approve "$ID"
    for _ in $(seq 1 100); do
        grep -qi "approve.*verified" "$DIR/sim.log" && break
        sleep 0.1
    done
    if ! grep -i "approve.*verified" "$DIR/sim.log"; then
        echo "demo: pushsim did not confirm the answer:" >&2
        cat "$DIR/sim.log" "$DIR/agent.log" >&2
        exit 1
    fi
    show_mute_after_fraud
    start_stepup
    "$BIN/pushctl" list
    "$BIN/pushctl" approve "$STEPUP_ID"
    if wait "$EXAMPLE_PID" && [ "$(grep -c 'HTTP 200' "$DIR/stepup-example.log")" = 3 ]; then
        cat "$DIR/stepup-example.log"
        echo "demo: OK (push approved; a fraud report muted the account and its next push was denied unseen; 3 requests passed one step-up)"
        exit 0
    fi
    echo "demo: the step-up did not let the requests through:" >&2
    cat "$DIR/stepup-example.log" "$DIR/stepup-server.log" "$DIR/agent.log" >&2
    exit 1
fi

cat <<TXT

A push is waiting (it expires in $((PUSH_TTL / 60)) minutes). In another terminal, type:

    export PUSHAGENT_SOCKET=$SOCKET
    $BIN/pushctl list
    $BIN/pushctl approve $ID        (or: $BIN/pushctl deny $ID)

pushsim prints below that it received and verified the answer.
Send another push (then \`pushctl list\` shows its id; add --type challenge for a number to pick):
    $SEND_PUSH
Push bombing: \`pushctl deny ID --fraud\` mutes the account (\`pushctl status\` shows it muted, its pushes are
denied unseen and listed in \`pushctl history\`); \`pushctl unmute ACCOUNT\` ends that. More than 5 pushes a
minute to one account are denied the same way (rate_limited).
Step-up MFA for local programs: scripts/demo.sh --stepup
Logs are in $DIR. Press Ctrl-C to stop everything.

TXT
tail -n 0 -f "$DIR/sim.log" &
pids+=($!)
wait "${pids[0]}"
