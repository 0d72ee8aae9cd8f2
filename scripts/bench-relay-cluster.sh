#!/usr/bin/env bash
# make bench-relay-cluster: the relay on SQLite next to the relay on PostgreSQL with one instance, and with three
# instances behind nginx (round robin, so a send and the long-poll it wakes are mostly on different instances and
# the wake-up crosses LISTEN/NOTIFY). Same client as bench-relay.sh: loadgen.c for delivery latency, wrk for
# throughput. PostgreSQL is durable as the SQLite relay is (fsync, synchronous_commit on). Prints the machine's
# fdatasync p50/p99, one table of the three targets with each component's CPU per message, and the terms of the
# cluster's cost model (docs/benchmarks.md): relay CPU per send X, the wake-up each other instance pays w, database
# CPU per send Y_s and per idle poll Y_p, and database CPU per delivered message.
#
# Environment: RELAY (binary, default .build/release/pushrelay), LATENCY_COUNT (2000), THROUGHPUT_SECONDS (8),
# CONNECTIONS (64), TARGETS ("sqlite pg1 pg3"). Installs postgresql, nginx, wrk and gcc from Debian when missing,
# without starting their system services; everything runs from a temporary directory and is stopped by PID.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/bench-relay/common.sh"
TARGETS=${TARGETS:-sqlite pg1 pg3}
SQLITE_PORT=18611 BALANCER_PORT=18612 PG_PORT=18613 INSTANCE_PORTS=(18614 18615 18616)

"$ROOT/scripts/install-packages.sh" postgresql nginx wrk gcc
[ -x "$RELAY" ] || { echo "no pushrelay at $RELAY: run swift build -c release --static-swift-stdlib --product pushrelay first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "run as root: PostgreSQL is started as the postgres user" >&2; exit 1; }
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)

start_workdir bench-relay-cluster
chmod 0755 "$WORK" # for the postgres user

as_postgres() { setpriv --reuid=postgres --regid=postgres --clear-groups "$@"; }
install -d -o postgres -g postgres "$WORK/pg"
as_postgres "$PG_BIN/initdb" -D "$WORK/pg/data" --username=postgres --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --no-locale >/dev/null
# setpriv itself, not the function: `&` on a function forks a subshell, and $! would not be the postmaster.
setpriv --reuid=postgres --regid=postgres --clear-groups "$PG_BIN/postgres" -D "$WORK/pg/data" -c listen_addresses=127.0.0.1 -c port=$PG_PORT \
    -c unix_socket_directories="$WORK/pg" -c max_connections=200 -c shared_buffers=128MB \
    > "$WORK/postgres.log" 2>&1 &
PG_PID=$!
PIDS+=($PG_PID)
for _ in $(seq 100); do grep -q "ready to accept connections" "$WORK/postgres.log" && break; sleep 0.1; done
psql_admin() { as_postgres psql -h "$WORK/pg" -p $PG_PORT -U postgres -d postgres -v ON_ERROR_STOP=1 -q -c "$1"; }
PASSWORD=$(head -c 18 /dev/urandom | base64)
psql_admin "CREATE ROLE pushrelay LOGIN PASSWORD '$PASSWORD'"
psql_admin "CREATE DATABASE pushrelay OWNER pushrelay"
printf '%s' "$PASSWORD" > "$WORK/db-password"
chmod 0600 "$WORK/db-password"
DATABASE="postgres://pushrelay@127.0.0.1:$PG_PORT/pushrelay?sslmode=disable"

declare -A RELAY_PID
start_relay() {
    local name=$1 port=$2; shift 2
    "$RELAY" --listen 127.0.0.1:"$port" --sender-key bench=$SENDER_KEY "$@" > "$WORK/$name.log" 2>&1 &
    PIDS+=($!)
    RELAY_PID[$name]=$!
    wait_healthy "$port"
}
start_relay sqlite $SQLITE_PORT --state-dir "$WORK/sqlite"

# The processes a target's work runs in, for its CPU per message; `server_pids pg1:relays` (or :postgres, :nginx)
# names one component's.
server_pids() {
    local postgres="$PG_PID $(pgrep -P $PG_PID | tr '\n' ' ')" nginx=""
    [ -s "$WORK/balancer.pid" ] && nginx="$(cat "$WORK/balancer.pid") $(pgrep -P "$(cat "$WORK/balancer.pid")" | tr '\n' ' ')"
    case $1 in
    sqlite|sqlite:relays) echo "${RELAY_PID[sqlite]}" ;;
    pg1|pg1:relays) echo "${RELAY_PID[pg1]}" ;;&
    pg1) echo "$postgres" ;;
    pg3|pg3:relays) echo "${RELAY_PID[pg1]} ${RELAY_PID[pg2]} ${RELAY_PID[pg3]}" ;;&
    pg3) echo "$postgres $nginx" ;;
    others:relays) echo "${RELAY_PID[pg2]} ${RELAY_PID[pg3]}" ;;
    *:postgres) echo "$postgres" ;;
    *:nginx) echo "$nginx" ;;
    esac
}

# pg1 runs alone on the database; pg3's other two instances and the balancer start after it.
prepare() {
    case $1 in
    sqlite) PORT=$SQLITE_PORT ;;
    pg1)
        start_relay pg1 "${INSTANCE_PORTS[0]}" --database "$DATABASE" --database-password-file "$WORK/db-password"
        PORT=${INSTANCE_PORTS[0]} ;;
    pg3)
        [ -n "${RELAY_PID[pg1]:-}" ] || prepare pg1
        start_relay pg2 "${INSTANCE_PORTS[1]}" --database "$DATABASE" --database-password-file "$WORK/db-password"
        start_relay pg3 "${INSTANCE_PORTS[2]}" --database "$DATABASE" --database-password-file "$WORK/db-password"
        servers=""
        for port in "${INSTANCE_PORTS[@]}"; do servers="$servers server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"; done
        sed -e "s|@DIR@|$WORK|g" -e "s|@PORT@|$BALANCER_PORT|" -e "s|@SERVERS@|$servers|" \
            "$ROOT/scripts/bench-relay/balancer.conf.in" > "$WORK/balancer.conf"
        nginx -p "$WORK" -c "$WORK/balancer.conf" -e "$WORK/balancer-error.log" &
        PIDS+=($!)
        for _ in $(seq 100); do [ -s "$WORK/balancer.pid" ] && break; sleep 0.05; done
        wait_healthy $BALANCER_PORT
        PORT=$BALANCER_PORT ;;
    esac
}

requests_of_wrk() { awk '/requests in/{print $1}' "$WORK/wrk"; }

# wrk_at PORT SCRIPT: wrk as measure_throughput runs it, without its accounting.
wrk_at() {
    TOKENS_FILE=$WORK/tokens DEVICES_FILE=$WORK/idle-devices SENDER_KEY=$SENDER_KEY \
        wrk -t2 -c"$CONNECTIONS" -d"${THROUGHPUT_SECONDS}s" -s "$2" "http://127.0.0.1:$1" > "$WORK/wrk"
}

declare -A RESULT
for target in $TARGETS; do
    prepare "$target"
    echo "== $target: latency ($LATENCY_COUNT messages, one at a time)" >&2
    read -r token device secret < <(register_devices "$PORT" 1)
    before_postgres=$(cpu_ticks "$target:postgres")
    "$WORK/loadgen" latency relay 127.0.0.1 "$PORT" "$LATENCY_COUNT" $SENDER_KEY "$token" "$device" "$secret" > "$WORK/latency"
    RESULT[$target,p50]=$(percentile 50 < "$WORK/latency")
    RESULT[$target,p99]=$(percentile 99 < "$WORK/latency")
    [ "$target" = sqlite ] || RESULT[$target,db_delivered]=$(per_message "$target:postgres" "$before_postgres" "$LATENCY_COUNT")

    echo "== $target: throughput ($CONNECTIONS connections, $THROUGHPUT_SECONDS s)" >&2
    register_devices "$PORT" 200 | cut -d' ' -f1 > "$WORK/tokens"
    before_relays=$(cpu_ticks "$target:relays") before_postgres=$(cpu_ticks "$target:postgres") before_nginx=$(cpu_ticks "$target:nginx")
    measure_throughput "$target" "$PORT" "$ROOT/scripts/bench-relay/send-relay.lua"
    RESULT[$target,cpu_relays]=$(per_message "$target:relays" "$before_relays" "$(requests_of_wrk)")
    [ "$target" = sqlite ] && continue
    RESULT[$target,cpu_postgres]=$(per_message "$target:postgres" "$before_postgres" "$(requests_of_wrk)")
    [ "$target" = pg3 ] && RESULT[$target,cpu_nginx]=$(per_message "$target:nginx" "$before_nginx" "$(requests_of_wrk)")

    if [ "$target" = pg1 ]; then
        echo "== pg1: idle polls ($CONNECTIONS connections, $THROUGHPUT_SECONDS s)" >&2
        register_devices "$PORT" 200 | cut -d' ' -f2,3 > "$WORK/idle-devices"
        before_relays=$(cpu_ticks pg1:relays) before_postgres=$(cpu_ticks pg1:postgres)
        wrk_at "$PORT" "$ROOT/scripts/bench-relay/poll-relay.lua"
        RESULT[pg1,poll_rate]=$(awk '/Requests\/sec/{printf "%.0f", $2}' "$WORK/wrk")
        RESULT[pg1,poll_relay]=$(per_message pg1:relays "$before_relays" "$(requests_of_wrk)")
        RESULT[pg1,poll_postgres]=$(per_message pg1:postgres "$before_postgres" "$(requests_of_wrk)")
    fi
    if [ "$target" = pg3 ]; then
        echo "== pg3: sends to one instance, the two others only woken ($THROUGHPUT_SECONDS s)" >&2
        before_relays=$(cpu_ticks others:relays)
        wrk_at "${INSTANCE_PORTS[0]}" "$ROOT/scripts/bench-relay/send-relay.lua"
        RESULT[pg3,wake]=$(awk -v m="$(per_message others:relays "$before_relays" "$(requests_of_wrk)")" 'BEGIN{printf "%.3f", m/2}')
    fi
done

row() {
    printf "| %s | %s | %s | %s |\n" "$1" "${RESULT[sqlite,$2]:-–}" "${RESULT[pg1,$2]:-–}" "${RESULT[pg3,$2]:-–}"
}
echo
machine_line
echo
echo "| metric | SQLite, 1 relay | PostgreSQL, 1 relay | PostgreSQL, 3 relays behind nginx |"
echo "|---|---|---|---|"
row "delivery latency p50 (ms)" p50
row "delivery latency p99 (ms)" p99
row "throughput, durable before the 200 (messages/s)" rate
row "CPU per message, relays + PostgreSQL (+ nginx) (ms)" cpu
row "… of which the relays (ms)" cpu_relays
row "… of which PostgreSQL (ms)" cpu_postgres
row "… of which nginx (ms)" cpu_nginx
row "PostgreSQL CPU per delivered message, one at a time (ms)" db_delivered
[ -n "${RESULT[pg1,poll_rate]:-}" ] || exit 0
echo
echo "Cost model terms (CPU ms; docs/benchmarks.md): X = ${RESULT[pg1,cpu_relays]} (relay, per send)," \
    "w = ${RESULT[pg3,wake]:-–} (per other instance, per message), Y_s = ${RESULT[pg1,cpu_postgres]} (PostgreSQL, per send)," \
    "Y_p = ${RESULT[pg1,poll_postgres]} (PostgreSQL, per idle poll; the relay ${RESULT[pg1,poll_relay]}," \
    "${RESULT[pg1,poll_rate]} polls/s)"
