#!/usr/bin/env bash
# make bench-relay: pushrelay next to nginx/nchan with messages in memory, and nchan with Redis syncing every write
# to disk (appendfsync always, like the relay's synchronous=FULL), on loopback, driven by the same client
# (scripts/bench-relay/loadgen.c for latency and held long-polls, wrk for throughput). Prints one table.
#
# Environment: RELAY (binary, default .build/release/pushrelay), LATENCY_COUNT (2000), THROUGHPUT_SECONDS (8),
# CONNECTIONS (64), HOLD (10000 waiting long-polls), DROP (2000 of them disconnect), TARGETS ("relay nchan redis").
# Installs nginx, libnginx-mod-nchan, redis-server and wrk from Debian when missing, without starting their system
# services; everything here runs from a temporary directory and is stopped by PID at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/bench-relay/common.sh"
HOLD=${HOLD:-10000}
DROP=${DROP:-2000}
TARGETS=${TARGETS:-relay nchan redis}
RELAY_PORT=18601 MEMORY_PORT=18602 REDIS_BACKED_PORT=18603 REDIS_PORT=18604

"$ROOT/scripts/install-packages.sh" nginx libnginx-mod-nchan redis-server wrk gcc
[ -x "$RELAY" ] || { echo "no pushrelay at $RELAY: run swift build -c release first" >&2; exit 1; }

start_workdir bench-relay

redis-server --port $REDIS_PORT --bind 127.0.0.1 --dir "$WORK" --appendonly yes --appendfsync always --save "" \
    --daemonize no --logfile "$WORK/redis.log" &
REDIS_PID=$!
PIDS+=($REDIS_PID)
# One nginx per nchan variant, so that each one's CPU and memory are its own.
start_nginx() {
    local name=$1 port=$2 upstream=$3 storage=$4
    sed -e "s|@DIR@|$WORK|g" -e "s|@NAME@|$name|g" -e "s|@PORT@|$port|" -e "s|@UPSTREAM@|$upstream|" \
        -e "s|@STORAGE@|$storage|g" "$ROOT/scripts/bench-relay/nginx.conf.in" > "$WORK/$name.conf"
    nginx -p "$WORK" -c "$WORK/$name.conf" -e "$WORK/$name-error.log" &
    PIDS+=($!)
    for _ in $(seq 100); do [ -s "$WORK/$name.pid" ] && break; sleep 0.05; done
}
start_nginx nchan $MEMORY_PORT "" ""
start_nginx redis $REDIS_BACKED_PORT "upstream redis { nchan_redis_server redis://127.0.0.1:$REDIS_PORT; }" \
    "nchan_redis_pass redis;"
"$RELAY" --listen 127.0.0.1:$RELAY_PORT --state-dir "$WORK/relay" --sender-key bench=$SENDER_KEY \
    > "$WORK/relay.log" 2>&1 &
PIDS+=($!)
RELAY_PID=$!
for _ in $(seq 100); do
    curl -sf http://127.0.0.1:$RELAY_PORT/healthz >/dev/null && curl -s -o /dev/null http://127.0.0.1:$MEMORY_PORT/ && break
    sleep 0.1
done

# The processes each target's work runs in: the relay; its nginx's master and workers; and for Redis, redis too.
server_pids() {
    case $1 in
    relay) echo "$RELAY_PID" ;;
    *)
        local master
        master=$(cat "$WORK/$1.pid")
        echo "$master $(pgrep -P "$master" | tr '\n' ' ')"
        [ "$1" = nchan ] || echo "$REDIS_PID"
        ;;
    esac
}
port_of() { case $1 in relay) echo $RELAY_PORT ;; nchan) echo $MEMORY_PORT ;; redis) echo $REDIS_BACKED_PORT ;; esac; }
rss_kib() { local total=0; for pid in $(server_pids "$1"); do total=$((total + $(awk '/VmRSS/{print $2}' /proc/"$pid"/status))); done; echo $total; }
fds() { local total=0; for pid in $(server_pids "$1"); do total=$((total + $(ls /proc/"$pid"/fd | wc -l))); done; echo $total; }
# A relay's waiting poll is a waiter as well as a descriptor: both must be gone for it to count as released.
polls_released() {
    [ "$1" != relay ] && return 0
    [ "$(curl -s http://127.0.0.1:$RELAY_PORT/metrics | awk '/^pushrelay_polls_waiting/{print $2}')" -le "$2" ]
}

declare -A RESULT

for target in $TARGETS; do
    port=$(port_of "$target")
    echo "== $target: latency ($LATENCY_COUNT messages, one at a time)" >&2
    if [ "$target" = relay ]; then
        read -r token device secret < <(register_devices "$RELAY_PORT" 1)
        "$WORK/loadgen" latency relay 127.0.0.1 "$port" "$LATENCY_COUNT" $SENDER_KEY "$token" "$device" "$secret" > "$WORK/latency"
    else
        "$WORK/loadgen" latency nchan 127.0.0.1 "$port" "$LATENCY_COUNT" "latency-$target" > "$WORK/latency"
    fi
    RESULT[$target,p50]=$(percentile 50 < "$WORK/latency")
    RESULT[$target,p99]=$(percentile 99 < "$WORK/latency")

    echo "== $target: throughput ($CONNECTIONS connections, $THROUGHPUT_SECONDS s)" >&2
    if [ "$target" = relay ]; then
        register_devices "$RELAY_PORT" 200 | cut -d' ' -f1 > "$WORK/tokens"
        script="$ROOT/scripts/bench-relay/send-relay.lua"
    else
        script="$ROOT/scripts/bench-relay/publish-nchan.lua"
    fi
    measure_throughput "$target" "$port" "$script"

    echo "== $target: $HOLD waiting long-polls, then $DROP disconnect" >&2
    rss_before=$(rss_kib "$target")
    if [ "$target" = relay ]; then
        register_devices "$RELAY_PORT" "$HOLD" | cut -d' ' -f2,3 > "$WORK/credentials"
        rss_before=$(rss_kib "$target")
        coproc HOLDER { "$WORK/loadgen" hold relay 127.0.0.1 "$port" "$WORK/credentials"; }
    else
        coproc HOLDER { "$WORK/loadgen" hold nchan 127.0.0.1 "$port" "$HOLD"; }
    fi
    read -r _ held <&"${HOLDER[0]}"
    # Until the server has taken every poll in (no CPU used for a second), at most 30 s.
    for _ in $(seq 30); do
        before=$(cpu_ticks "$target")
        sleep 1
        [ $(( $(cpu_ticks "$target") - before )) -le 1 ] && break
    done
    RESULT[$target,rss]=$(( $(rss_kib "$target") / 1024 ))
    RESULT[$target,perpoll]=$(awk -v a="$(rss_kib "$target")" -v b="$rss_before" -v n="$held" 'BEGIN{printf "%.1f", (a-b)/n}')
    before=$(cpu_ticks "$target")
    sleep 5
    RESULT[$target,idle]=$(awk -v t=$(( $(cpu_ticks "$target") - before )) -v hz="$TICK" 'BEGIN{printf "%.1f", t*100/hz/5}')
    open_before=$(fds "$target")
    start=$(date +%s.%N)
    echo "drop $DROP" >&"${HOLDER[1]}"
    read -r _ <&"${HOLDER[0]}"
    released=">60"
    for _ in $(seq 3000); do
        if [ "$(fds "$target")" -le $((open_before - DROP + 5)) ] && polls_released "$target" $((held - DROP)); then
            released=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.2f", e-s}')
            break
        fi
        sleep 0.02
    done
    RESULT[$target,release]=$released
    exec {HOLDER[1]}>&-
    wait "$HOLDER_PID" 2>/dev/null || true
    # The relay looks at its open connections every 2 s and gives memory back after a storm (MemoryReturn).
    sleep 5
    RESULT[$target,before]=$(( rss_before / 1024 ))
    RESULT[$target,after]=$(( $(rss_kib "$target") / 1024 ))
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b+0 == 0 || a ~ />/) print "–"; else printf "%.2f×", a/b }'; }
row() {
    local name=$1 key=$2
    printf "| %s | %s | %s | %s | %s | %s |\n" "$name" "${RESULT[relay,$key]:-–}" "${RESULT[nchan,$key]:-–}" \
        "${RESULT[redis,$key]:-–}" "$(ratio "${RESULT[relay,$key]:-0}" "${RESULT[nchan,$key]:-0}")" \
        "$(ratio "${RESULT[relay,$key]:-0}" "${RESULT[redis,$key]:-0}")"
}
echo
fdatasync_line
echo
echo "| metric | pushrelay | nchan (memory) | nchan + Redis (fsync always) | pushrelay ÷ nchan | pushrelay ÷ nchan+Redis |"
echo "|---|---|---|---|---|---|"
row "delivery latency p50 (ms)" p50
row "delivery latency p99 (ms)" p99
row "throughput, durable before the 200 (messages/s)" rate
row "server CPU per message (ms)" cpu
row "RSS before the long-polls (MiB)" before
row "RSS with $HOLD waiting long-polls (MiB)" rss
row "RSS 5 s after they all closed (MiB)" after
row "memory per waiting long-poll (KiB)" perpoll
row "CPU while they wait (% of a core)" idle
row "$DROP disconnected long-polls released after (s)" release
