# Shared by bench-relay.sh and bench-relay-cluster.sh (sourced after ROOT is set): the settings both take from the
# environment (see their headers), and what both do.
RELAY=${RELAY:-$ROOT/.build/release/pushrelay}
LATENCY_COUNT=${LATENCY_COUNT:-2000}
THROUGHPUT_SECONDS=${THROUGHPUT_SECONDS:-8}
CONNECTIONS=${CONNECTIONS:-64}
SENDER_KEY=bench-sender-key-0123456789

# register_devices PORT N: registers N devices on the relay at PORT; prints "push_token device_id secret" per line.
# Eight connections at once, so that registrations share the relay's commits (10,000 one by one wait out 10,000
# disk flushes).
register_devices() {
    python3 - "$1" "$2" <<'PY'
import http.client, json, sys, threading
port, count = int(sys.argv[1]), int(sys.argv[2])
lines, lock = [], threading.Lock()
def register(share):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for _ in range(share):
        connection.request("POST", "/v1/devices", body=b"{}", headers={"Content-Type": "application/json"})
        device = json.loads(connection.getresponse().read())
        with lock:
            lines.append(f"{device['token']} {device['device_id']} {device['secret']}")
threads = [threading.Thread(target=register, args=(count // 8 + (i < count % 8),)) for i in range(8)]
for thread in threads: thread.start()
for thread in threads: thread.join()
if len(lines) != count: sys.exit(f"registered {len(lines)} of {count} devices")
print("\n".join(lines))
PY
}

# percentile P < microseconds, one per line: the P-th percentile in milliseconds.
percentile() { sort -n | awk -v p="$1" '{v[NR]=$1} END {i=int(NR*p/100); if (i<1) i=1; printf "%.3f", v[i]/1000}'; }

# wait_healthy PORT: until the relay (or a balancer in front of relays) at PORT answers /healthz, at most 10 s.
wait_healthy() {
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null && return 0; sleep 0.1; done
    echo "nothing healthy on port $1" >&2
    return 1
}

# start_workdir NAME: $WORK, a temporary directory removed at exit once every process in $PIDS is stopped; the
# open-file limit raised to the hard limit; the load generator compiled into it; the load average noted for
# machine_line.
start_workdir() {
    LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
    WORK=$(mktemp -d "/tmp/$1.XXXXXX")
    PIDS=()
    trap stop_all EXIT
    ulimit -n "$(ulimit -Hn)"
    cc -O2 -o "$WORK/loadgen" "$ROOT/scripts/bench-relay/loadgen.c"
}
stop_all() {
    stop_processes
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
# stop_processes: stops and reaps every process in $PIDS, and empties it.
stop_processes() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PIDS=()
}

# ms_per_message TICKS COUNT: CPU milliseconds per message.
ms_per_message() { awk -v t="$1" -v n="$2" -v hz="$TICK" 'BEGIN{printf "%.3f", (n > 0 ? t*1000/hz/n : 0)}'; }
# per_message COMPONENT BEFORE COUNT: CPU ms per message of `server_pids COMPONENT` since BEFORE ticks.
per_message() { ms_per_message $(($(cpu_ticks "$1") - $2)) "$3"; }
# CPU time (ticks) of the processes `server_pids TARGET` (each script's own) names.
cpu_ticks() { local total=0; for pid in $(server_pids "$1"); do total=$((total + $(awk '{print $14 + $15}' /proc/"$pid"/stat 2>/dev/null || echo 0))); done; echo $total; }
TICK=$(getconf CLK_TCK)

# measure_throughput TARGET PORT WRK_SCRIPT: wrk for THROUGHPUT_SECONDS over CONNECTIONS; fails on any non-2xx
# answer; sets RESULT[TARGET,rate] (messages/s) and RESULT[TARGET,cpu] (server CPU ms per message).
measure_throughput() {
    local target=$1 port=$2 script=$3 before after requests failed
    before=$(cpu_ticks "$target")
    TOKENS_FILE=$WORK/tokens SENDER_KEY=$SENDER_KEY CHANNELS=200 \
        wrk -t2 -c"$CONNECTIONS" -d"${THROUGHPUT_SECONDS}s" -s "$script" "http://127.0.0.1:$port" > "$WORK/wrk"
    after=$(cpu_ticks "$target")
    requests=$(awk '/requests in/{print $1}' "$WORK/wrk")
    failed=$(awk '/Non-2xx/{print $NF}' "$WORK/wrk")
    [ -z "$failed" ] || { echo "$target: $failed of $requests sends failed" >&2; cat "$WORK/wrk" >&2; exit 1; }
    RESULT[$target,rate]=$(awk '/Requests\/sec/{printf "%.0f", $2}' "$WORK/wrk")
    RESULT[$target,cpu]=$(ms_per_message $((after - before)) "$requests")
}

# machine_line: this disk's fdatasync latency now (300 × 4 KiB written and flushed in $WORK back to back, then 300 more
# each after a 4 ms pause, as a message sent one at a time finds the disk: on this VM a flush after a pause takes up to
# three times as long), which moves every durable figure and changes by the day, and the load average when the script
# started and now (the machine is shared); printed beside each table.
machine_line() {
    echo "load average (1, 5, 15 min): $LOAD_AT_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) now"
    python3 - "$WORK" <<'PY'
import os, sys, time
path = os.path.join(sys.argv[1], "fdatasync-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
def flushes(pause):
    samples = []
    for _ in range(300):
        os.write(fd, b"x" * 4096)
        start = time.perf_counter()
        os.fdatasync(fd)
        samples.append((time.perf_counter() - start) * 1000)
        time.sleep(pause)
    return sorted(samples)
back_to_back, after_a_pause = flushes(0), flushes(0.004)
os.close(fd)
os.unlink(path)
print(f"fdatasync here: p50 {back_to_back[149]:.2f} ms, p99 {back_to_back[296]:.2f} ms back to back; "
      f"p50 {after_a_pause[149]:.2f} ms, p99 {after_a_pause[296]:.2f} ms after a 4 ms pause")
PY
}
