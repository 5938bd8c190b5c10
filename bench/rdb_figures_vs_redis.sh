#!/usr/bin/env bash
# The RDB paths other than start-up (bench/rdb_load_vs_redis.sh), rbkv-server against Debian's
# redis-server 7.0 side by side on the same dataset:
#   bench/rdb_figures_vs_redis.sh [--keys N] [--runs N]   (default 1,000,000 keys, 3 runs)
# redis-server makes the dataset (DEBUG POPULATE N: "key:i" -> "value:i") and saves it to a
# dump.rdb; each server then starts on a copy of it. Each figure is printed per run with the ratio
# rbkv / redis, then its range:
#   bgsave  BGSAVE until rdb_bgsave_in_progress:0 (each server in its own format: rbkv writes its
#           snapshot, redis-server its RDB), in seconds (below 1.0: rbkv is faster);
#   rdb     redis-cli --rdb FILE: the RDB each server writes for a full sync (no diskless delay),
#           to a file, in seconds;
#   sync    a full sync from a redis-server primary holding the dataset (diskless, no delay):
#           REPLICAOF to master_link_status:up, an rbkv replica against a redis-server replica,
#           in seconds;
#   dump    N DUMPs through redis-cli --pipe (pipelined), in keys/s (above 1.0: rbkv is faster);
#   restore N RESTOREs of a 7-byte string's payload taken from redis-server, in keys/s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
KEYS=1000000
RUNS=3
while [ $# -gt 0 ]; do
  case $1 in
    --keys) KEYS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    *) echo "usage: $0 [--keys N] [--runs N]" >&2; exit 2 ;;
  esac
done
ensure_built

WORK=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/make"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
field() { # PORT SECTION FIELD
  redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v f="$3" '$1 == f { print $2 }'
}

port=$(free_port)
start_redis "$port" --dir "$WORK/make" --enable-debug-command yes
redis-cli -p "$port" debug populate "$KEYS" >/dev/null
redis-cli -p "$port" save >/dev/null
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
wait "${BENCH_PIDS[-1]}" 2>/dev/null || true
echo "dataset: $KEYS keys, dump.rdb $(stat -c %s "$WORK/make/dump.rdb") bytes"

# The pipelined inputs: a DUMP of every key; a RESTORE of the same payload to N new keys.
awk -v n="$KEYS" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i
  printf "*2\r\n$4\r\nDUMP\r\n$%d\r\n%s\r\n", length(k), k } }' >"$WORK/dump.resp"

# serve KIND DIR [flags]: starts KIND (rbkv or redis) on DIR/dump.rdb, sets PORT, waits for it.
serve() {
  local kind=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  cp "$WORK/make/dump.rdb" "$dir/dump.rdb"
  PORT=$(free_port)
  if [ "$kind" = rbkv ]; then
    "$RBKV_BIN" --port "$PORT" --dir "$dir" --dbfilename dump.rdb --save '' --appendonly no \
      --loglevel warning "$@" >/dev/null &
  else
    redis-server --port "$PORT" --dir "$dir" --dbfilename dump.rdb --save '' --appendonly no \
      --loglevel warning "$@" >/dev/null &
  fi
  BENCH_PIDS+=($!)
  until [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ]; do
    kill -0 "${BENCH_PIDS[-1]}" 2>/dev/null || { echo "$kind exited before answering" >&2; exit 1; }
    sleep 0.02
  done
}
stop() {
  redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
  wait "${BENCH_PIDS[-1]}" 2>/dev/null || true
}

# One figure of each kind per call, for KIND: prints "bgsave rdb dump restore".
measure() {
  local kind=$1 dir=$WORK/$1 t0 t1 bg rdb dump restore
  serve "$kind" "$dir" --repl-diskless-sync-delay 0
  [ "$(redis-cli -p "$PORT" dbsize)" = "$KEYS" ] || { echo "$kind holds the wrong dbsize" >&2; exit 1; }
  t0=$(now)
  redis-cli -p "$PORT" bgsave >/dev/null
  sleep 0.05
  while [ "$(field "$PORT" persistence rdb_bgsave_in_progress)" != 0 ]; do sleep 0.02; done
  t1=$(now)
  [ "$(field "$PORT" persistence rdb_last_bgsave_status)" = ok ] || { echo "$kind: BGSAVE failed" >&2; exit 1; }
  bg=$(elapsed "$t0" "$t1")
  t0=$(now)
  redis-cli -p "$PORT" --rdb "$dir/out.rdb" >"$dir/rdb.log" 2>&1 ||
    { echo "$kind: redis-cli --rdb failed: $(cat "$dir/rdb.log")" >&2; exit 1; }
  t1=$(now)
  rdb=$(elapsed "$t0" "$t1")
  [ "$(head -c 5 "$dir/out.rdb")" = REDIS ] || { echo "$kind: --rdb gave no RDB file" >&2; exit 1; }
  t0=$(now)
  redis-cli -p "$PORT" --pipe <"$WORK/dump.resp" >"$dir/pipe.out"
  t1=$(now)
  grep -q "errors: 0, replies: $KEYS" "$dir/pipe.out" || { echo "$kind: DUMP: $(cat "$dir/pipe.out")" >&2; exit 1; }
  dump=$(awk -v n="$KEYS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
  t0=$(now)
  redis-cli -p "$PORT" --pipe <"$WORK/restore.resp" >"$dir/pipe.out"
  t1=$(now)
  grep -q "errors: 0, replies: $KEYS" "$dir/pipe.out" || { echo "$kind: RESTORE: $(cat "$dir/pipe.out")" >&2; exit 1; }
  [ "$(redis-cli -p "$PORT" get rk:7)" = value:0 ] || { echo "$kind: RESTOREd value wrong" >&2; exit 1; }
  restore=$(awk -v n="$KEYS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
  stop
  echo "$bg $rdb $dump $restore"
}

# sync KIND MPORT: a fresh KIND replica's full sync from the primary on MPORT, in seconds.
sync_time() {
  local kind=$1 mport=$2 t0 t1 p
  p=$(free_port)
  if [ "$kind" = rbkv ]; then
    "$RBKV_BIN" --port "$p" --dir "$WORK" --dbfilename "sync-$p" --save '' --appendonly no \
      --loglevel warning >/dev/null &
  else
    redis-server --port "$p" --dir "$WORK" --dbfilename "sync-$p" --save '' --appendonly no \
      --loglevel warning >/dev/null &
  fi
  BENCH_PIDS+=($!)
  wait_ping "$p"
  t0=$(now)
  redis-cli -p "$p" replicaof 127.0.0.1 "$mport" >/dev/null
  until [ "$(field "$p" replication master_link_status)" = up ]; do sleep 0.02; done
  t1=$(now)
  [ "$(redis-cli -p "$p" dbsize)" = "$KEYS" ] || { echo "$kind replica: wrong dbsize" >&2; exit 1; }
  redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true
  wait "${BENCH_PIDS[-1]}" 2>/dev/null || true
  elapsed "$t0" "$t1"
}

# The RESTORE input, with a payload redis-server made (binary: read off the socket).
serve redis "$WORK/payload"
python3 - "$PORT" "$KEYS" "$WORK/restore.resp" <<'PY'
import socket, sys
port, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"*2\r\n$4\r\nDUMP\r\n$5\r\nkey:0\r\n")
buf = b""
while b"\r\n" not in buf or len(buf) < buf.index(b"\r\n") + 2 + int(buf[1:buf.index(b"\r\n")]) + 2:
    buf += s.recv(65536)
head = buf.index(b"\r\n")
payload = buf[head + 2:head + 2 + int(buf[1:head])]
with open(out, "wb") as f:
    for i in range(n):
        k = b"rk:%d" % i
        f.write(b"*4\r\n$7\r\nRESTORE\r\n$%d\r\n%s\r\n$1\r\n0\r\n$%d\r\n%s\r\n"
                % (len(k), k, len(payload), payload))
PY
stop

range() { printf '%s-%s' "$(printf '%s\n' "$@" | sort -n | head -1)" "$(printf '%s\n' "$@" | sort -n | tail -1)"; }
printf '%-4s %-8s %12s %12s %7s\n' run figure rbkv redis ratio
declare -A R
for i in $(seq "$RUNS"); do
  read -r kb kr kd ks < <(measure rbkv)
  read -r rb rr rd rs < <(measure redis)
  for f in bgsave:"$kb":"$rb" rdb:"$kr":"$rr" dump:"$kd":"$rd" restore:"$ks":"$rs"; do
    IFS=: read -r name a b <<<"$f"
    r=$(ratio "$a" "$b")
    R[$name]+="$r "
    printf '%-4s %-8s %12s %12s %7s\n' "$i" "$name" "$a" "$b" "$r"
  done
done
serve redis "$WORK/primary" --repl-diskless-sync yes --repl-diskless-sync-delay 0
MPORT=$PORT
for i in $(seq "$RUNS"); do
  a=$(sync_time rbkv "$MPORT")
  b=$(sync_time redis "$MPORT")
  r=$(ratio "$a" "$b")
  R[sync]+="$r "
  printf '%-4s %-8s %12s %12s %7s\n' "$i" sync "$a" "$b" "$r"
done
stop
for name in bgsave rdb sync dump restore; do
  # shellcheck disable=SC2086
  printf 'ratio rbkv/redis %-8s %s\n' "$name" "$(range ${R[$name]})"
done
