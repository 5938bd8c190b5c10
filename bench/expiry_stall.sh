#!/usr/bin/env bash
# The stall one read causes after a mass expiry.
#   bench/expiry_stall.sh [--keys N]          (RBKV_BIN=path to compare another build)
#
# For each read (KFIRST, SCAN 0, KCOUNT - +): FLUSHALL, load N keys (default 1,000,000)
# key:0000000 .. with SET ... PXAT T through redis-cli --pipe, T LOAD_MARGIN ms (default 100 s:
# loading takes 10-40 s on a busy 2-core machine) after the load started,
# then CLIENT PAUSE WRITE, which holds back active expiry (pause_stops_writes), wait until T has
# passed, so all N keys are past their deadline and none is deleted, and run the read once.
# The figures are the read's own time inside the server (INFO commandstats usec, after CONFIG
# RESETSTAT), and the wall time of a redis-cli PING sent 5 ms behind it from a second client
# (what every other client waits), beside the same PING's time just before the read (redis-cli's
# own start-up, which dominates it on a quiet server). A build that deletes due keys before answering spends
# that time deleting N keys; one that skips them does not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N=1000000
while [ $# -gt 0 ]; do
  case $1 in
    --keys) N=$2; shift 2 ;;
    *) echo "usage: $0 [--keys N]" >&2; exit 2 ;;
  esac
done
[ -x "$RBKV_BIN" ] || ensure_built

PORT=$(free_port)
start_rbkv "$PORT" --save ''
cli() { redis-cli -p "$PORT" "$@"; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# load_due: N keys whose deadline passes about LOAD_MARGIN ms after the load started.
load_due() {
  local t=$(( $(now_ms) + LOAD_MARGIN ))
  awk -v n="$N" -v t="$t" 'BEGIN {
    for (i = 0; i < n; i++) {
      k = sprintf("key:%07d", i)
      printf "*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n$4\r\nPXAT\r\n$%d\r\n%s\r\n", length(k), k, length(t), t
    }
  }' | pipe_load "$PORT"
  cli client pause 600000 write >/dev/null
  while [ "$(now_ms)" -le $(( t + 100 )) ]; do sleep 0.1; done
  echo "$t"
}

LOAD_MARGIN=${LOAD_MARGIN:-100000}
# ping_ms: the wall time of one redis-cli PING, in ms.
ping_ms() {
  local s e
  s=$(date +%s%N); cli ping >/dev/null; e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
}

printf '%-12s %12s %14s %14s %10s\n' read usec_in_cmd ping_alone_ms ping_behind_ms dbsize_after
for read in "KFIRST" "SCAN 0" "KCOUNT - +"; do
  cli client unpause >/dev/null # else the pause holds FLUSHALL back
  cli flushall >/dev/null
  t=$(load_due)
  [ "$(cli dbsize)" = "$N" ] || { echo "load: dbsize $(cli dbsize), expected $N (raise LOAD_MARGIN)" >&2; exit 1; }
  cli config resetstat >/dev/null
  alone=$(ping_ms)
  # shellcheck disable=SC2086
  cli $read >/dev/null &
  reader=$!
  sleep 0.005
  behind=$(ping_ms)
  wait "$reader"
  name=$(echo "$read" | awk '{ print tolower($1) }')
  usec=$(cli info commandstats | tr -d '\r' | awk -F'[:=,]' -v c="cmdstat_$name" '$1 == c { print $5 }')
  printf '%-12s %12s %14s %14s %10s\n' "$read" "$usec" "$alone" "$behind" "$(cli dbsize)"
done
cli client unpause >/dev/null
