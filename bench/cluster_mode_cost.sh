#!/usr/bin/env bash
# What cluster mode adds to a request: CPU and syscalls per GET/SET of one node, in cluster mode
# (owning all 16384 slots) and outside it, rbkv-server against Debian's redis-server 7, at
# pipeline 1 and 16 (issue 35's GET/SET figure, taken apart).
#   bench/cluster_mode_cost.sh [--requests N] [--rounds R] [--clients C] [--no-strace]
#   RBKV_BIN=/tmp/before/rbkv-server bench/cluster_mode_cost.sh
# For each round, kind (rbkv, redis) and mode (plain, cluster): a fresh server (persistence off;
# in cluster mode CLUSTER ADDSLOTSRANGE 0 16383, then cluster_state:ok), then redis-benchmark
# -t set, -t get at -P 1, then -t set, -t get at -P 16, N requests each (default 200000), C clients
# (default 50), keys key:__rand_int__ of 100,000, 16-byte values (the first SET creates most keys,
# so its cost includes the per-slot key index's insertions). CPU per request: the server's
# user+sys from /proc/PID/stat over the test (ticks of 10 ms), in microseconds; the range over the
# rounds. Then (unless --no-strace) one more fresh server per kind and mode under `strace -c -f`
# attached for the P 1 SET and GET tests (N / 4 requests each), and the syscalls per request:
# read, write (libuv's write is writev), epoll_wait, epoll_ctl and all. strace slows the server,
# which changes how many replies each wakeup finds, so its counts lean towards one request per
# wakeup for both kinds alike.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
REQUESTS=200000 ROUNDS=3 CLIENTS=50 STRACE=1
while [ $# -gt 0 ]; do
  case $1 in
    --requests) REQUESTS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --no-strace) STRACE=; shift ;;
    *) echo "usage: $0 [--requests N] [--rounds R] [--clients C] [--no-strace]" >&2; exit 2 ;;
  esac
done
[ -x "$RBKV_BIN" ] || ensure_built
[ -z "$STRACE" ] || command -v strace >/dev/null || { echo "needs strace (or --no-strace)" >&2; exit 1; }
REDIS_BIN=$(command -v redis-server)
TICKS=$(getconf CLK_TCK)
work=$(mktemp -d "${TMPDIR:-/tmp}/cluster-cost-XXXXXX")
results=$work/results
trap 'bench_cleanup; rm -rf "$work"' EXIT

ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; } # PID: utime + stime

# start KIND MODE: a fresh server; sets PORT and PID.
start() {
  local kind=$1 mode=$2 d bin args=()
  PORT=$(free_port); d=$(mktemp -d "$work/$kind-$mode-XXXX")
  bin=$RBKV_BIN; [ "$kind" = rbkv ] || bin=$REDIS_BIN
  [ "$mode" = plain ] || args=(--cluster-enabled yes --cluster-port "$(free_port)")
  (cd "$d" && exec "$bin" --port "$PORT" "${args[@]}" --save '' --appendonly no \
     --loglevel warning >server.log 2>&1) &
  PID=$!; BENCH_PIDS+=("$PID")
  wait_ping "$PORT" || { tail -5 "$d/server.log" >&2; exit 1; }
  [ "$mode" = plain ] && return
  redis-cli -p "$PORT" cluster addslotsrange 0 16383 >/dev/null
  for _ in $(seq 300); do
    redis-cli -p "$PORT" cluster info | tr -d '\r' | grep -q '^cluster_state:ok' && return
    sleep 0.1
  done
  echo "$kind in cluster mode never reached cluster_state:ok" >&2; exit 1
}

stop() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; unset 'BENCH_PIDS[-1]'; }

bench() { # TEST PIPELINE N
  redis-benchmark -p "$PORT" -t "$1" -P "$2" -n "$3" -r 100000 -d 16 -c "$CLIENTS" -q >/dev/null ||
    { echo "redis-benchmark -t $1 -P $2 failed on port $PORT" >&2; exit 1; }
}

echo "one node, $REQUESTS requests per test, $CLIENTS clients, $ROUNDS round(s); rbkv $RBKV_BIN vs" \
  "redis $($REDIS_BIN --version | awk '{print $3}'); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= ROUNDS; r++)); do
  for kind in rbkv redis; do
    for mode in plain cluster; do
      start "$kind" "$mode"
      for p in 1 16; do
        for t in set get; do
          b=$(ticks "$PID"); bench "$t" "$p" "$REQUESTS"; a=$(ticks "$PID")
          awk -v k="$kind" -v m="$mode" -v t="$t" -v p="$p" -v c=$((a - b)) -v hz="$TICKS" \
            -v n="$REQUESTS" 'BEGIN { printf "%s %s %s P%s %.2f\n", k, m, t, p, c / hz / n * 1e6 }' >>"$results"
        done
      done
      stop
    done
  done
done

range() { # KIND MODE TEST P: "min-max" of the rounds' CPU per request
  awk -v k="$1" -v m="$2" -v t="$3" -v p="$4" '$1 == k && $2 == m && $3 == t && $4 == p { print $5 }' \
    "$results" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print (lo == hi ? lo : lo "-" hi) }'
}
med() { # the same, median
  awk -v k="$1" -v m="$2" -v t="$3" -v p="$4" '$1 == k && $2 == m && $3 == t && $4 == p { print $5 }' \
    "$results" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
echo "server CPU per request, microseconds (range over the rounds; ratio of the medians rbkv/redis):"
printf '%-5s %-4s %-8s %14s %14s %6s\n' test P mode rbkv redis ratio
for p in 1 16; do
  for t in set get; do
    for mode in plain cluster; do
      printf '%-5s %-4s %-8s %14s %14s %6s\n' "$t" "$p" "$mode" "$(range rbkv "$mode" "$t" "P$p")" \
        "$(range redis "$mode" "$t" "P$p")" "$(ratio "$(med rbkv "$mode" "$t" "P$p")" "$(med redis "$mode" "$t" "P$p")")"
    done
  done
done

[ -n "$STRACE" ] || exit 0
n=$((REQUESTS / 4))
echo "syscalls per request at -P 1 under strace -c -f ($n requests per test):"
printf '%-5s %-8s %-6s %6s %6s %11s %10s %6s\n' test mode kind read write epoll_wait epoll_ctl all
for kind in rbkv redis; do
  for mode in plain cluster; do
    start "$kind" "$mode"
    for t in set get; do
      out=$work/strace.$kind.$mode.$t
      strace -c -f -p "$PID" -o "$out" &
      spid=$!
      sleep 0.5 # strace attaches to every thread before the run starts
      bench "$t" 1 "$n"
      kill -INT "$spid"; wait "$spid" || true # strace's status after SIGINT says nothing; its table does
      grep -q ' total$' "$out" || { echo "strace -c gave no table for $kind $mode $t" >&2; exit 1; }
      awk -v n="$n" -v t="$t" -v m="$mode" -v k="$kind" '
        $NF == "read" { rd = $4 } $NF == "write" || $NF == "writev" { wr += $4 }
        $NF == "epoll_wait" || $NF == "epoll_pwait" { ew += $4 } $NF == "epoll_ctl" { ec = $4 }
        $NF == "total" { all = $4 }
        END { printf "%-5s %-8s %-6s %6.2f %6.2f %11.2f %10.2f %6.2f\n", t, m, k, rd / n, wr / n, ew / n, ec / n, all / n }' "$out"
    done
    stop
  done
done
