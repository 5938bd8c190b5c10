#!/usr/bin/env bash
# How long fork() holds the loop, rbkv-server against Debian's redis-server with the same data.
#   bench/fork_vs_redis.sh [--keys "N ..."] [--rounds N] [--quick]
# For each key count (default 1,000,000 and 10,000,000), ROUNDS times (default 2), rbkv then
# redis-server on a fresh server (persistence off, its own --dir, latency-monitor-threshold 1):
# N keys key:%012d with 16-byte values through redis-cli --pipe, then
#   bgsave_us   INFO latest_fork_usec after a BGSAVE;
#   sync_ms     the "fork" event of LATENCY LATEST after a fresh replica's REPLICAOF (a full sync
#               with each server's default repl-diskless-sync), in ms as LATENCY reports it;
#   rss_mb, pte_kb, thp_mb   the server's VmRSS and VmPTE (/proc/PID/status: the page tables fork
#               copies) and AnonHugePages (/proc/PID/smaps_rollup) just before the BGSAVE.
# Prints one line per server, round and key count, and the transparent-huge-page setting.
# --quick: 100,000 keys, one round.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$BENCH_DIR/lib.sh"

COUNTS="1000000 10000000" ROUNDS=2
while [ $# -gt 0 ]; do
  case $1 in
    --keys) COUNTS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --quick) COUNTS=100000 ROUNDS=1; shift ;;
    *) echo "usage: $0 [--keys \"N ...\"] [--rounds N] [--quick]" >&2; exit 2 ;;
  esac
done
command -v redis-server >/dev/null || { echo "no redis-server on PATH" >&2; exit 1; }
[ -x "$RBKV_BIN" ] || ensure_built
WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

status_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; } # PID FIELD
wait_until() { # SECONDS COMMAND...: 0 once COMMAND succeeds
  local _
  for _ in $(seq $(( $1 * 10 ))); do "${@:2}" && return 0; sleep 0.1; done
  return 1
}
bgsave_done() { [ "$(info_of "$1" persistence rdb_bgsave_in_progress)" = 0 ]; }
link_up() { [ "$(info_of "$1" replication master_link_status)" = up ]; }

echo "transparent_hugepage: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo n/a)"
printf '%-6s %9s %6s %11s %8s %8s %8s %8s\n' server keys round bgsave_us sync_ms rss_mb pte_kb thp_mb
for n in $COUNTS; do
  for round in $(seq "$ROUNDS"); do
    for kind in rbkv redis; do
      dir=$WORK/$kind; mkdir -p "$dir" "$dir.replica"
      port=$(free_port); start_kind "$kind" "$port" "$dir" --latency-monitor-threshold 1; pid=${BENCH_PIDS[-1]}
      load "$port" gen_set 0 "$n"
      rss=$(( $(status_kb "$pid" VmRSS) / 1024 )) pte=$(status_kb "$pid" VmPTE)
      thp=$(( $(awk '$1 == "AnonHugePages:" { print $2 }' "/proc/$pid/smaps_rollup") / 1024 ))
      redis-cli -p "$port" bgsave >/dev/null
      wait_until 600 bgsave_done "$port" || { echo "$kind: BGSAVE did not finish" >&2; exit 1; }
      bg=$(info_of "$port" stats latest_fork_usec)
      redis-cli -p "$port" latency reset >/dev/null
      rport=$(free_port); start_kind "$kind" "$rport" "$dir.replica" --latency-monitor-threshold 1
      redis-cli -p "$rport" replicaof 127.0.0.1 "$port" >/dev/null
      wait_until 600 link_up "$rport" || { echo "$kind: the replica did not sync" >&2; exit 1; }
      # LATENCY LATEST: one row per event: name, when, latest ms, max ms.
      sync=$(redis-cli -p "$port" --csv latency latest | tr -d '"' | awk -F, '$1 == "fork" { print $3 }')
      printf '%-6s %9s %6s %11s %8s %8s %8s %8s\n' "$kind" "$n" "$round" "$bg" "${sync:-<1}" "$rss" "$pte" "$thp"
      stop_last; stop_last
      rm -rf "$dir" "$dir.replica"
    done
  done
done
