#!/usr/bin/env bash
# make bench-relay-cluster: the relay on SQLite next to the relay on PostgreSQL with one instance, and with three
# instances behind nginx (round robin, so a send and the long-poll it wakes are mostly on different instances and
# the wake-up crosses LISTEN/NOTIFY). Same client as bench-relay.sh: loadgen.c for delivery latency, wrk for
# throughput. PostgreSQL is durable as the SQLite relay is (fsync, synchronous_commit on). Prints one table.
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
[ -x "$RELAY" ] || { echo "no pushrelay at $RELAY: run swift build -c release first" >&2; exit 1; }
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

# The processes a target's work runs in, for its CPU per message.
server_pids() {
    case $1 in
    sqlite) echo "${RELAY_PID[sqlite]}" ;;
    pg1) echo "${RELAY_PID[pg1]} $PG_PID $(pgrep -P $PG_PID | tr '\n' ' ')" ;;
    pg3) echo "${RELAY_PID[pg1]} ${RELAY_PID[pg2]} ${RELAY_PID[pg3]} $PG_PID $(pgrep -P $PG_PID | tr '\n' ' ')" \
        "$(cat "$WORK/balancer.pid") $(pgrep -P "$(cat "$WORK/balancer.pid")" | tr '\n' ' ')" ;;
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

declare -A RESULT
for target in $TARGETS; do
    prepare "$target"
    echo "== $target: latency ($LATENCY_COUNT messages, one at a time)" >&2
    read -r token device secret < <(register_devices "$PORT" 1)
    "$WORK/loadgen" latency relay 127.0.0.1 "$PORT" "$LATENCY_COUNT" $SENDER_KEY "$token" "$device" "$secret" > "$WORK/latency"
    RESULT[$target,p50]=$(percentile 50 < "$WORK/latency")
    RESULT[$target,p99]=$(percentile 99 < "$WORK/latency")

    echo "== $target: throughput ($CONNECTIONS connections, $THROUGHPUT_SECONDS s)" >&2
    register_devices "$PORT" 200 | cut -d' ' -f1 > "$WORK/tokens"
    measure_throughput "$target" "$PORT" "$ROOT/scripts/bench-relay/send-relay.lua"
done

row() {
    printf "| %s | %s | %s | %s |\n" "$1" "${RESULT[sqlite,$2]:-–}" "${RESULT[pg1,$2]:-–}" "${RESULT[pg3,$2]:-–}"
}
echo
echo "| metric | SQLite, 1 relay | PostgreSQL, 1 relay | PostgreSQL, 3 relays behind nginx |"
echo "|---|---|---|---|"
row "delivery latency p50 (ms)" p50
row "delivery latency p99 (ms)" p99
row "throughput, durable before the 200 (messages/s)" rate
row "CPU per message, relays + PostgreSQL (+ nginx) (ms)" cpu
