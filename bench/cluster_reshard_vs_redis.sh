#!/usr/bin/env bash
# Resharding throughput under load, rbkv-server against Debian's redis-server 7, same layout.
#   bench/cluster_reshard_vs_redis.sh [--keys N] [--slots S] [--repeats R] [--dir DIR | --tmpfs]
# For each kind, R times (the kinds taking turns): three primaries in cluster mode, each in its own
# folder under DIR (default: lib.sh's bench_dir, ${TMPDIR:-/tmp}, or /dev/shm with BENCH_TMPFS=1;
# nodes.conf is written there on every slot change, so the disk matters: --tmpfs, the same as
# BENCH_TMPFS=1, puts the folders on /dev/shm to leave it out), made by `redis-cli --cluster create`;
# N keys (default 200000) written with redis-benchmark --cluster; then, while redis-benchmark
# --cluster reads through the cluster (GET, 4 clients), `redis-cli --cluster reshard` moves S slots
# (default 8192) from the first two primaries to the third (--cluster-pipeline 100). Reports the
# keys moved (the third node's DBSIZE after minus before), the seconds the reshard took, keys moved
# per second, each kind's median and range over the rounds, and rbkv/redis of the medians (higher
# is better; the issue's goal: >= 1.0).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
KEYS=200000 SLOTS=8192 REPEATS=${REPEATS:-3} DIR=
while [ $# -gt 0 ]; do
  case $1 in
    --keys) KEYS=$2; shift 2 ;;
    --slots) SLOTS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --tmpfs) BENCH_TMPFS=1; shift ;;
    *) echo "usage: $0 [--keys N] [--slots S] [--repeats R] [--dir DIR | --tmpfs]" >&2; exit 2 ;;
  esac
done
[ -n "$DIR" ] || DIR=$(bench_dir)
ensure_built
REDIS_BIN=$(command -v redis-server)
results=$(mktemp)
work=$(mktemp -d "$DIR/reshard-bench-XXXXXX")
trap 'bench_cleanup; rm -rf "$work" "$results"' EXIT

dbsize() { redis-cli -p "$1" dbsize; }

# run_one KIND BIN: one cluster, one reshard; appends "kind moved seconds" to $results.
run_one() {
  local kind=$1 bin=$2 ports pids p
  # Every node's cluster_state:ok, not only the first's: redis-benchmark --cluster that meets a
  # -CLUSTERDOWN at its start retries for ever, even once the cluster is up (seen on the disk
  # under load, the other two nodes late).
  cluster_of_three "$work" "$kind" "$bin"
  ports=("${CLUSTER_PORTS[@]}") pids=("${CLUSTER_PIDS[@]}")
  for _ in $(seq 300); do
    [ "$(redis-cli --cluster check "127.0.0.1:${ports[0]}" | grep -c '\[OK\]')" -ge 2 ] && break
    sleep 0.1
  done
  redis-benchmark --cluster -p "${ports[0]}" -t set -n "$KEYS" -r "$((KEYS * 10))" -d 32 -P 16 \
    -q >/dev/null
  local ids=() before after t0 t1
  for p in "${ports[@]}"; do ids+=("$(redis-cli -p "$p" cluster myid)"); done
  before=$(dbsize "${ports[2]}")
  redis-benchmark --cluster -p "${ports[0]}" -t get -n 1000000000 -r "$((KEYS * 10))" -c 4 -q \
    >/dev/null 2>&1 &
  local load=$!
  t0=$(date +%s.%N)
  redis-cli --cluster reshard "127.0.0.1:${ports[0]}" --cluster-from "${ids[0]},${ids[1]}" \
    --cluster-to "${ids[2]}" --cluster-slots "$SLOTS" --cluster-yes --cluster-pipeline 100 \
    >"$work/reshard-$kind.log" 2>&1 || { tail -5 "$work/reshard-$kind.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  kill "$load" 2>/dev/null || true; wait "$load" 2>/dev/null || true
  after=$(dbsize "${ports[2]}")
  redis-cli --cluster check "127.0.0.1:${ports[0]}" | grep -q 'All 16384 slots covered' ||
    { echo "check failed after the $kind reshard" >&2; exit 1; }
  local moved=$((after - before)) secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  printf '%s %s %s\n' "$kind" "$moved" "$secs" >>"$results"
  printf '  %-6s %8d keys in %7s s: %8.0f keys/s\n' "$kind" "$moved" "$secs" \
    "$(awk -v m="$moved" -v s="$secs" 'BEGIN { print m / s }')"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
}

echo "reshard of $SLOTS slots under GET load, $KEYS keys written, nodes in $DIR" \
  "($(stat -f -c %T "$DIR")):" \
  "rbkv $RBKV_BIN vs redis $($REDIS_BIN --version | awk '{print $3}')"
for ((r = 1; r <= REPEATS; r++)); do
  echo "round $r"
  if ((r % 2)); then run_one rbkv "$RBKV_BIN"; run_one redis "$REDIS_BIN"
  else run_one redis "$REDIS_BIN"; run_one rbkv "$RBKV_BIN"; fi
done
median() {
  awk -v k="$1" '$1 == k { print $2 / $3 }' "$results" | sort -g |
    awk '{ v[NR] = $1 } END { if (!NR) { print 0; exit }
           printf "%.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range_of() {
  awk -v k="$1" '$1 == k { print $2 / $3 }' "$results" | sort -g |
    awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.0f-%.0f", lo, hi }'
}
echo
printf 'keys moved per second (median): rbkv %s  redis %s  rbkv/redis %s\n' "$(median rbkv)" \
  "$(median redis)" "$(ratio "$(median rbkv)" "$(median redis)")"
printf 'keys moved per second (range over %d rounds): rbkv %s  redis %s\n' "$REPEATS" \
  "$(range_of rbkv)" "$(range_of redis)"
