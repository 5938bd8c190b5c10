#!/usr/bin/env bash
# SET and GET throughput of two rbkv-server builds and Debian's redis-server, in turn, in one run.
#   bench/setget_ab.sh BEFORE_BIN AFTER_BIN [rounds]     (default 3 rounds)
# redis-benchmark as bench/server_vs_redis.sh runs it (50 clients, random keys from a space of
# 1,000,000, 16-byte values; 1,000,000 requests at -P 16, 200,000 at -P 1), after a fill of
# 2,000,000 SETs so every server holds the same keys. Each test runs on the three servers one after
# the other, round after round, so drift on a noisy machine hits all three; one line per run:
#   round pipeline test server ops/s
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN [rounds]" >&2; exit 2; }
BEFORE=$1 AFTER=$2 ROUNDS=${3:-3}
"$ROOT/scripts/deps.sh" build bench

declare -A port
port[before]=$(free_port); RBKV_BIN=$BEFORE start_rbkv "${port[before]}"
port[after]=$(free_port); RBKV_BIN=$AFTER start_rbkv "${port[after]}"
port[redis]=$(free_port); start_redis "${port[redis]}"

ops() { # PORT TEST PIPELINE REQUESTS
  redis-benchmark -p "$1" -t "$2" -c 50 -P "$3" -r 1000000 -d 16 -n "$4" --csv |
    csv_rps
}

for s in before after redis; do ops "${port[$s]}" set 16 2000000 >/dev/null; done
for r in $(seq "$ROUNDS"); do
  for p in 16 1; do
    n=1000000; [ "$p" = 1 ] && n=200000
    for t in set get; do
      for s in before after redis; do
        echo "$r -P$p $t $s $(ops "${port[$s]}" "$t" "$p" "$n")"
      done
    done
  done
done
