#!/usr/bin/env bash
# Cluster failover, rbkv-server against Debian's redis-server 7.0, in one run.
#   bench/cluster_failover_vs_redis.sh [--repeats R] [--timeout MS]   (default 3, 3000)
# For each kind, R times (the kinds taking turns): six nodes in cluster mode with
# cluster-node-timeout MS, made a cluster of three primaries and three replicas by
# `redis-cli --cluster create --cluster-replicas 1`; once every replica's link is up, the primary
# serving key `foo` is killed with kill -9, and `redis-cli -c` (a cluster client: it follows
# -MOVED) retries `SET foo` through another node every 20 ms until one answers OK. Reports the
# milliseconds from the kill to that write per run, the median per kind, and rbkv/redis of the
# medians (lower is better; the issue's goal: <= 1.1).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
REPEATS=${REPEATS:-3}
TIMEOUT=3000
while [ $# -gt 0 ]; do
  case $1 in
    --repeats) REPEATS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    *) echo "usage: $0 [--repeats R] [--timeout MS]" >&2; exit 2 ;;
  esac
done
ensure_built
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

now_ms() { date +%s%3N; }

# Polls "$@" (a command) every 100 ms for up to 60 s; fails the benchmark when it never succeeds.
wait_for() {
  local what=$1; shift
  for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
  echo "never: $what" >&2
  exit 1
}

replicas_up() { # PORT...
  local p
  for p in "$@"; do
    if redis-cli -p "$p" role | head -1 | grep -q slave; then
      redis-cli -p "$p" info replication | grep -q 'master_link_status:up' || return 1
    fi
  done
}

cluster_ok() { # PORT...
  local p
  for p in "$@"; do
    redis-cli -p "$p" cluster info | grep -q 'cluster_state:ok' || return 1
  done
}

write_ok() { [ "$(redis-cli -c -p "$1" set foo bar 2>/dev/null)" = OK ]; }

# One run against kind $1; prints the milliseconds from kill -9 to the first write.
run_one() {
  local kind=$1
  local dir=$WORK/$kind-$2 ports=() pids=() i
  for i in 0 1 2 3 4 5; do
    local port bus
    port=$(free_port); bus=$(free_port)
    mkdir -p "$dir/$i"
    local flags=(--cluster-enabled yes --cluster-port "$bus" --cluster-node-timeout "$TIMEOUT"
                 --cluster-config-file "$dir/$i/nodes.conf" --dir "$dir/$i")
    if [ "$kind" = rbkv ]; then start_rbkv "$port" "${flags[@]}"; else start_redis "$port" "${flags[@]}"; fi
    ports+=("$port"); pids+=("${BENCH_PIDS[-1]}")
  done
  local addrs=()
  for i in "${ports[@]}"; do addrs+=("127.0.0.1:$i"); done
  redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >/dev/null
  wait_for "$kind cluster ok" cluster_ok "${ports[@]}"
  wait_for "$kind replicas linked" replicas_up "${ports[@]}"
  # The primary serving foo: the node that takes a SET of it without a redirection.
  local victim=-1
  for i in 0 1 2 3 4 5; do
    if [ "$(redis-cli -p "${ports[$i]}" set foo before 2>/dev/null)" = OK ]; then victim=$i; break; fi
  done
  [ "$victim" -ge 0 ] || { echo "no node serves foo" >&2; exit 1; }
  local via=$(((victim + 1) % 6)) t0 t1
  redis-cli -p "${ports[$victim]}" wait 1 5000 >/dev/null
  t0=$(now_ms)
  kill -9 "${pids[$victim]}"
  until write_ok "${ports[$via]}"; do
    sleep 0.02
    [ $(($(now_ms) - t0)) -lt 120000 ] || { echo "$kind: no write within 120 s" >&2; exit 1; }
  done
  t1=$(now_ms)
  echo $((t1 - t0))
  bench_cleanup; BENCH_PIDS=()
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

printf 'cluster-node-timeout %s ms; ms from kill -9 of a primary to the first write via redis-cli -c\n' "$TIMEOUT"
rbkv_runs=() redis_runs=()
for run in $(seq "$REPEATS"); do
  r=$(run_one rbkv "$run"); s=$(run_one redis "$run")
  printf 'run %-3s rbkv %6s ms   redis %6s ms\n' "$run" "$r" "$s"
  rbkv_runs+=("$r"); redis_runs+=("$s")
done
rm=$(printf '%s\n' "${rbkv_runs[@]}" | median)
sm=$(printf '%s\n' "${redis_runs[@]}" | median)
printf 'median  rbkv %6s ms   redis %6s ms   rbkv/redis %s\n' "$rm" "$sm" "$(ratio "$rm" "$sm")"
