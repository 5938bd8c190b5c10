#!/usr/bin/env bash
# A/B of SET between rbkv-server builds (and redis-server) on a busy machine.
#   bench/set_ab.sh [-r rounds] [-n requests] BIN_A BIN_B [BIN...]
# Each round starts every server fresh, in turn (A, B, ..., then redis-server),
# and runs redis-benchmark SET -c 50 -P 16 -r 1000000 -d 16 twice: "new" on the
# empty server (about 63% of the SETs add a key) and "again" right after (about
# 23% do). For each run it prints the throughput and the server's CPU time
# (task-clock from perf stat, which counts only the server process, so other
# load on the machine disturbs it less than it disturbs throughput), as
# microseconds of CPU per SET. Then the medians over the rounds, and the
# ratios of each build to redis-server from the same rounds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=5
N=1000000
while getopts r:n: o; do
  case $o in
    r) ROUNDS=$OPTARG ;;
    n) N=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-r rounds] [-n requests] BIN_A [BIN_B...]" >&2; exit 2; }
BINS=("$@" redis)
OUT=$(mktemp)
trap 'bench_cleanup; rm -f "$OUT"' EXIT

# run_one PORT PID -> "rps cpu_us_per_set"
run_one() {
  local pf
  pf=$(mktemp)
  perf stat -e task-clock -x, -o "$pf" -p "$2" &
  local perf_pid=$!
  sleep 0.2
  local rps
  rps=$(redis-benchmark -p "$1" -t set -c 50 -P 16 -r 1000000 -d 16 -n "$N" -q --csv |
    csv_rps)
  kill -INT $perf_pid; wait $perf_pid 2>/dev/null || true
  local ms
  ms=$(awk -F, '/task-clock/ { print $1; exit }' "$pf")
  rm -f "$pf"
  awk -v r="$rps" -v ms="$ms" -v n="$N" 'BEGIN { printf "%s %.3f\n", r, ms * 1000 / n }'
}

for round in $(seq "$ROUNDS"); do
  for i in "${!BINS[@]}"; do
    b=${BINS[$i]}
    port=$(free_port)
    if [ "$b" = redis ]; then start_redis "$port"; else RBKV_BIN=$b start_rbkv "$port"; fi
    pid=${BENCH_PIDS[-1]}
    for phase in new again; do
      read -r rps cpu < <(run_one "$port" "$pid")
      echo "$round $i $phase $rps $cpu" | tee -a "$OUT" >&2
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true
    BENCH_PIDS=()
  done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
printf '%-3s %-40s %-6s %12s %12s %10s\n' "#" build phase "ops/s med" "cpu us/SET" "vs redis"
for phase in new again; do
  r_rps=$(awk -v p=$phase -v i=$((${#BINS[@]} - 1)) '$2 == i && $3 == p { print $4 }' "$OUT" | median)
  for i in "${!BINS[@]}"; do
    rps=$(awk -v p=$phase -v i="$i" '$2 == i && $3 == p { print $4 }' "$OUT" | median)
    cpu=$(awk -v p=$phase -v i="$i" '$2 == i && $3 == p { print $5 }' "$OUT" | median)
    printf '%-3s %-40s %-6s %12s %12s %10s\n' "$i" "${BINS[$i]}" "$phase" "$rps" "$cpu" "$(ratio "$rps" "$r_rps")"
  done
done
