#!/usr/bin/env bash
# make bench-relay: pushrelay next to nginx/nchan with messages in memory, and nchan with Redis syncing every write
# to disk (appendfsync always, like the relay's synchronous=FULL), on loopback, driven by the same client
# (scripts/bench-relay/loadgen.c for delivery, latency and held long-polls; wrk for send-only throughput). Each
# target is started afresh for each of RUNS rounds, in turn (relay, nchan, redis, relay, …), so that a slow spell of
# this shared machine falls on all of them; prints one table of medians and ranges over the rounds.
#
# Environment: RELAY (binary, default .build/release/pushrelay), RUNS (3), TARGETS ("relay nchan redis");
# delivery: SENDERS (16) sending to DEVICES (100) long-polling devices, WARMUP (2) then DELIVERY_SECONDS (10);
# LATENCY_COUNT (2000 messages one at a time); send-only: THROUGHPUT_SECONDS (8), CONNECTIONS (64); HOLD (10000
# waiting long-polls), PROBES (200 sends to idle devices among them), DROP (2000 of them disconnect), QUIET_SECONDS
# (5: how long their CPU is counted while they wait, and how long after they closed the RSS is read). DELIVERY_ONLY=1
# runs the delivery step alone (a quick before/after of the delivery path).
# Installs nginx, libnginx-mod-nchan, redis-server and wrk from Debian when missing, without starting their system
# services; everything here runs from a temporary directory and is stopped by PID.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/bench-relay/common.sh"
RUNS=${RUNS:-3}
TARGETS=${TARGETS:-relay nchan redis}
SENDERS=${SENDERS:-16}
DEVICES=${DEVICES:-100}
WARMUP=${WARMUP:-2}
DELIVERY_SECONDS=${DELIVERY_SECONDS:-10}
HOLD=${HOLD:-10000}
PROBES=${PROBES:-200}
DROP=${DROP:-2000}
QUIET_SECONDS=${QUIET_SECONDS:-5}
DELIVERY_ONLY=${DELIVERY_ONLY:-}
RELAY_PORT=18601 MEMORY_PORT=18602 REDIS_BACKED_PORT=18603 REDIS_PORT=18604

"$ROOT/scripts/install-packages.sh" nginx libnginx-mod-nchan redis-server wrk gcc
[ -x "$RELAY" ] || { echo "no pushrelay at $RELAY: run swift build -c release --static-swift-stdlib --product pushrelay first" >&2; exit 1; }

start_workdir bench-relay

# One nginx per nchan variant, so that each one's CPU and memory are its own.
start_nginx() {
    local name=$1 port=$2 upstream=$3 storage=$4
    sed -e "s|@DIR@|$WORK|g" -e "s|@NAME@|$name|g" -e "s|@PORT@|$port|" -e "s|@UPSTREAM@|$upstream|" \
        -e "s|@STORAGE@|$storage|g" "$ROOT/scripts/bench-relay/nginx.conf.in" > "$WORK/$name.conf"
    nginx -p "$WORK" -c "$WORK/$name.conf" -e "$WORK/$name-error.log" &
    PIDS+=($!)
    # Up once its publisher stores ten messages in a row: each nginx worker connects to Redis on its own, and a
    # worker not yet connected answers 503 (CI's first delivery run met one).
    local stored=0
    for _ in $(seq 200); do
        if [[ $(curl -s -o /dev/null -w '%{http_code}' -X POST --data ready "http://127.0.0.1:$port/pub?id=ready") == 2* ]]; then
            stored=$((stored + 1))
            [ $stored -ge 10 ] && return 0
        else
            stored=0
            sleep 0.05
        fi
    done
    echo "nginx ($name) did not start, or its publisher does not store: $WORK/$name-error.log" >&2
    return 1
}

# start_target TARGET ROUND: its servers, on a state of their own; their PIDs in $PIDS.
start_target() {
    case $1 in
    relay)
        "$RELAY" --listen 127.0.0.1:$RELAY_PORT --state-dir "$WORK/relay-$2" --sender-key bench=$SENDER_KEY \
            > "$WORK/relay-$2.log" 2>&1 &
        RELAY_PID=$!
        PIDS+=($RELAY_PID)
        wait_healthy $RELAY_PORT
        ;;
    nchan) start_nginx nchan $MEMORY_PORT "" "" ;;
    redis)
        mkdir "$WORK/redis-$2"
        redis-server --port $REDIS_PORT --bind 127.0.0.1 --dir "$WORK/redis-$2" --appendonly yes --appendfsync always \
            --save "" --daemonize no --logfile "$WORK/redis-$2.log" &
        REDIS_PID=$!
        PIDS+=($REDIS_PID)
        for _ in $(seq 100); do grep -q "Ready to accept connections" "$WORK/redis-$2.log" 2>/dev/null && break; sleep 0.1; done
        start_nginx redis $REDIS_BACKED_PORT "upstream redis { nchan_redis_server redis://127.0.0.1:$REDIS_PORT; }" \
            "nchan_redis_pass redis;"
        ;;
    esac
}

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

# FIGURES[target,key]: the key's figures over the rounds so far, space-separated. RESULT is measure_throughput's.
declare -A FIGURES RESULT
record() { FIGURES[$1,$2]="${FIGURES[$1,$2]:-}${FIGURES[$1,$2]:+ }$3"; }

measure() {
    local target=$1 round=$2 port before rss_before held start released arguments figures progress loadgen ticks
    local delivered=0 pair open_before
    port=$(port_of "$target")

    echo "== $target, round $round: delivery ($SENDERS senders, $DEVICES long-polling devices, $WARMUP s + $DELIVERY_SECONDS s)" >&2
    if [ "$target" = relay ]; then
        register_devices "$RELAY_PORT" "$DEVICES" > "$WORK/delivery-devices"
        arguments=(relay "$SENDER_KEY" "$WORK/delivery-devices")
    else
        arguments=(nchan device "$DEVICES")
    fi
    # Its progress comes through a pipe of our own (a coprocess's pipe is closed by bash once it exits):
    # "measuring" and "measured" bound the CPU counted, then its figures. It stops by itself, at the latest
    # DRAIN_SECONDS after "measured", or when its servers are stopped.
    rm -f "$WORK/progress"
    mkfifo "$WORK/progress"
    "$WORK/loadgen" delivery "${arguments[0]}" 127.0.0.1 "$port" "$SENDERS" "$WARMUP" "$DELIVERY_SECONDS" \
        "$WORK/delivery-latency" "${arguments[1]}" "${arguments[2]}" > "$WORK/progress" &
    loadgen=$!
    exec {progress}<"$WORK/progress"
    read -r _ <&$progress || true
    before=$(cpu_ticks "$target")
    read -r _ <&$progress || true
    ticks=$(( $(cpu_ticks "$target") - before ))
    read -r figures <&$progress || true
    exec {progress}<&-
    wait $loadgen || { echo "$target: the delivery run failed" >&2; exit 1; }
    for pair in $figures; do
        record "$target" "${pair%%=*}" "${pair#*=}"
        [ "${pair%%=*}" != delivered ] || delivered=${pair#*=}
    done
    record "$target" delivery_cpu "$(ms_per_message "$ticks" "$delivered")"
    record "$target" delivery_p50 "$(percentile 50 < "$WORK/delivery-latency")"
    record "$target" delivery_p99 "$(percentile 99 < "$WORK/delivery-latency")"
    record "$target" delivery_rss $(( $(rss_kib "$target") / 1024 ))
    [ -z "$DELIVERY_ONLY" ] || return 0

    echo "== $target, round $round: latency ($LATENCY_COUNT messages, one at a time)" >&2
    if [ "$target" = relay ]; then
        read -r token device secret < <(register_devices "$RELAY_PORT" 1)
        before=$(cpu_ticks "$target")
        "$WORK/loadgen" latency relay 127.0.0.1 "$port" "$LATENCY_COUNT" $SENDER_KEY "$token" "$device" "$secret" > "$WORK/latency"
    else
        before=$(cpu_ticks "$target")
        "$WORK/loadgen" latency nchan 127.0.0.1 "$port" "$LATENCY_COUNT" latency > "$WORK/latency"
    fi
    record "$target" single_cpu "$(per_message "$target" "$before" "$LATENCY_COUNT")"
    record "$target" p50 "$(percentile 50 < "$WORK/latency")"
    record "$target" p99 "$(percentile 99 < "$WORK/latency")"

    echo "== $target, round $round: send-only throughput ($CONNECTIONS connections, $THROUGHPUT_SECONDS s)" >&2
    if [ "$target" = relay ]; then
        register_devices "$RELAY_PORT" 200 | cut -d' ' -f1 > "$WORK/tokens"
        script="$ROOT/scripts/bench-relay/send-relay.lua"
    else
        script="$ROOT/scripts/bench-relay/publish-nchan.lua"
    fi
    measure_throughput "$target" "$port" "$script"
    record "$target" rate "${RESULT[$target,rate]}"
    record "$target" cpu "${RESULT[$target,cpu]}"

    echo "== $target, round $round: $HOLD waiting long-polls, $PROBES sends to idle devices among them, then $DROP disconnect" >&2
    if [ "$target" = relay ]; then
        register_devices "$RELAY_PORT" "$HOLD" > "$WORK/hold-devices"
        rss_before=$(rss_kib "$target")
        coproc HOLDER { "$WORK/loadgen" hold relay 127.0.0.1 "$port" $SENDER_KEY "$WORK/hold-devices"; }
    else
        rss_before=$(rss_kib "$target")
        coproc HOLDER { "$WORK/loadgen" hold nchan 127.0.0.1 "$port" "$HOLD"; }
    fi
    read -r _ held <&"${HOLDER[0]}"
    # Until the server has taken every poll in (no CPU used for a second), at most 30 s.
    for _ in $(seq 30); do
        before=$(cpu_ticks "$target")
        sleep 1
        [ $(( $(cpu_ticks "$target") - before )) -le 1 ] && break
    done
    record "$target" rss $(( $(rss_kib "$target") / 1024 ))
    record "$target" perpoll "$(awk -v a="$(rss_kib "$target")" -v b="$rss_before" -v n="$held" 'BEGIN{printf "%.1f", (a-b)/n}')"
    before=$(cpu_ticks "$target")
    sleep "$QUIET_SECONDS"
    record "$target" idle "$(awk -v t=$(( $(cpu_ticks "$target") - before )) -v hz="$TICK" -v s="$QUIET_SECONDS" 'BEGIN{printf "%.1f", t*100/hz/s}')"
    echo "probe $PROBES $WORK/probes" >&"${HOLDER[1]}"
    read -r _ <&"${HOLDER[0]}"
    record "$target" idle_p50 "$(percentile 50 < "$WORK/probes")"
    record "$target" idle_p99 "$(percentile 99 < "$WORK/probes")"
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
    record "$target" release "$released"
    exec {HOLDER[1]}>&-
    wait "$HOLDER_PID" 2>/dev/null || true
    # The relay looks at its open connections every 2 s and gives memory back after a storm (MemoryReturn).
    sleep "$QUIET_SECONDS"
    record "$target" before $(( rss_before / 1024 ))
    record "$target" after $(( $(rss_kib "$target") / 1024 ))
    stop_processes
}

for round in $(seq "$RUNS"); do
    for target in $TARGETS; do
        start_target "$target" "$round"
        measure "$target" "$round"
    done
done

# summary "V1 V2 …" [UNIT]: the median (with UNIT) and, when the rounds differ, the range; figures that are not
# numbers as they are.
summary() {
    tr ' ' '\n' <<< "$1" | awk -v unit="${2:-}" 'NF { v[++n] = $1; if ($1 !~ /^[0-9.]+$/) text = 1 }
        END {
            if (n == 0) { print "–"; exit }
            if (text) { s = v[1]; for (i = 2; i <= n; i++) s = s ", " v[i]; print s; exit }
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
            decimals = index(v[1], ".") ? length(v[1]) - index(v[1], ".") : 0
            median = n % 2 ? v[(n + 1) / 2] : sprintf("%." decimals "f", (v[n / 2] + v[n / 2 + 1]) / 2)
            print median unit (v[1] == v[n] ? "" : " (" v[1] "–" v[n] ")")
        }'
}
# ratios KEY OTHER: the relay's figure over OTHER's, round by round (the two measured minutes apart), summarised.
ratios() {
    local relay=(${FIGURES[relay,$1]:-}) other=(${FIGURES[$2,$1]:-}) out="" i
    for i in "${!relay[@]}"; do
        out="$out $(awk -v a="${relay[$i]}" -v b="${other[$i]:-0}" 'BEGIN{ if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) exit; printf "%.2f", a/b }')"
    done
    summary "$out" ×
}
row() {
    printf "| %s | %s | %s | %s | %s | %s |\n" "$1" "$(summary "${FIGURES[relay,$2]:-}")" "$(summary "${FIGURES[nchan,$2]:-}")" \
        "$(summary "${FIGURES[redis,$2]:-}")" "$(ratios "$2" nchan)" "$(ratios "$2" redis)"
}
echo
machine_line
echo "$RUNS round(s); each cell: median (range)"
echo
echo "| metric | pushrelay | nchan (memory) | nchan + Redis (fsync always) | pushrelay ÷ nchan | pushrelay ÷ nchan+Redis |"
echo "|---|---|---|---|---|---|"
row "delivery, $SENDERS senders → $DEVICES long-polling devices: sends accepted (/s)" accepted_per_s
row "delivery: messages delivered (/s)" delivered_per_s
row "delivery: server CPU per delivered message (ms)" delivery_cpu
row "delivery: send → receipt p50 (ms)" delivery_p50
row "delivery: send → receipt p99 (ms)" delivery_p99
row "delivery: accepted, never delivered (after a drain)" lost
row "delivery: sends refused, queue full (429)" refused
row "delivery: messages received twice" duplicates
row "delivery: polls answered 409 cursor_ahead (the device starts again from 0)" cursor_ahead
row "delivery: RSS at its end (MiB)" delivery_rss
row "one message at a time: latency p50 (ms)" p50
row "one message at a time: latency p99 (ms)" p99
row "one message at a time: server CPU per message (ms)" single_cpu
row "one send to an idle device among $HOLD waiting polls: p50 (ms)" idle_p50
row "one send to an idle device among $HOLD waiting polls: p99 (ms)" idle_p99
row "send-only, no device polling: throughput, durable before the 200 (/s)" rate
row "send-only, no device polling: server CPU per message (ms)" cpu
row "RSS before the long-polls (MiB)" before
row "RSS with $HOLD waiting long-polls (MiB)" rss
row "RSS $QUIET_SECONDS s after they all closed (MiB)" after
row "memory per waiting long-poll (KiB)" perpoll
row "CPU while they wait (% of a core)" idle
row "$DROP disconnected long-polls released after (s)" release
# A message the relay accepted (its 200 promises it is on disk) must reach its device: the run fails otherwise, after
# the table.
lost=$(tr ' ' '\n' <<< "${FIGURES[relay,lost]:-}" | awk '{total += $1} END {print total + 0}')
[ "$lost" = 0 ] || { echo "the relay lost $lost accepted messages in its delivery runs" >&2; exit 1; }
