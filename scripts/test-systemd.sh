#!/usr/bin/env bash
# Installs the pushagent .deb in a booted systemd and checks the units as an admin and users would use them.
#
#   scripts/test-systemd.sh PACKAGE.deb        (run by `make test-systemd`, as root, with its debug test package
#                                              .build/test-package/pushagent-debug-test_*.deb)
#
# The container is the host's own tree under systemd-nspawn: a tmpfs root (--volatile=yes) with /etc, /usr and /var
# as overlays whose writes stay in a temporary directory, a private network (its own loopback), and the Swift
# toolchain bound read-only (a debug package links its runtime). The host is not changed; the container is
# stopped and its directory removed on every exit. Prints "N passed, N failed" and exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

DEB=$(realpath "${1:?usage: $0 PACKAGE.deb}")
[ "$(id -u)" = 0 ] || { echo "test-systemd: needs root (systemd-nspawn)" >&2; exit 2; }
command -v systemd-nspawn >/dev/null || { echo "test-systemd: systemd-nspawn missing: apt-get install systemd-container" >&2; exit 2; }

STARTED=$(date +%s)
WORK=$(mktemp -d /var/tmp/pushagent-systemd-test.XXXXXX)
MACHINE=pushagent-test-$$
NSPAWN_PID=""
LEADER=""
PASSED=0
FAILED=0
SENDER_KEY=systemd-test-sender-key-0123456789abcdef
RELAY=http://127.0.0.1:8470
SIM=http://127.0.0.1:8480

cleanup() {
    if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
        kill -TERM "$NSPAWN_PID" # nspawn asks the container's systemd to power off
        for _ in $(seq 1 100); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$NSPAWN_PID" 2>/dev/null || true
        wait "$NSPAWN_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { PASSED=$((PASSED + 1)); echo "ok   - $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL - $1"; [ -z "${2:-}" ] || sed 's/^/       /' <<<"$2"; }

# Runs a command inside the container as root, with a clean environment.
ct() { nsenter -t "$LEADER" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# Runs a command inside the container as USER (with the user's groups, as after a login).
ct_as() { local user=$1; shift; ct setpriv --reuid "$user" --regid "$user" --init-groups "$@"; }

# check NAME COMMAND...: passes when COMMAND exits 0; otherwise shows its output.
check() {
    local name=$1 output; shift
    if output=$("$@" 2>&1); then pass "$name"; else fail "$name" "$output"; fi
}

# Polls COMMAND (up to SECONDS) until it exits 0; on timeout prints what its last try printed.
wait_for() {
    local seconds=$1 output; shift
    local deadline=$(($(date +%s) + seconds))
    until output=$("$@" 2>&1); do
        [ "$(date +%s)" -lt "$deadline" ] || { echo "still failing after ${seconds}s: $output"; return 1; }
        sleep 0.5
    done
}

unit_property() { ct systemctl show -P "$2" "$1"; }
journal_has() { ct journalctl --no-pager -q -u "$1" --grep "$2" >/dev/null; }

boot_container() {
    local binds=(--bind-ro="$(dirname "$DEB")":/mnt/pushagent-test)
    [ -d /opt/swift ] && binds+=(--bind-ro=/opt/swift)
    mkdir -p "$WORK/etc" "$WORK/usr" "$WORK/var"
    systemd-nspawn -D / --volatile=yes --boot --register=no --keep-unit --machine="$MACHINE" --private-network \
        --console=read-only --overlay=/etc:"$WORK/etc":/etc --overlay=/usr:"$WORK/usr":/usr \
        --overlay=/var:"$WORK/var":/var "${binds[@]}" \
        -- systemd.unit=basic.target systemd.firstboot=off >"$WORK/boot.log" 2>&1 &
    NSPAWN_PID=$!
    for _ in $(seq 1 100); do
        # The container's PID 1 (nspawn's child named systemd, not the short-lived intermediate one).
        LEADER=$(ps -o pid=,comm= --ppid "$NSPAWN_PID" | awk '$2 == "systemd" { print $1; exit }')
        [ -n "$LEADER" ] && break
        kill -0 "$NSPAWN_PID" 2>/dev/null || break
        sleep 0.2
    done
    local state=""
    # Until its manager answers, systemctl fails at once rather than waiting; until PID 1 has created
    # /run/systemd/system (a loaded machine takes seconds), sd_booted() is false and it prints "offline".
    for _ in $(seq 1 120); do
        [ -n "$LEADER" ] || break
        state=$(ct systemctl is-system-running --wait 2>/dev/null)
        case "$state" in initializing|starting|offline|"") sleep 0.5 ;; *) break ;; esac
    done
    if [ "$state" = running ]; then
        pass "a real systemd booted in the container ($(ct systemctl --version | head -n1))"
    else
        fail "a real systemd booted in the container (state: ${state:-none})" "$(tail -n 30 "$WORK/boot.log")"
        echo "$PASSED passed, $FAILED failed"
        exit 1
    fi
}

# Writes the test configuration: the relay on the container's loopback, short long-polls (the watchdog check
# waits for the loop's silence to exceed a long-poll), operators = the pushagent group.
configure() {
    ct sh -c "cat > /etc/pushagent/pushrelay.toml" <<EOF
listen = "127.0.0.1:8470"
state_dir = "/var/lib/pushrelay"
[sender_keys]
demo = "$SENDER_KEY"
EOF
    write_agent_config '["@pushagent"]'
    ct useradd --no-create-home --groups pushagent alice
    ct useradd --no-create-home bob
}

write_agent_config() {
    ct sh -c "cat > /etc/pushagent/pushagentd.toml" <<EOF
relay_url = "$RELAY"
operators = $1
poll_wait_seconds = 2
backoff_max_seconds = 2
EOF
}

sealing_key_made() {
    local credential=/etc/credstore.encrypted/pushagentd-kek
    [ "$(ct stat -c %a "$credential")" = 600 ] &&
        ct systemd-creds decrypt --name=pushagentd-kek "$credential" - | grep -q '^pushagent-kek v1 sealed-by=host$'
}
sealed_by_host_key() { ct_as alice pushctl status | grep -qx 'secrets sealed by: host key'; }
# The ForgeRock shared secret of enrollment URI $1, as the credentials JSON would hold it in clear (standard base64;
# its longest run without "/", which JSONEncoder escapes), must appear in no file of the state.
secret_sealed_in_state() {
    local clear
    clear=$(python3 -c '
import base64, sys, urllib.parse
secret = urllib.parse.parse_qs(urllib.parse.urlparse(sys.argv[1]).query)["s"][0]
print(max(base64.b64encode(base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))).decode().split("/"), key=len))
' "$1")
    [ "${#clear}" -ge 8 ] || { echo "no shared secret in the URI"; return 1; }
    if ct grep -rlF -- "$clear" /var/lib/pushagent; then echo "found in clear: $clear"; return 1; fi
}

pending_ids() { ct_as alice pushctl list --json | grep -o 'apr_[a-z2-7]*'; }
relay_connected() { ct pushctl status --json | grep -q '"connected"'; }
status_in_words() { unit_property pushagentd.service StatusText | grep -Eq '^connected to relay, [0-9]+ pending$'; }
approval_state_is() { ct pushctl show "$1" --json | grep -Eq "\"state\" *: *\"$2\""; }
listed() { ct pushctl list --all --json | grep -q "$1"; }

# refused_as USER EXPECTED COMMAND...: passes when COMMAND fails as USER and says EXPECTED.
refused_as() {
    local user=$1 expected=$2 output; shift 2
    if output=$(ct_as "$user" "$@" 2>&1); then echo "it succeeded: $output"; return 1; fi
    grep -qF "$expected" <<<"$output" || { echo "$output"; return 1; }
}

# The approval's whole story by its journal field: created, then answered with the operator's uid.
approval_story() {
    local story
    story=$(ct journalctl --no-pager -u pushagentd.service "PUSHAGENT_APPROVAL_ID=$1" -o verbose)
    grep -q MESSAGE_ID=3318ff4fe4194bd8909797d473cb75ef <<<"$story" &&
        grep -q MESSAGE_ID=8b8c40c1ad3d4c168b02886b57c9be84 <<<"$story" &&
        grep -q "PUSHAGENT_PEER_UID=$2" <<<"$story" || { echo "$story"; return 1; }
}

restarted_since() {
    [ "$(unit_property pushagentd.service NRestarts)" -gt "$1" ] && [ "$(unit_property pushagentd.service MainPID)" != 0 ] ||
        { ct systemctl status --no-pager -n 12 pushagentd.service; return 1; }
}

state_survived() {
    ct systemctl start pushagentd.service && listed "$1" && listed "$2" && ct pushctl status --json | grep -qF "$3"
}

secrets_not_logged() {
    [ -n "$1" ] && [ -n "$2" ] && ! ct journalctl --no-pager -o export | grep -aqF -e "$1" -e "$2"
}
send_push() { ct pushsim forgerock push --sim "$SIM" --message "$1" >/dev/null; }

# Waits for a new pending approval beyond those listed in $1 and prints its id.
new_pending_id() {
    local before=$1 id
    for _ in $(seq 1 60); do
        id=$(pending_ids | grep -vxF -e "${before:-none}" | head -n1)
        [ -n "$id" ] && { echo "$id"; return 0; }
        sleep 0.5
    done
    return 1
}

check_units_statically() {
    local units=(/usr/lib/systemd/system/pushagentd.service /usr/lib/systemd/system/pushagentd.socket
                 /usr/lib/systemd/system/pushrelay.service /usr/lib/systemd/user/pushagentd.service
                 /usr/lib/systemd/user/pushagentd.socket /usr/lib/systemd/user/pushagent-notify.service
                 /usr/lib/systemd/user/pushagent-unifiedpush.service)
    local unit output
    for unit in "${units[@]}"; do
        output=$(ct systemd-analyze verify "$unit" 2>&1)
        if [ -z "$output" ]; then pass "systemd-analyze verify $unit prints nothing"; else fail "systemd-analyze verify $unit prints nothing" "$output"; fi
    done
    if ct test -L /etc/systemd/user/graphical-session.target.wants/pushagent-notify.service; then
        pass "the package enables pushagent-notify.service for every user's graphical session"
    else
        fail "the package enables pushagent-notify.service for every user's graphical session"
    fi
    local name limit exposure
    for name in pushagentd.service:1.5 pushrelay.service:2.0; do
        limit=${name#*:}; name=${name%%:*}
        exposure=$(ct systemd-analyze security --offline=true "/usr/lib/systemd/system/$name" 2>&1 \
            | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
        if [ -n "$exposure" ] && awk "BEGIN { exit !($exposure <= $limit) }"; then
            pass "systemd-analyze security: $name exposure $exposure (at most $limit)"
        else
            fail "systemd-analyze security: $name exposure ${exposure:-unknown} (at most $limit)"
        fi
    done
}

check_catalog() {
    local ids missing=""
    ids=$(sed -n 's/.*static let [A-Za-z]* = "\([0-9a-f]\{32\}\)".*/\1/p' Sources/PushAgentDaemon/Runtime/LogMessageID.swift)
    for id in $ids; do ct journalctl --list-catalog "$id" 2>/dev/null | grep -q "$id" || missing="$missing $id"; done
    if [ -n "$ids" ] && [ -z "$missing" ]; then pass "the journal catalog explains every MESSAGE_ID ($(wc -w <<<"$ids"))"
    else fail "the journal catalog explains every MESSAGE_ID" "missing:$missing"; fi
}

# pushctl approve ID in a pseudo-terminal as USER, answering each "Password:" prompt (pkttyagent's) with
# $ANSWER_PASSWORD; prints what the terminal showed, exits with pushctl's status.
approve_in_terminal() {
    local user=$1 id=$2
    ct_as "$user" env ANSWER_PASSWORD="$ANSWER_PASSWORD" python3 -c '
import os, pty, select, signal, sys, termios, time
pid, terminal = pty.fork()
if pid == 0:
    os.execvp("pushctl", ["pushctl", "approve", sys.argv[1]])
shown, answered, deadline = b"", 0, time.time() + 120
while time.time() < deadline:
    if terminal in select.select([terminal], [], [], 1)[0]:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
        if shown.count(b"Password:") > answered:
            answered += 1
            # pkttyagent turns echo off after its prompt, flushing what was typed before: answer once it has.
            for _ in range(100):
                if not termios.tcgetattr(terminal)[3] & termios.ECHO:
                    break
                time.sleep(0.05)
            time.sleep(0.2)
            os.write(terminal, os.environ["ANSWER_PASSWORD"].encode() + b"\n")
if time.time() >= deadline:
    shown += b"\n(no answer in time: killed)"
    os.killpg(pid, signal.SIGKILL)
sys.stdout.write(shown.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
' "$id"
}

# approved_in_terminal USER ID: pkttyagent asked for the password in pushctl's terminal, and the approval went through.
approved_in_terminal() {
    local output
    output=$(approve_in_terminal "$1" "$2" 2>&1) && grep -q "Password:" <<<"$output" && grep -q "$2 approved" <<<"$output" ||
        { echo "$output"; return 1; }
}

# refused_in_terminal USER ID EXPECTED: pushctl approve failed and said EXPECTED.
refused_in_terminal() {
    local output
    if output=$(approve_in_terminal "$1" "$2" 2>&1); then echo "it succeeded: $output"; return 1; fi
    grep -qF "$3" <<<"$output" || { echo "$output"; return 1; }
}

# verify_failure_audited ID "UID DETAIL": the audit log holds that failed user verification of approval ID.
verify_failure_audited() {
    ct sqlite3 /var/lib/pushagent/agent.sqlite \
        "SELECT peer_uid || ' ' || detail FROM audit WHERE event = 'verify_failed' AND subject = '$1'" | grep -qx "$2" ||
        { ct sqlite3 /var/lib/pushagent/agent.sqlite "SELECT * FROM audit WHERE event = 'verify_failed'"; return 1; }
}

# A verify approval (ForgeRock's biometric push) approved by a non-root operator through polkit, as the system service
# runs: pushagentd (user pushagent, no access to /etc/shadow) asks polkitd, and pkttyagent asks in pushctl's terminal.
check_polkit_verification() {
    local alice_uid before verify denied
    alice_uid=$(ct id -u alice)
    ct sh -c 'echo alice:alice-login-password | chpasswd'
    check "polkitd knows the package's action (pkaction; polkitd started by D-Bus)" \
        ct pkaction --action-id org.pushagent.approve-verified --verbose
    polkit_in_status() { ct_as alice pushctl status --json | grep -Eq '"user_verification" *: *"polkit"'; }
    check "pushctl status --json says verify approvals go through polkit" polkit_in_status
    before=$(pending_ids)
    ct pushsim forgerock push --sim "$SIM" --type biometric --message "Sign in with your fingerprint?" >/dev/null
    verify=$(new_pending_id "$before")
    check "a biometric push is a pending verify approval" test -n "$verify"
    ANSWER_PASSWORD=not-alices-password
    check "a wrong password at pkttyagent's prompt is refused, saying what to do" \
        refused_in_terminal alice "$verify" "the password was wrong, or the dialog was dismissed; approve $verify again"
    check "… the failure is audited with alice's uid" verify_failure_audited "$verify" "$alice_uid user=alice polkit=not_authenticated"
    check "… and the approval is still pending" approval_state_is "$verify" pending
    sleep 2 # the wait after a failed verification (VerificationAttempts)
    ANSWER_PASSWORD=alice-login-password
    check "alice approves it with her password at pkttyagent's prompt (pushctl approve in a terminal)" \
        approved_in_terminal alice "$verify"
    check "… and it is approved" approval_state_is "$verify" approved

    ct sh -c 'cat > /etc/polkit-1/rules.d/10-pushagent-test.rules' <<'RULE'
polkit.addRule(function(action, subject) {
    if (action.id == "org.pushagent.approve-verified" && subject.user == "alice") return polkit.Result.NO;
});
RULE
    sleep 1 # polkitd reloads its rules when the directory changes
    before=$(pending_ids)
    ct pushsim forgerock push --sim "$SIM" --type biometric --message "Another fingerprint sign-in?" >/dev/null
    denied=$(new_pending_id "$before")
    check "a polkit rule that says no refuses alice's approval without asking, and says so" \
        refused_in_terminal alice "$denied" "an administrator's polkit rule forbids it"
    check "… audited" verify_failure_audited "$denied" "$alice_uid user=alice polkit=denied_by_rule"
    check "… and the approval is still pending" approval_state_is "$denied" pending
    ct rm -f /etc/polkit-1/rules.d/10-pushagent-test.rules
    check "neither password is in any journal field" secrets_not_logged alice-login-password not-alices-password
}

# The desktop pair under systemd/user/, in carol's own user manager (started by lingering, as at a login).
check_user_units() {
    ct useradd --create-home carol
    local uid runtime
    uid=$(ct id -u carol)
    runtime=/run/user/$uid
    as_carol() { ct_as carol env HOME=/home/carol XDG_RUNTIME_DIR="$runtime" "$@"; }
    user_manager_up() { as_carol systemctl --user is-system-running --wait | grep -Eq '^(running|degraded)$'; }
    ct loginctl enable-linger carol
    check "carol's user manager runs (loginctl enable-linger)" wait_for 60 user_manager_up
    ct_as carol mkdir -p /home/carol/.config/pushagent
    ct_as carol sh -c "printf 'relay_url = \"%s\"\npoll_wait_seconds = 2\n' '$RELAY' > /home/carol/.config/pushagent/pushagentd.toml"
    check "systemctl --user enable --now pushagentd.socket" as_carol systemctl --user enable --now pushagentd.socket
    check "carol's socket is hers alone: 0600 in a 0700 \$XDG_RUNTIME_DIR/pushagent" test \
        "$(ct stat -c '%U %a' "$runtime/pushagent/pushagentd.sock" "$runtime/pushagent" | tr '\n' ' ')" = "carol 600 carol 700 "
    check "carol's first pushctl status starts her pushagentd through her socket" as_carol pushctl status
    user_daemon_connected() { as_carol pushctl status --json | grep -q '"connected"'; }
    check "her pushagentd connects to the relay" wait_for 30 user_daemon_connected
    check "her state is under ~/.local/state/pushagent, owned by her" test \
        "$(ct stat -c '%U %a' /home/carol/.local/state/pushagent/agent.sqlite)" = "carol 600"
    check "alice (an operator of the system daemon) cannot open carol's socket" \
        refused_as alice "ermission denied" pushctl --socket "$runtime/pushagent/pushagentd.sock" status
    check_unifiedpush_distributor
    check "systemctl --user stop pushagentd.service exits cleanly" as_carol systemctl --user stop pushagentd.service
    check "… with result success" test "$(as_carol systemctl --user show -P Result pushagentd.service)" = success
}

# The UnifiedPush distributor in carol's session (her user manager's session bus, dbus-user-session): the user unit
# owns the name once started (Type=dbus), an app's Register gets REGISTRATION_SUCCEEDED from her own pushagentd's
# relay, and, stopped, the bus starts it again through the D-Bus service file when an app calls it.
check_unifiedpush_distributor() {
    # (check's own local `name` would shadow a variable of that name in here: bash scopes locals dynamically)
    registered() {
        as_carol env DBUS_SESSION_BUS_ADDRESS="unix:path=$runtime/bus" busctl --user call org.unifiedpush.Distributor.pushagent /org/unifiedpush/Distributor \
            org.unifiedpush.Distributor1 Register sss org.example.SystemdTestApp "token-$1" "systemd test" | grep REGISTRATION_SUCCEEDED
    }
    listed() { as_carol pushctl webpush list | grep org.example.SystemdTestApp; }
    check "systemctl --user enable --now pushagent-unifiedpush (returns with the name owned)" \
        as_carol systemctl --user enable --now pushagent-unifiedpush.service
    check "an app's Register through the distributor succeeds" registered one
    check "pushctl webpush list shows the app" listed
    check "systemctl --user stop pushagent-unifiedpush" as_carol systemctl --user stop pushagent-unifiedpush.service
    check "an app's call starts it again (D-Bus activation through the user unit)" registered two
    check "… as pushagent-unifiedpush.service" test "$(as_carol systemctl --user is-active pushagent-unifiedpush.service)" = active
}

main() {
    boot_container

    check "the .deb installs (dpkg -i)" ct dpkg -i "/mnt/pushagent-test/$(basename "$DEB")"
    check "maintainer scripts created the pushagent user and group" ct getent passwd pushagent
    check "pushagentd.socket is enabled and listening" ct systemctl is-active pushagentd.socket
    check "pushagentd.service is not running before the first use" test "$(unit_property pushagentd.service ActiveState)" = inactive
    check "the socket is root:pushagent 0660 in a root-owned 0755 /run/pushagent" test \
        "$(ct stat -c '%U:%G %a' /run/pushagent/pushagentd.sock /run/pushagent | tr '\n' ' ')" = "root:pushagent 660 root:root 755 "
    check_units_statically
    check_catalog

    configure
    check "systemctl start pushrelay returns with the relay ready" ct systemctl start pushrelay.service
    check "pushrelay answers /healthz" ct curl -fsS "$RELAY/healthz"

    check "first pushctl status (as alice, group pushagent) starts pushagentd through the socket" ct_as alice pushctl status
    check "pushagentd was socket-activated" journal_has pushagentd.service "control socket listening on /run/pushagent/pushagentd.sock \(socket-activated\)"
    check "pushagentd connects to the relay" wait_for 30 relay_connected
    check "STATUS= says it in words (connected to relay, N pending)" wait_for 15 status_in_words

    ct systemctl stop pushagentd.service 2>/dev/null # (it warns that the socket can start it again: expected)
    ct systemctl start pushagentd.service
    local status_after_start
    status_after_start=$(unit_property pushagentd.service StatusText)
    check "systemctl start returns only after READY=1 (Type=notify, status already set)" \
        test "$(unit_property pushagentd.service Type)/$(unit_property pushagentd.service ActiveState)/${status_after_start:+set}" = notify/active/set
    check "the control socket answers as soon as start returns" ct_as alice pushctl status

    ct systemd-run --quiet --unit=pushsim-test /usr/bin/pushsim serve --listen 127.0.0.1:8480 --relay "$RELAY" \
        --sender-key "$SENDER_KEY" --project demo
    check "pushsim (the IdP) is up" wait_for 20 journal_has pushsim-test.service "pushsim listening on"
    local uri
    uri=$(ct pushsim forgerock enroll-uri --sim "$SIM" --account alice)
    check "alice (operator) enrolls an account" ct_as alice pushctl enroll "$uri"
    check "the postinst made the sealing key, encrypted by systemd-creds for the host key" sealing_key_made
    check "pushctl status: secrets sealed by the host key (systemd-creds; no TPM2 in the container)" sealed_by_host_key
    check "the state holds the account's shared secret only sealed" secret_sealed_in_state "$uri"

    send_push "Sign in from the systemd test?"
    local first
    first=$(new_pending_id "")
    check "a push through the relay reaches pushctl list as alice" test -n "$first"
    check "bob (not in group pushagent) is refused by the socket, told which group" \
        refused_as bob "members of group pushagent" pushctl list
    check "alice approves it" ct_as alice pushctl approve "$first"
    check "the approval is approved" approval_state_is "$first" approved
    check "pushsim verified the signed answer" wait_for 20 journal_has pushsim-test.service "approve.*verified"
    local alice_uid
    alice_uid=$(ct id -u alice)
    check "journalctl -u pushagentd PUSHAGENT_APPROVAL_ID=… tells its story: created, answered by alice's uid" \
        approval_story "$first" "$alice_uid"

    send_push "A second sign-in, left pending across reload, watchdog and restart"
    local second main_pid
    second=$(new_pending_id "$first")
    check "a second push is pending" test -n "$second"
    main_pid=$(unit_property pushagentd.service MainPID)
    write_agent_config '[]'
    check "systemctl reload pushagentd succeeds" ct systemctl reload pushagentd.service
    check "the reload is in the journal with what changed" wait_for 15 journal_has pushagentd.service "configuration reloaded: operators: @pushagent → \(none\)"
    check "reload kept the process (same MainPID)" test "$(unit_property pushagentd.service MainPID)" = "$main_pid"
    check "reload kept the pending approval" approval_state_is "$second" pending
    check "the reloaded operators apply at once: alice may no longer approve" \
        refused_as alice "may read but not approve" pushctl approve "$second"
    write_agent_config '["@pushagent"]'
    ct systemctl reload pushagentd.service

    local restarts_before
    restarts_before=$(unit_property pushagentd.service NRestarts)
    main_pid=$(unit_property pushagentd.service MainPID)
    ct mkdir -p /run/systemd/system/pushagentd.service.d
    ct sh -c 'printf "[Service]\nEnvironment=PUSHAGENT_TEST_FAULT=hang-relay-loop\nWatchdogSec=6s\n" > /run/systemd/system/pushagentd.service.d/hang.conf'
    ct systemctl daemon-reload
    ct systemctl restart pushagentd.service
    check "a hung relay loop is killed by the watchdog" wait_for 90 journal_has pushagentd.service "Watchdog timeout"
    check "… and restarted by systemd (NRestarts grew)" wait_for 20 restarted_since "$restarts_before"
    ct rm -rf /run/systemd/system/pushagentd.service.d
    ct systemctl daemon-reload
    ct systemctl restart pushagentd.service

    local device
    device=$(ct pushctl status --json | grep -o '"device_id" *: *"[^"]*"')
    main_pid=$(unit_property pushagentd.service MainPID)
    check "systemctl stop exits cleanly" ct systemctl stop pushagentd.service
    check "… with status 0 and result success" test \
        "$(unit_property pushagentd.service ExecMainStatus)/$(unit_property pushagentd.service Result)" = 0/success
    check "… after logging that it stopped" ct journalctl --no-pager -q "_PID=$main_pid" --grep "^stopped$"
    check "the state survives the restart: same device, approved and pending approvals kept" \
        state_survived "$first" "$second" "$device"

    local token secret
    token=$(ct pushctl status --json | sed -n 's/.*"push_token" *: *"\([^"]*\)".*/\1/p')
    # The relay secret is sealed in the state: its sealed form is what the journal is checked for.
    secret=$(ct sqlite3 /var/lib/pushagent/agent.sqlite 'SELECT secret FROM device')
    check "no push token or (sealed) relay secret in any journal field" secrets_not_logged "$token" "$secret"

    check_polkit_verification

    check_user_units
}

main
echo "systemd test took $(($(date +%s) - STARTED)) s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
