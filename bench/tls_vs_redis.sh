#!/usr/bin/env bash
# GET/SET over TLS, rbkv-server against Debian's redis-server, and the rate of new TLS connections.
#   bench/tls_vs_redis.sh [rounds]     (default 3 rounds)
# Both servers get the same certificate (made by openssl in a temp dir), a tls-port beside their
# plaintext port, tls-auth-clients no (clients show no certificate: the server's cost is measured).
# redis-benchmark --tls with 50 clients, random keys from 100,000, 16-byte values: SET and GET at
# -P 16 (400,000 requests) and -P 1 (100,000), then PING with -k 0 (every request on a new
# connection, so ops/s is handshakes a second; 5,000 requests). Each test runs on the two servers
# one after the other, round after round, so drift on a noisy machine hits both; one line per run:
#   round test server ops/s
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=${1:-3}
ensure_built
command -v openssl >/dev/null || { echo "openssl is missing (scripts/deps.sh test)" >&2; exit 2; }

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

declare -A tport
tport[rbkv]=$(free_port); start_rbkv "$(free_port)" --tls-port "${tport[rbkv]}" "${tls[@]}"
tport[redis]=$(free_port); start_redis "$(free_port)" --tls-port "${tport[redis]}" "${tls[@]}"

ops() { # PORT TEST PIPELINE REQUESTS [extra redis-benchmark flags]
  local port=$1 test=$2 pipe=$3 n=$4
  shift 4
  redis-benchmark -p "$port" --tls --cacert "$certs/ca.crt" -t "$test" -c 50 -P "$pipe" \
    -r 100000 -d 16 -n "$n" --csv "$@" 2>/dev/null |
    awk -F, 'NR > 1 { gsub(/"/, "", $2); print $2; exit }'
}

for s in rbkv redis; do ops "${tport[$s]}" set 16 400000 >/dev/null; done
for r in $(seq "$ROUNDS"); do
  for p in 16 1; do
    n=400000; [ "$p" = 1 ] && n=100000
    for t in set get; do
      for s in rbkv redis; do
        echo "$r $t-P$p $s $(ops "${tport[$s]}" "$t" "$p" "$n")"
      done
    done
  done
  for s in rbkv redis; do
    echo "$r handshakes $s $(ops "${tport[$s]}" ping_inline 1 5000 -k 0)"
  done
done
