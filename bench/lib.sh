# Shared helpers for the bench/ scripts (sourced, not run): free ports, starting
# and stopping rbkv-server and Debian's redis-server side by side.
# Both servers run without persistence, on loopback, and are killed on exit.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RBKV_BIN=${RBKV_BIN:-$ROOT/build/server/rbkv-server}
BENCH_PIDS=()

bench_cleanup() {
  for p in "${BENCH_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap bench_cleanup EXIT

# Below the kernel's ephemeral ports (32768 by default): a port an outgoing connection holds
# answers no connect, yet cannot be bound (a node failed to start so under redis-benchmark).
free_port() {
  local p top
  top=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 40000)
  [ "$top" -gt 21000 ] 2>/dev/null || top=40000
  while :; do
    p=$((20000 + RANDOM % (top - 20000)))
    (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return; }
  done
}

wait_ping() {
  for _ in $(seq 100); do
    [ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  echo "server on port $1 did not answer PING" >&2
  return 1
}

# start_rbkv PORT [flags...]; start_redis PORT [flags...]
start_rbkv() {
  local port=$1; shift
  "$RBKV_BIN" --port "$port" --loglevel warning "$@" >/dev/null &
  BENCH_PIDS+=($!)
  wait_ping "$port"
}

start_redis() {
  local port=$1; shift
  redis-server --port "$port" --save '' --appendonly no --loglevel warning "$@" >/dev/null &
  BENCH_PIDS+=($!)
  wait_ping "$port"
}

# bench_dir: where a script makes its work folder: /dev/shm when BENCH_TMPFS is set (1, yes...),
# so that no file a server writes (nodes.conf, snapshots) waits on a disk; else ${TMPDIR:-/tmp}.
# Fails, saying so, when BENCH_TMPFS is set and /dev/shm is no tmpfs.
bench_dir() {
  if [ -n "${BENCH_TMPFS:-}" ] && [ "$BENCH_TMPFS" != 0 ]; then
    [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] ||
      { echo "BENCH_TMPFS: /dev/shm is no tmpfs here" >&2; return 1; }
    echo /dev/shm
  else
    echo "${TMPDIR:-/tmp}"
  fi
}

# start_cluster_nodes DIR KIND BIN N: N nodes of BIN in cluster mode (the bus on a free port),
# each in a folder of its own under DIR (nodes.conf and its log, server.log, are written there;
# the log's end is shown when a node does not start), without persistence; their
# ports into CLUSTER_PORTS and pids into CLUSTER_PIDS (also in BENCH_PIDS, killed on exit).
start_cluster_nodes() {
  local dir=$1 kind=$2 bin=$3 n=$4 i p d
  CLUSTER_PORTS=() CLUSTER_PIDS=()
  for ((i = 0; i < n; i++)); do
    p=$(free_port); d="$dir/$kind-$p"; mkdir -p "$d"
    (cd "$d" && exec "$bin" --port "$p" --cluster-enabled yes --cluster-port "$(free_port)" \
       --save '' --appendonly no --loglevel warning >server.log 2>&1) &
    CLUSTER_PIDS+=($!); BENCH_PIDS+=($!); CLUSTER_PORTS+=("$p")
    wait_ping "$p" || { tail -5 "$d/server.log" >&2; return 1; }
  done
}

# cluster_of_three DIR KIND BIN: three primaries of BIN (start_cluster_nodes), made one cluster by
# redis-cli --cluster create, waited for until each says cluster_state:ok; ports in CLUSTER_PORTS.
cluster_of_three() {
  start_cluster_nodes "$1" "$2" "$3" 3
  redis-cli --cluster create "127.0.0.1:${CLUSTER_PORTS[0]}" "127.0.0.1:${CLUSTER_PORTS[1]}" \
    "127.0.0.1:${CLUSTER_PORTS[2]}" --cluster-yes >/dev/null
  local p
  for p in "${CLUSTER_PORTS[@]}"; do
    for _ in $(seq 300); do
      redis-cli -p "$p" cluster info | grep -q cluster_state:ok && break
      sleep 0.1
    done
  done
}

# keep_best NAME SECONDS: the lowest SECONDS seen for NAME, in the caller's associative array best
# (declare -A best first); an empty SECONDS (its measurement failed) stops the script.
keep_best() {
  [ -n "$2" ] || { echo "a measured run gave no result for $1" >&2; exit 1; }
  if [ -z "${best[$1]:-}" ] || awk -v a="$2" -v b="${best[$1]}" 'BEGIN { exit !(a < b) }'; then
    best[$1]=$2
  fi
}

# start_kind KIND PORT DIR [flags...]: rbkv or redis (start_rbkv/start_redis) on PORT, its files in
# DIR, persistence off.
start_kind() {
  local kind=$1 port=$2 dir=$3; shift 3
  if [ "$kind" = rbkv ]; then start_rbkv "$port" --dir "$dir" --save '' "$@"
  else start_redis "$port" --dir "$dir" "$@"; fi
}

# Stops the server started last (the end of BENCH_PIDS) and waits for it.
stop_last() {
  local pid=${BENCH_PIDS[-1]}
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset 'BENCH_PIDS[-1]'
}

info_of() { # PORT SECTION FIELD
  redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v f="$3" '$1 == f { print $2 }'
}

info_field() { # PORT FIELD
  redis-cli -p "$1" info memory | tr -d '\r' | awk -F: -v f="$2" '$1 == f { print $2 }'
}

# csv_rps: the requests per second of the first result of redis-benchmark --csv read from stdin.
# None (a refused connection, a server that went away: redis-benchmark said why on stderr) prints
# nothing and fails, saying so, so no ratio is made of an empty figure.
csv_rps() {
  awk -F, 'NR > 1 { gsub(/"/, "", $2); print $2; found = 1; exit }
    END { if (!found) { print "redis-benchmark gave no result" > "/dev/stderr"; exit 1 } }'
}

# bench_rps PORT REQUESTS PIPELINE RANGE COMMAND...: redis-benchmark's requests per second for
# COMMAND (50 clients, __rand_int__ below RANGE).
bench_rps() {
  local port=$1 n=$2 pipeline=$3 range=$4; shift 4
  redis-benchmark -p "$port" -n "$n" -c 50 -P "$pipeline" -r "$range" --csv "$@" |
    csv_rps
}
# best A B: the larger. An empty B is a measured run that gave nothing: it fails, so `r=$(best "$r"
# "$(bench_rps ...)")` stops a set -e script (the inner failure alone is lost in the argument).
best() {
  [ -n "$2" ] || { echo "a measured run gave no result" >&2; return 1; }
  awk -v a="$1" -v b="$2" 'BEGIN { print (a > b ? a : b) }'
}

# The time inside COMMAND (lower case) per call, in microseconds, from INFO commandstats: what the
# server spent, without the client and the network.
usec_per_call() { # PORT COMMAND
  redis-cli -p "$1" info commandstats | tr -d '\r' |
    awk -F'[=,]' -v c="cmdstat_$2:calls" '$1 == c { print $6 }'
}

# bench_row LABEL REQUESTS RANGE COMMAND...: one table row, COMMAND on $RBKV_PORT and $REDIS_PORT
# at -P 1 (a quarter of REQUESTS) and -P 16 (REQUESTS), each divided by $SCALE, best of $ROUNDS
# alternating rounds: the two throughputs and rbkv / redis for each pipeline.
bench_row() {
  local label=$1 requests=$2 range=$3 line p n r s; shift 3
  line=$(printf '%-36s' "${label:0:36}")
  for p in 1 16; do
    n=$((requests / SCALE)); [ "$p" = 1 ] && n=$((n / 4))
    r=0; s=0
    for _ in $(seq "$ROUNDS"); do
      r=$(best "$r" "$(bench_rps "$RBKV_PORT" "$n" "$p" "$range" "$@")")
      s=$(best "$s" "$(bench_rps "$REDIS_PORT" "$n" "$p" "$range" "$@")")
    done
    line+=$(printf ' | %10.0f %10.0f %6s' "$r" "$s" "$(ratio "$r" "$s")")
  done
  echo "$line"
}
bench_row_header() { # FIRST-COLUMN
  printf '%-36s | %10s %10s %6s | %10s %10s %6s\n' "$1" "rbkv -P1" "redis -P1" ratio \
    "rbkv -P16" "redis -P16" ratio
}

# pipe_load PORT < RESP: redis-cli --pipe into PORT; exits the script unless every reply was fine.
pipe_load() {
  redis-cli -p "$1" --pipe | grep -q "errors: 0" || { echo "loading into $1 failed" >&2; exit 1; }
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# [--rounds N] [--quick] into ROUNDS (default 3) and SCALE (the requests divided by it: 1, or 10
# for --quick's one-round smoke run), for the scripts that take only those.
rounds_args() {
  ROUNDS=3
  SCALE=1
  while [ $# -gt 0 ]; do
    case $1 in
      --rounds) ROUNDS=$2; shift 2 ;;
      --quick) ROUNDS=1; SCALE=10; shift ;;
      *) echo "usage: $0 [--rounds N] [--quick]" >&2; exit 2 ;;
    esac
  done
}

# Keys [from, to) as SETs with 16-byte values, for redis-cli --pipe.
gen_set() {
  awk -v from="$1" -v to="$2" 'BEGIN {
    for (i = from; i < to; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$16\r\nvalue:%010d\r\n", i, i }'
}
# gen_zadd FROM TO [ZSET [PREFIX]]: the strings PREFIX%012d (default key:, so the same strings as
# gen_set's keys) for i in [FROM, TO) as members of ZSET (default zkeys) with score 0, a
# thousand per ZADD.
gen_zadd() {
  awk -v from="$1" -v to="$2" -v z="${3:-zkeys}" -v p="${4:-key:}" 'BEGIN {
    for (i = from; i < to; i += 1000) {
      m = to - i < 1000 ? to - i : 1000
      printf "*%d\r\n$4\r\nZADD\r\n$%d\r\n%s\r\n", 2 + 2 * m, length(z), z
      for (j = i; j < i + m; j++) printf "$1\r\n0\r\n$%d\r\n%s%012d\r\n", length(p) + 12, p, j
    } }'
}
load() { # PORT GENERATOR ARGS...
  local port=$1; shift
  "$@" | redis-cli -p "$port" --pipe | grep -q "errors: 0" || { echo "loading into $port failed" >&2; exit 1; }
}

# two_builds LOADGEN_NEEDED BEFORE [AFTER]: sets BEFORE and AFTER (default
# build/server/rbkv-server), for the scripts that compare two rbkv builds and redis-server;
# installs what bench/ needs (deps.sh) and fails without a redis-server, or (LOADGEN_NEEDED 1)
# without bench/loadgen in LOADGEN (default build/bench/loadgen).
two_builds() {
  # shellcheck disable=SC2034 # for the sourcing script
  BEFORE=$2 AFTER=${3:-$ROOT/build/server/rbkv-server}
  "$ROOT/scripts/deps.sh" build bench
  command -v redis-server >/dev/null || { echo "no redis-server on PATH" >&2; exit 1; }
  LOADGEN=${LOADGEN:-$ROOT/build/bench/loadgen}
  [ "$1" = 0 ] || [ -x "$LOADGEN" ] ||
    { echo "no $LOADGEN: cmake --build build --target loadgen" >&2; exit 1; }
}

ensure_built() {
  "$ROOT/scripts/deps.sh" build bench
  if [ -z "${BENCH_NO_BUILD:-}" ]; then
    cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$ROOT/build" -j "$(nproc)" >/dev/null
  fi
}
