#!/usr/bin/env bash
# Start-up time on a Redis dump.rdb: rbkv-server against Debian's redis-server
# loading the same file.
#   bench/rdb_load_vs_redis.sh            1,000,000 keys
#   bench/rdb_load_vs_redis.sh --keys N   N keys (e.g. 100000 for a profile)
#   bench/rdb_load_vs_redis.sh --file F   an existing dump.rdb instead
#   bench/rdb_load_vs_redis.sh --keep F   also keeps the file it makes at F
#                                          (for --file in later runs)
# The file is made by redis-server: DEBUG POPULATE N (strings "key:i" ->
# "value:i"), plus 1000 hashes, sets and sorted sets of 100 members each (Redis
# keeps them as listpacks and intsets, which rbkv converts as it loads), and
# SAVE. Then each server starts on a copy of it until it answers PING (both
# load before they serve), alternately, RUNS times (default 3); each run's
# ratio rbkv / redis is printed (below 1.0: rbkv loads faster), for the wall
# time, for the CPU time each server used until then and for its peak RSS
# (VmHWM: the most memory it held at once, loading included), then the ranges.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
KEYS=1000000
FILE=
KEEP=
RUNS=${RUNS:-3}
while [ $# -gt 0 ]; do
  case $1 in
    --keys) KEYS=$2; shift 2 ;;
    --file) FILE=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    *) echo "usage: $0 [--keys N] [--file dump.rdb] [--keep dump.rdb]" >&2; exit 2 ;;
  esac
done
ensure_built

WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/make" "$WORK/rbkv" "$WORK/redis"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

if [ -z "$FILE" ]; then
  port=$(free_port)
  start_redis "$port" --dir "$WORK/make" --enable-debug-command yes
  redis-cli -p "$port" debug populate "$KEYS" >/dev/null
  awk 'BEGIN { for (k = 0; k < 1000; k++) {
      printf "*202\r\n$4\r\nHSET\r\n$%d\r\nh:%d\r\n", length("h:" k), k
      for (i = 0; i < 100; i++) printf "$%d\r\nf%d\r\n$%d\r\nv%d\r\n", length("f" i), i, length("v" i), i
      printf "*102\r\n$4\r\nSADD\r\n$%d\r\ns:%d\r\n", length("s:" k), k
      for (i = 0; i < 100; i++) printf "$%d\r\n%d\r\n", length(i ""), i
      printf "*202\r\n$4\r\nZADD\r\n$%d\r\nz:%d\r\n", length("z:" k), k
      for (i = 0; i < 100; i++) printf "$%d\r\n%d\r\n$%d\r\nm%d\r\n", length(i ""), i, length("m" i), i
    } }' | pipe_load "$port"
  redis-cli -p "$port" save >/dev/null
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "${BENCH_PIDS[-1]}" 2>/dev/null || true
  FILE=$WORK/make/dump.rdb
  [ -z "$KEEP" ] || cp "$FILE" "$KEEP"
fi
cp "$FILE" "$WORK/rbkv/dump.rdb"
cp "$FILE" "$WORK/redis/dump.rdb"
echo "file: $(stat -c %s "$FILE") bytes"

# load NAME: starts NAME on its copy, prints the seconds until PING answers,
# the CPU seconds (user + system) the server had used by then, its peak RSS
# by then in MB, and the keys it then holds. The CPU time is the steadier figure on a shared machine,
# where the wall time mostly measures waiting for a core.
load() {
  local port t0 t1 pid cpu hwm
  port=$(free_port)
  t0=$(now)
  if [ "$1" = rbkv ]; then
    "$RBKV_BIN" --port "$port" --dir "$WORK/rbkv" --dbfilename dump.rdb --save '' \
      --appendonly no --loglevel warning >/dev/null &
  else
    redis-server --port "$port" --dir "$WORK/redis" --save '' --appendonly no \
      --loglevel warning >/dev/null &
  fi
  pid=$!
  BENCH_PIDS+=($pid)
  until [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; do
    # Both bind only after loading: another process may take the port first.
    kill -0 "$pid" 2>/dev/null || { echo "$1 exited before answering on port $port" >&2; exit 1; }
    sleep 0.01
  done
  t1=$(now)
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$pid/stat")
  hwm=$(awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
  local n
  n=$(redis-cli -p "$port" dbsize)
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  echo "$(elapsed "$t0" "$t1") $cpu $hwm $n"
}

printf '%-4s %9s %9s %7s %10s %10s %7s %8s %8s %7s\n' run "rbkv s" "redis s" ratio "rbkv cpu" \
  "redis cpu" ratio "rbkv MB" "redis MB" ratio
ratios=()
cratios=()
mratios=()
for i in $(seq "$RUNS"); do
  # Alternate which one goes first, so neither always finds the file cached.
  if [ $((i % 2)) = 1 ]; then read -r a ca ma na < <(load rbkv); read -r b cb mb nb < <(load redis)
  else read -r b cb mb nb < <(load redis); read -r a ca ma na < <(load rbkv); fi
  [ -n "$na" ] && [ "$na" = "$nb" ] || { echo "rbkv loaded '$na' keys, redis-server '$nb'" >&2; exit 1; }
  r=$(ratio "$a" "$b")
  c=$(ratio "$ca" "$cb")
  m=$(ratio "$ma" "$mb")
  ratios+=("$r")
  cratios+=("$c")
  mratios+=("$m")
  printf '%-4s %9s %9s %7s %10s %10s %7s %8s %8s %7s\n' "$i" "$a" "$b" "$r" "$ca" "$cb" "$c" \
    "$ma" "$mb" "$m"
done
range() { printf '%s to %s' "$(printf '%s\n' "$@" | sort -n | head -1)" "$(printf '%s\n' "$@" | sort -n | tail -1)"; }
printf 'keys %s, ratio rbkv/redis: wall %s, cpu %s, peak RSS %s\n' "$na" \
  "$(range "${ratios[@]}")" "$(range "${cratios[@]}")" "$(range "${mratios[@]}")"
