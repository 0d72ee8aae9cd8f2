# Shared by bench-relay.sh and bench-relay-cluster.sh (sourced).

# register_devices PORT N: registers N devices on the relay at PORT; prints "push_token device_id secret" per line.
register_devices() {
    python3 - "$1" "$2" <<'PY'
import http.client, json, sys
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    connection.request("POST", "/v1/devices", body=b"{}", headers={"Content-Type": "application/json"})
    device = json.loads(connection.getresponse().read())
    print(device["token"], device["device_id"], device["secret"])
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
