#!/usr/bin/env bash
# GET/SET over TLS, rbkv-server against Debian's redis-server, and the rate of new TLS connections.
#   bench/tls_vs_redis.sh [rounds]     (default 3 rounds)
# Both servers get the same certificate (made by openssl in a temp dir), a tls-port beside their
# plaintext port, tls-auth-clients no (clients show no certificate: the server's cost is measured).
# redis-benchmark --tls with 50 clients, random keys from 100,000, 16-byte values: SET and GET at
# -P 16 (400,000 requests) and -P 1 (100,000), then handshakes: PING on 500 new connections made one
# after the other (-c 1 -k 0, one client, so ops/s is sequential handshakes a second). Each test runs
# on the two servers one after the other, round after round, so drift on a noisy machine hits both.
# Beside ops/s, the server's own CPU per request in microseconds (/proc/PID/schedstat, time on a CPU
# over the run / requests): on a loaded machine ops/s follows the scheduler, CPU per request much
# less. Both servers are children of this script, so they share its scheduling group (autogroup): a
# server started elsewhere (its own session, e.g. daemonized) gets a separate share of the CPU and
# its ops/s is not comparable. One line per run:
#   round test server ops/s cpu_us/request
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=${1:-3}
ensure_built
command -v openssl >/dev/null || { echo "openssl is missing (scripts/deps.sh bench)" >&2; exit 2; }

certs=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-tlsbench-XXXXXX")
trap 'bench_cleanup; rm -rf "$certs"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$certs/ca.key" -out "$certs/ca.crt" -days 2 \
  -subj "/CN=bench CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$certs/server.key" -out "$certs/server.csr" \
  -subj "/CN=localhost" 2>/dev/null
openssl x509 -req -in "$certs/server.csr" -CA "$certs/ca.crt" -CAkey "$certs/ca.key" \
  -CAcreateserial -out "$certs/server.crt" -days 2 2>/dev/null
tls=(--tls-cert-file "$certs/server.crt" --tls-key-file "$certs/server.key"
     --tls-ca-cert-file "$certs/ca.crt" --tls-auth-clients no)

declare -A tport pid
tport[rbkv]=$(free_port); start_rbkv "$(free_port)" --tls-port "${tport[rbkv]}" "${tls[@]}"
pid[rbkv]=${BENCH_PIDS[-1]}
tport[redis]=$(free_port); start_redis "$(free_port)" --tls-port "${tport[redis]}" "${tls[@]}"
pid[redis]=${BENCH_PIDS[-1]}

cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; } # nanoseconds PID has run

ops() { # SERVER TEST CLIENTS PIPELINE REQUESTS [redis-benchmark flags]: "ops/s cpu_us/request"
  local s=$1 test=$2 clients=$3 pipe=$4 n=$5 t0 t1 rate
  shift 5
  t0=$(cpu_ns "${pid[$s]}")
  rate=$(redis-benchmark -p "${tport[$s]}" --tls --cacert "$certs/ca.crt" -t "$test" -c "$clients" \
    -P "$pipe" -r 100000 -d 16 -n "$n" --csv "$@" |
    csv_rps)
  t1=$(cpu_ns "${pid[$s]}")
  awk -v r="$rate" -v d=$((t1 - t0)) -v n="$n" 'BEGIN { printf "%s %.2f\n", r, d / n / 1000 }'
}

for s in rbkv redis; do ops "$s" set 50 16 400000 >/dev/null; done
for r in $(seq "$ROUNDS"); do
  for p in 16 1; do
    n=400000; [ "$p" = 1 ] && n=100000
    for t in set get; do
      for s in rbkv redis; do
        echo "$r $t-P$p $s $(ops "$s" "$t" 50 "$p" "$n")"
      done
    done
  done
  for s in rbkv redis; do
    echo "$r handshakes $s $(ops "$s" ping_inline 1 1 500 -k 0)"
  done
done
