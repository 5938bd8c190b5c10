#!/usr/bin/env bash
# GET/SET through `redis-benchmark --cluster` on 1, 2 and 3 primaries, rbkv-server against Debian's
# redis-server 7 in cluster mode, same layout, same run.
#   bench/cluster_benchmark_vs_redis.sh [--requests N] [--clients C] [--pipeline P] [--rounds R]
#                                       [--primaries "1 2 3"]
# For each layout and kind (the kinds taking turns, R rounds): P primaries in cluster mode without
# replicas, each in its own tmpfs-or-TMPDIR folder, the 16384 slots split evenly by
# CLUSTER ADDSLOTSRANGE and joined by CLUSTER MEET (redis-cli --cluster create wants 3 primaries at
# least); then `redis-benchmark --cluster -t set` and `-t get` (without --cluster on one primary,
# which redis-benchmark --cluster refuses), N requests each (default 200000),
# C clients (default 50), pipeline P (default 1), keyspace 100000. Reports requests/s and the
# primaries' CPU per request (user+sys from /proc/PID/stat over that test, summed over the
# primaries, in microseconds), the medians over the rounds, and rbkv/redis ratios (throughput:
# higher is better, the issue's goal >= 1.0; CPU per request: lower is better).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
REQUESTS=200000 CLIENTS=50 PIPELINE=1 ROUNDS=3 LAYOUTS="1 2 3"
while [ $# -gt 0 ]; do
  case $1 in
    --requests) REQUESTS=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --pipeline) PIPELINE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --primaries) LAYOUTS=$2; shift 2 ;;
    *) echo "usage: $0 [--requests N] [--clients C] [--pipeline P] [--rounds R] [--primaries \"1 2 3\"]" >&2
       exit 2 ;;
  esac
done
ensure_built
REDIS_BIN=$(command -v redis-server)
TICKS=$(getconf CLK_TCK)
results=$(mktemp)
work=$(mktemp -d "${TMPDIR:-/tmp}/cluster-bench-XXXXXX")
trap 'bench_cleanup; rm -rf "$work" "$results"' EXIT

# cpu_ticks PID...: user+sys clock ticks of the processes (fields 14 and 15 of /proc/PID/stat,
# counted after the command name's closing parenthesis, which may hold spaces).
cpu_ticks() {
  local p sum=0 rest
  for p in "$@"; do
    rest=$(sed 's/.*) //' "/proc/$p/stat")
    sum=$((sum + $(awk '{ print $12 + $13 }' <<<"$rest")))
  done
  echo "$sum"
}

# settled PORT...: every node sees cluster_state:ok and knows all the others.
settled() {
  local p
  for p in "$@"; do
    redis-cli -p "$p" cluster info | tr -d '\r' | grep -q '^cluster_state:ok' || return 1
    [ "$(redis-cli -p "$p" cluster info | tr -d '\r' | awk -F: '$1 == "cluster_known_nodes" { print $2 }')" = "$#" ] ||
      return 1
  done
}

# run_one KIND BIN P: one cluster of P primaries, SET then GET; appends
# "kind P test rps cpu_us_per_request" lines to $results.
run_one() {
  local kind=$1 bin=$2 n=$3 ports pids p i lo hi
  start_cluster_nodes "$work" "$kind" "$bin" "$n"
  ports=("${CLUSTER_PORTS[@]}") pids=("${CLUSTER_PIDS[@]}")
  local bus0
  bus0=$(redis-cli -p "${ports[0]}" cluster nodes | awk '/myself/ { split($2, a, "@"); print a[2] }')
  for ((i = 0; i < n; i++)); do
    lo=$((16384 * i / n)); hi=$((16384 * (i + 1) / n - 1))
    redis-cli -p "${ports[i]}" cluster addslotsrange "$lo" "$hi" >/dev/null
    # MEET names the bus port: it is not the client port + 10000 here.
    [ "$i" -eq 0 ] || redis-cli -p "${ports[i]}" cluster meet 127.0.0.1 "${ports[0]}" "$bus0" >/dev/null
  done
  for _ in $(seq 300); do settled "${ports[@]}" && break; sleep 0.1; done
  settled "${ports[@]}" || { echo "the $kind cluster of $n never settled" >&2; exit 1; }
  local t before after rps cluster_flag=--cluster
  # redis-benchmark --cluster refuses a cluster of one primary ("Invalid cluster: 1 node(s)"); that
  # node serves every slot, so the plain mode sends it the same requests.
  [ "$n" -gt 1 ] || cluster_flag=
  for t in set get; do
    before=$(cpu_ticks "${pids[@]}")
    # shellcheck disable=SC2086 # no flag at all on one primary
    rps=$(redis-benchmark $cluster_flag -p "${ports[0]}" -t "$t" -n "$REQUESTS" -r 100000 -d 16 \
            -c "$CLIENTS" -P "$PIPELINE" -q | tr '\r' '\n' |
          awk -v t="${t^^}" '$1 == t":" { v = $2 } END { print v }')
    after=$(cpu_ticks "${pids[@]}")
    [ -n "$rps" ] || { echo "redis-benchmark --cluster -t $t failed on $kind x$n" >&2; exit 1; }
    printf '%s %s %s %s %s\n' "$kind" "$n" "$t" "$rps" \
      "$(awk -v c=$((after - before)) -v k="$TICKS" -v r="$REQUESTS" 'BEGIN { printf "%.2f", c / k / r * 1e6 }')" \
      >>"$results"
  done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pick() { # KIND P TEST COLUMN: the median of that column over the rounds
  awk -v k="$1" -v n="$2" -v t="$3" -v c="$4" '$1 == k && $2 == n && $3 == t { print $c }' "$results" | median
}

echo "redis-benchmark --cluster: $REQUESTS requests per test, $CLIENTS clients, pipeline $PIPELINE," \
  "$ROUNDS round(s); rbkv $RBKV_BIN vs redis $($REDIS_BIN --version | awk '{print $3}'); $(nproc) cores"
for n in $LAYOUTS; do
  for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then run_one rbkv "$RBKV_BIN" "$n"; run_one redis "$REDIS_BIN" "$n"
    else run_one redis "$REDIS_BIN" "$n"; run_one rbkv "$RBKV_BIN" "$n"; fi
  done
done
printf '%-9s %-4s %12s %12s %7s %14s %14s %7s\n' primaries test "rbkv req/s" "redis req/s" ratio \
  "rbkv us CPU" "redis us CPU" ratio
for n in $LAYOUTS; do
  for t in set get; do
    a=$(pick rbkv "$n" "$t" 4); b=$(pick redis "$n" "$t" 4)
    ca=$(pick rbkv "$n" "$t" 5); cb=$(pick redis "$n" "$t" 5)
    printf '%-9s %-4s %12s %12s %7s %14s %14s %7s\n' "$n" "$t" "$a" "$b" "$(ratio "$a" "$b")" \
      "$ca" "$cb" "$(ratio "$ca" "$cb")"
  done
done
echo "each round's figures (kind primaries test req/s us-CPU-per-request):"
sort -k2,2n -k3,3 -k1,1 "$results" | sed 's/^/  /'
