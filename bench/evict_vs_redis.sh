#!/usr/bin/env bash
# Eviction of rbkv-server against Debian's redis-server 7 under the same memory cap, side by side.
#   bench/evict_vs_redis.sh [--maxmemory 20mb] [--keys 1000000] [--ops 1000000] [--alpha 0.99]
#                           [--value 100] [--policies "allkeys-lru allkeys-lfu"] [--seed 1]
#   (or MAXMEMORY=, KEYS=, OPS=, ALPHA=, VALUE=, POLICIES=, SEED= in the environment)
# For each policy, each server starts empty with that maxmemory and policy, and bench/evict_zipf
# (evict_zipf.c) runs the same key sequence against it: GET a Zipf-distributed key of KEYS, SET it
# (VALUE bytes) on a miss. Reported per server: the hit rate over all GETs and over the second half
# (the cache full), then used_memory, maxmemory, keys held and evicted_keys after the run, and the
# run's seconds. Goal: rbkv's hit rate >= redis's at the same cap and policy.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
MAXMEMORY=${MAXMEMORY:-20mb} KEYS=${KEYS:-1000000} OPS=${OPS:-1000000} ALPHA=${ALPHA:-0.99}
VALUE=${VALUE:-100} POLICIES=${POLICIES:-allkeys-lru allkeys-lfu} SEED=${SEED:-1}
while [ $# -gt 0 ]; do
  case $1 in
    --maxmemory) MAXMEMORY=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --alpha) ALPHA=$2; shift 2 ;;
    --value) VALUE=$2; shift 2 ;;
    --policies) POLICIES=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
ensure_built
DRIVER=$ROOT/build/bench/evict_zipf

stat_field() { # PORT SECTION FIELD
  redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v f="$3" '$1 == f { print $2 }'
}

echo "maxmemory $MAXMEMORY, $KEYS keys, $OPS GETs, Zipf $ALPHA, $VALUE-byte values, seed $SEED"
printf '%-14s %-6s %9s %9s %11s %11s %9s %9s %7s\n' policy server hit_rate warm_hit used_memory \
  maxmemory keys evicted seconds
for policy in $POLICIES; do
  for kind in redis rbkv; do
    port=$(free_port)
    if [ "$kind" = rbkv ]; then
      start_rbkv "$port" --maxmemory "$MAXMEMORY" --maxmemory-policy "$policy"
    else
      start_redis "$port" --maxmemory "$MAXMEMORY" --maxmemory-policy "$policy"
    fi
    read -r _ _ _ _ _ rate _ warm _ secs < <("$DRIVER" "$port" "$KEYS" "$OPS" "$ALPHA" "$VALUE" "$SEED")
    printf '%-14s %-6s %9s %9s %11s %11s %9s %9s %7s\n' "$policy" "$kind" "$rate" "$warm" \
      "$(stat_field "$port" memory used_memory)" "$(stat_field "$port" memory maxmemory)" \
      "$(redis-cli -p "$port" dbsize)" "$(stat_field "$port" stats evicted_keys)" "$secs"
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
done
