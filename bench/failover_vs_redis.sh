#!/usr/bin/env bash
# Failover under Redis Sentinel, rbkv-server against Debian's redis-server 7, in one run.
#   bench/failover_vs_redis.sh [--repeats R]   (or REPEATS=; default 3)
# Runs tests/integration/test_sentinel.sh (a primary, two replicas and three redis-sentinel
# processes, down-after-milliseconds 1000; an ioredis client writing every 20 ms through the
# sentinels when tests/clients/node_modules is there) R times per server kind, the kinds taking
# turns, and collects what it prints: seconds from kill -9 of the primary to a replica being
# primary, to the other replica following it, the longest time the client went without an
# acknowledged write, and the time of a manual SENTINEL FAILOVER. Reports each run, the median
# and range per kind, and rbkv/redis of the medians (lower is better; goal: no slower, <= 1.0).
# Every run must pass the test's checks (no acknowledged write lost), or the benchmark stops.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
REPEATS=${REPEATS:-3}
while [ $# -gt 0 ]; do
  case $1 in
    --repeats) REPEATS=$2; shift 2 ;;
    *) echo "usage: $0 [--repeats R]" >&2; exit 2 ;;
  esac
done
command -v redis-sentinel >/dev/null || { echo "redis-sentinel is not installed" >&2; exit 1; }
ensure_built
REDIS_BIN=$(command -v redis-server)
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# One run of the test against binary $2; appends "kind promoted follows stall manual" to $results.
run_one() {
  local kind=$1 bin=$2 out
  if ! out=$(SENTINEL_FORCE=1 "$ROOT/tests/integration/test_sentinel.sh" "$bin" 2>&1); then
    echo "$out" | tail -20 >&2
    echo "the sentinel test failed against $kind: stopping" >&2
    exit 1
  fi
  local promoted follows stall manual
  promoted=$(echo "$out" | sed -n 's/.*is the primary after \([0-9.]*\) s;.*follows it after.*/\1/p')
  follows=$(echo "$out" | sed -n 's/.*follows it after \([0-9.]*\) s$/\1/p')
  stall=$(echo "$out" | sed -n 's/.*longest time without an acknowledged write: \([0-9.]*\) s.*/\1/p')
  manual=$(echo "$out" | sed -n 's/.*is the primary after \([0-9.]*\) s; the two others follow it/\1/p')
  printf '%s %s %s %s %s\n' "$kind" "${promoted:-nan}" "${follows:-nan}" "${stall:-nan}" \
    "${manual:-nan}" >>"$results"
  printf '  %-6s promoted %5s s  other replica follows %5s s  client stall %5s s  manual %5s s\n' \
    "$kind" "${promoted:-?}" "${follows:-?}" "${stall:-?}" "${manual:-?}"
}

echo "failover under redis-sentinel: rbkv $RBKV_BIN vs redis $($REDIS_BIN --version | awk '{print $3}')"
for ((r = 1; r <= REPEATS; r++)); do
  echo "round $r"
  if ((r % 2)); then run_one rbkv "$RBKV_BIN"; run_one redis "$REDIS_BIN"
  else run_one redis "$REDIS_BIN"; run_one rbkv "$RBKV_BIN"; fi
done

# median and range of column $2 for kind $1
stat() {
  awk -v k="$1" -v c="$2" '$1 == k && $c != "nan" { print $c }' "$results" | sort -g |
    awk '{ v[NR] = $1 } END { if (!NR) { print "n/a"; exit }
           m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
           printf "%.2f (%.2f-%.2f)", m, v[1], v[NR] }'
}
median() { stat "$1" "$2" | awk '{ print $1 }'; }

echo
printf '%-28s %-22s %-22s %s\n' measure rbkv redis "rbkv/redis"
for col in 2:promoted 3:"other replica follows" 4:"client stall" 5:"manual failover"; do
  c=${col%%:*} name=${col#*:}
  printf '%-28s %-22s %-22s %s\n' "$name (s)" "$(stat rbkv "$c")" "$(stat redis "$c")" \
    "$(ratio "$(median rbkv "$c")" "$(median redis "$c")")"
done
