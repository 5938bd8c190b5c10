#!/usr/bin/env bash
# End-to-end tests of rbkv-cli against a real server (one per test, on a free port).
# usage: tests/integration/test_cli.sh SERVER_BIN CLI_BIN TEST
#   TEST: paging | binary | exit_codes | plain | formats | load_million | zsets | maps | lists |
#   streams | convert (maps needs the hash and set commands: HSET, SADD, HSCAN, SSCAN, HGETALL,
#   SMEMBERS; lists RPUSH and LRANGE; streams XADD, XRANGE, XSETID; convert redis-cli --rdb)
# Exits 0 when every check passes, 1 otherwise, 77 (skip) without redis-cli (server.sh needs it to
# see the server answer). Failures name the check; the server's temp dir is kept for its log.
set -u

if [ $# -ne 3 ]; then
  echo "usage: $0 SERVER_BIN CLI_BIN TEST" >&2
  exit 2
fi
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found" >&2; exit 77; }
SERVER=$1
CLI=$2
. "$(dirname "$0")/server.sh"
export LC_ALL=C # byte order, as the server sorts keys
unset RBKV_PASSWORD
failed=0

fail() {
  echo "FAIL: $*" >&2
  failed=1
}

# rbkv-cli's --timeout bounds each reply's wait (10 s by default); server.sh's READY_SECONDS is
# scaled by RBKV_TEST_SLOW, so a load under valgrind is not cut off mid-way.
cli() {
  "$CLI" -p "$SERVER_PORT" --timeout "$READY_SECONDS" "$@"
}

# expect_rc WANT CMD...: runs CMD, checks its exit status, keeps its stderr in $SERVER_DIR/err.
expect_rc() {
  local want=$1 rc
  shift
  "$@" >"$SERVER_DIR/out" 2>"$SERVER_DIR/err"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "exit $rc, not $want: $* ($(head -c 300 "$SERVER_DIR/err"))"
}

# 100,000 keys listed with pages of 1,000, while another connection keeps inserting and deleting
# keys between them: every key that stays is listed exactly once, and the listing is in order.
test_paging() {
  local n=100000 i churn_pid
  awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "s:%06d\tv%d\n", i, i }' >"$SERVER_DIR/keys"
  cli load "$SERVER_DIR/keys" || fail "load of $n keys"
  cut -f1 "$SERVER_DIR/keys" >"$SERVER_DIR/want"
  # Churn keys sort right after stable ones ("s:000123:x"), so they land inside every page.
  awk -v n=$n 'BEGIN {
    for (i = 0; i < n; i += 7) {
      k = sprintf("s:%06d:x", i)
      printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\n1\r\n", length(k), k
      k = sprintf("s:%06d:x", (i + n / 2) % n)
      printf "*2\r\n$3\r\nDEL\r\n$%d\r\n%s\r\n", length(k), k
    }
  }' >"$SERVER_DIR/churn.resp"
  (
    while [ ! -e "$SERVER_DIR/stop" ]; do
      cli load --batch 10 "$SERVER_DIR/churn.resp" || exit 1
      touch "$SERVER_DIR/churned"
    done
  ) &
  churn_pid=$!
  for ((i = 0; i < READY_SECONDS * 20; i++)); do # server.sh's, scaled by RBKV_TEST_SLOW
    [ -e "$SERVER_DIR/churned" ] && break
    sleep 0.05
  done
  [ -e "$SERVER_DIR/churned" ] || fail "churn never ran"
  for dir in fwd rev; do
    local flag=
    [ $dir = rev ] && flag=--rev
    cli range "[s:" "(s;" --page 1000 $flag >"$SERVER_DIR/got.$dir" || fail "range $dir"
    [ $dir = rev ] && tac "$SERVER_DIR/got.$dir" >"$SERVER_DIR/got.tmp" &&
      mv "$SERVER_DIR/got.tmp" "$SERVER_DIR/got.$dir"
    sort -c -u "$SERVER_DIR/got.$dir" || fail "range $dir: not strictly in order"
    grep -v ':x$' "$SERVER_DIR/got.$dir" | cmp -s - "$SERVER_DIR/want" ||
      fail "range $dir: stable keys missing or repeated"
    # Churn always leaves about half its keys present, so a listing without one missed them.
    grep -q ':x$' "$SERVER_DIR/got.$dir" || fail "range $dir: saw no churn key"
  done
  touch "$SERVER_DIR/stop"
  wait "$churn_pid" || fail "churn load failed"
  # Pages of 1 key and a limit that ends mid-page.
  [ "$(cli range "[s:000010" + --page 1 --limit 5 | grep -v ':x$' | head -n 3 | tr '\n' ' ')" = \
    "s:000010 s:000011 s:000012 " ] || fail "range --page 1"
  [ "$(cli range - + --page 3 --limit 7 | wc -l)" -eq 7 ] || fail "range --limit 7"
  [ "$(cli count "[s:" "(s;")" -ge $n ] || fail "count"
  [ "$(cli prefix s:00001 --page 2 | grep -vc ':x$')" -eq 10 ] || fail "prefix s:00001"
}

# Keys and values with NUL, TAB, CR, newline, backslash and 0xff survive dump | load, in tsv and
# RESP; the RESP dump of RESP input in key order is that input, byte for byte.
test_binary() {
  local resp="$SERVER_DIR/bin.resp"
  # printf's %b would stop at \0 in a variable, so the RESP is written by printf directly.
  {
    printf '*3\r\n$3\r\nSET\r\n$3\r\n\000a\t\r\n$4\r\nv\n\r\\\r\n'
    printf '*3\r\n$3\r\nSET\r\n$1\r\n"\r\n$0\r\n\r\n'
    printf '*3\r\n$3\r\nSET\r\n$4\r\na\\\n\377\r\n$2\r\n\000\000\r\n'
    printf '*3\r\n$3\r\nSET\r\n$2\r\n\377\377\r\n$3\r\n\177\001b\r\n'
  } >"$resp"
  cli load "$resp" || fail "load of RESP"
  [ "$(cli dbsize)" = 4 ] || fail "dbsize after RESP load: $(cli dbsize)"
  cli dump --format resp >"$SERVER_DIR/dump.resp" || fail "dump --format resp"
  cmp "$resp" "$SERVER_DIR/dump.resp" || fail "RESP dump differs from its input"
  cli dump >"$SERVER_DIR/dump.tsv" || fail "dump"
  printf '%s\t%s\n' '\x00a\t' 'v\n\r\\' '"' '' 'a\\\n\xff' '\x00\x00' '\xff\xff' '\x7f\x01b' |
    cmp - "$SERVER_DIR/dump.tsv" || fail "tsv dump is not the documented escaping"
  cli flushall >/dev/null
  cli load "$SERVER_DIR/dump.tsv" || fail "load of tsv dump"
  cli dump --format resp | cmp -s - "$resp" || fail "tsv round trip changed the data"
  cli flushall >/dev/null
  cli dump --format resp | cli load - || fail "empty dump | load"
  cli load "$resp" >/dev/null
  cli dump --format resp >"$SERVER_DIR/dump.resp"
  cli flushall >/dev/null
  cat "$SERVER_DIR/dump.resp" | cli load - || fail "dump | load"
  cli dump --format resp | cmp -s - "$resp" || fail "RESP round trip through a pipe"
  # A prefix ending in 0xff has "+" as its upper bound: KRANGE's (... would cut it short.
  [ "$(cli prefix $'\xff' --format tsv)" = '\xff\xff' ] || fail "prefix 0xff"
  # Non-string keys are left out of a dump, and said so.
  cli zadd z 1 m >/dev/null
  [ "$(cli dump | wc -l)" -eq 4 ] || fail "dump with a zset"
  cli dump 2>&1 >/dev/null | grep -q "skipped 1 key" || fail "dump did not report the zset"
}

test_exit_codes() {
  # No arguments at all: the usage alone on stderr, exit 2; flags without a command name the error.
  expect_rc 2 "$CLI"
  head -n 1 "$SERVER_DIR/err" | grep -q "^Usage: rbkv-cli" || fail "bare rbkv-cli: no usage first"
  [ -s "$SERVER_DIR/out" ] && fail "bare rbkv-cli wrote to stdout"
  expect_rc 2 "$CLI" --bogus PING
  expect_rc 2 "$CLI" -p notaport PING
  expect_rc 2 "$CLI" -p "$SERVER_PORT"
  grep -q "^rbkv-cli: no command" "$SERVER_DIR/err" || fail "flags without a command"
  expect_rc 2 "$CLI" -p "$(free_port)" PING
  grep -q "could not connect" "$SERVER_DIR/err" || fail "connection refused message"
  expect_rc 2 "$CLI" -s "$SERVER_DIR/no.sock" PING
  expect_rc 0 cli set s notanumber
  expect_rc 1 cli incr s
  grep -q "^(error) ERR" "$SERVER_DIR/err" || fail "error reply not on stderr"
  [ -s "$SERVER_DIR/out" ] && fail "error reply on stdout"
  expect_rc 2 cli range a b
  expect_rc 2 cli range - + --format xml
  expect_rc 2 cli range - + --page 0
  expect_rc 2 cli range -
  expect_rc 2 cli count -
  expect_rc 2 cli prefix p --nope
  expect_rc 2 cli load "$SERVER_DIR/missing"
  expect_rc 2 cli dump --format json
  printf 'a\t1\nno tab here\nb\t2\n' >"$SERVER_DIR/bad.tsv"
  expect_rc 2 cli load "$SERVER_DIR/bad.tsv"
  grep -q "bad.tsv:2: no TAB" "$SERVER_DIR/err" || fail "bad line not reported with its number"
  grep -q "bad.tsv: stopped at line 2: 1 command sent before it, none after it" "$SERVER_DIR/err" ||
    fail "load did not say where it stopped: $(cat "$SERVER_DIR/err")"
  grep -q "skipped" "$SERVER_DIR/err" && fail "load stopped but said it skipped"
  [ "$(cli exists b)" = 0 ] || fail "load went on after a bad line"
  printf 'a\t1\nbad\\q\t1\nb\t2\nno tab\n' >"$SERVER_DIR/bad.tsv"
  expect_rc 0 cli load --skip-bad "$SERVER_DIR/bad.tsv"
  grep -q "bad.tsv:2: bad escape" "$SERVER_DIR/err" || fail "skipped line not reported"
  grep -q "bad.tsv: 2 bad lines skipped" "$SERVER_DIR/err" || fail "skipped lines not counted"
  grep -q "stopped" "$SERVER_DIR/err" && fail "--skip-bad load said it stopped"
  [ "$(cli get b)" = 2 ] || fail "--skip-bad did not go on"
  printf '*2\r\n$4\r\nINCR\r\n$1\r\ns\r\n' >"$SERVER_DIR/err.resp"
  expect_rc 1 cli load "$SERVER_DIR/err.resp"
  grep -q "err.resp: command 1: (error)" "$SERVER_DIR/err" || fail "load error reply not named"
  printf '*2\r\n$4\r\nINCR\r\n$9\r\nshort' >"$SERVER_DIR/cut.resp"
  expect_rc 2 cli load "$SERVER_DIR/cut.resp"
  grep -q "cut.resp: command 1 (byte offset 0): cut short" "$SERVER_DIR/err" || fail "cut short"
  # Malformed RESP stops the load, --skip-bad or not, naming the command and where it starts; the
  # offset is exact past the client's 64 KB read chunks (10,000 PINGs of 14 bytes come first).
  awk 'BEGIN { for (i = 0; i < 10000; i++) printf "*1\r\n$4\r\nPING\r\n"; printf "xyz\r\n" }' \
    >"$SERVER_DIR/bad.resp"
  expect_rc 2 cli load --skip-bad "$SERVER_DIR/bad.resp"
  grep -q "bad.resp: command 10001 (byte offset 140000): malformed RESP: \"x\" where" \
    "$SERVER_DIR/err" || fail "malformed RESP not placed: $(cat "$SERVER_DIR/err")"
  grep -q "stopped at command 10001 (byte offset 140000): 10000 commands sent before it" \
    "$SERVER_DIR/err" || fail "malformed RESP: no stop line"
  grep -q "reply" "$SERVER_DIR/err" && fail "malformed input reported as a reply"
  server_stop || fail "server_stop"

  # AUTH: a wrong password is the server's error (1), the right one from -a or RBKV_PASSWORD works.
  # The server's cwd is its temp dir, so a relative socket path lands there.
  server_start "$SERVER" --requirepass sekrit --unixsocket rbkv.sock || exit 1
  expect_rc 1 cli -a wrong PING
  expect_rc 1 cli PING
  [ "$(cli --pass sekrit PING)" = PONG ] || fail "--pass"
  [ "$(RBKV_PASSWORD=sekrit cli PING)" = PONG ] || fail "RBKV_PASSWORD"
  [ "$(RBKV_PASSWORD=sekrit "$CLI" -s "$SERVER_DIR/rbkv.sock" PING)" = PONG ] || fail "-s socket"
  export RBKV_PASSWORD=sekrit
  cli -n 1 set only-in-1 x >/dev/null
  [ "$(cli -n 1 exists only-in-1)$(cli exists only-in-1)" = 10 ] || fail "-n db"
  expect_rc 1 cli -n 9999 PING
  expect_rc 2 cli --timeout 0 PING
  unset RBKV_PASSWORD
}

# Plain mode prints what redis-cli prints when stdout is not a terminal.
test_plain() {
  local args
  cli set a 1 >/dev/null
  cli set b "two words" >/dev/null
  for k in k1 k2 k3; do cli set $k v$k >/dev/null; done
  while IFS= read -r args; do
    eval "set -- $args"
    # Both tools see the same state, INCR included.
    cli set a 1 >/dev/null
    redis-cli -p "$SERVER_PORT" "$@" >"$SERVER_DIR/want" 2>&1
    cli set a 1 >/dev/null
    cli "$@" >"$SERVER_DIR/got" 2>&1
    cmp -s "$SERVER_DIR/want" "$SERVER_DIR/got" || fail "plain '$args': $(od -c "$SERVER_DIR/got")"
  done <<'LIST'
GET a
GET nothing
MGET a nothing b
INCR a
SET c 1
KRANGE 0 -1
KRANGE [k + BYLEX WITHVALUES
KRANGE - [a BYLEX REV
KCOUNT - +
KRANGE 5 1
LIST
}

# Each format's exact text for a known set of keys, the json checked against a literal.
test_formats() {
  {
    printf '*3\r\n$3\r\nSET\r\n$2\r\na"\r\n$2\r\n\\\001\r\n'
    printf '*3\r\n$3\r\nSET\r\n$2\r\nb\377\r\n$1\r\n\n\r\n'
  } | cli load - || fail "load"
  cli zadd c 1 m >/dev/null
  cli range - + --format json --values >"$SERVER_DIR/got"
  printf '%s\n' '[' '{"key":"a\"","value":"\\\u0001"},' '{"key":"b\u00ff","value":"\u000a"},' \
    '{"key":"c","value":null}' ']' | cmp - "$SERVER_DIR/got" || fail "json --values"
  [ "$(cli range "(c" + --format json)" = '[]' ] || fail "empty json"
  [ "$(cli range - + --format json --rev --limit 2 | tr -d '\n')" = '["c","b\u00ff"]' ] ||
    fail "json --rev --limit"
  [ "$(cli range - + --format tsv --values | sed -n 3p)" = c ] || fail "tsv nil value"
  [ "$(cli range "[c" + --format resp --values | od -An -c | tr -s ' ')" = \
    ' $ 1 \r \n c \r \n $ - 1 \r \n' ] || fail "resp --values"
}

# A million keys in one load: the figure goes to the test's output (bench/README.md quotes it).
# The digest of the whole dataset (DEBUG DIGEST), through redis-cli.
digest() {
  redis-cli -p "$SERVER_PORT" debug digest
}

# dump --format resp | load of sorted sets: ZADD in pages of 256, scores as the server prints them
# (inf, -inf, 17 digits), binary members; tsv still skips them and says so.
test_zsets() {
  local before
  cli set s v >/dev/null
  cli zadd z 1 a -inf b 2.5 c inf d 0.1 $'bin\x01\xff\r\n' >/dev/null
  awk 'BEGIN { for (i = 0; i < 700; i++) printf "ZADD big %d m%d\n", i % 7, i }' |
    redis-cli -p "$SERVER_PORT" >/dev/null
  before=$(digest)
  cli dump --format resp >"$SERVER_DIR/dump.resp" || fail "dump --format resp"
  [ "$(grep -c '^ZADD' "$SERVER_DIR/dump.resp")" -eq 4 ] || fail "700 + 5 members: 4 ZADD commands"
  cli flushall >/dev/null
  cli load "$SERVER_DIR/dump.resp" || fail "load"
  [ "$(digest)" = "$before" ] || fail "sorted sets changed by dump | load"
  [ "$(cli zcard big)" = 700 ] || fail "zcard big"
  cli dump 2>&1 >/dev/null | grep -q "skipped 2 keys" || fail "tsv dump did not skip the zsets"
}

# dump --format resp | load of hashes and sets of both encodings, binary and empty fields, values
# and members; the digest (DEBUG DIGEST) is the same after. Needs the hash and set commands.
test_maps() {
  local before
  cli hset h f v "" empty e "" $'b\x01\xff' $'\r\n' >/dev/null || fail "hset"
  cli sadd s m "" $'\x01\xff' >/dev/null || fail "sadd"
  cli sadd ints 1 2 -3 >/dev/null
  awk 'BEGIN { for (i = 0; i < 1000; i++) printf "HSET bigh f%d v%d\nSADD bigs m%d\n", i, i, i }' |
    redis-cli -p "$SERVER_PORT" >/dev/null
  cli zadd z 1 a >/dev/null
  before=$(digest)
  cli dump --format resp >"$SERVER_DIR/dump.resp" || fail "dump --format resp"
  grep -q '^HSET' "$SERVER_DIR/dump.resp" || fail "no HSET in the dump"
  grep -q '^SADD' "$SERVER_DIR/dump.resp" || fail "no SADD in the dump"
  cli flushall >/dev/null
  cat "$SERVER_DIR/dump.resp" | cli load - || fail "dump | load"
  [ "$(digest)" = "$before" ] || fail "hashes and sets changed by dump | load"
  [ "$(cli hlen bigh)" = 1000 ] || fail "hlen bigh"
  [ "$(cli scard bigs)" = 1000 ] || fail "scard bigs"
  [ "$(cli object encoding bigh)" = rbtree ] || fail "bigh encoding"
  [ "$(cli object encoding ints)" = intset ] || fail "ints encoding"
  cli dump 2>&1 >/dev/null | grep -q "skipped 6 keys" || fail "tsv dump did not skip the maps"
}

# dump --format resp | load of lists: RPUSH in pages of 256 head to tail, binary, empty, repeated
# and integer elements; the digest (DEBUG DIGEST, order-sensitive for lists) is the same after.
test_lists() {
  local before
  cli rpush l a "" a $'b\x01\xff' $'\r\n' 12 -7 007 >/dev/null || fail "rpush"
  cli lpush one only >/dev/null
  awk 'BEGIN { for (i = 0; i < 600; i++) printf "RPUSH big %d\nLPUSH big x%d\n", i, i }' |
    redis-cli -p "$SERVER_PORT" >/dev/null
  before=$(digest)
  cli dump --format resp >"$SERVER_DIR/dump.resp" || fail "dump --format resp"
  [ "$(grep -c '^RPUSH' "$SERVER_DIR/dump.resp")" -eq 7 ] || fail "1200 + 8 + 1 elements: 7 RPUSH commands"
  cli flushall >/dev/null
  cat "$SERVER_DIR/dump.resp" | cli load - || fail "dump | load"
  [ "$(digest)" = "$before" ] || fail "lists changed by dump | load"
  [ "$(cli llen big)" = 1200 ] || fail "llen big"
  [ "$(cli lindex big 0)" = x599 ] || fail "lindex big 0"
  [ "$(cli lindex big -1)" = 599 ] || fail "lindex big -1"
  cli dump 2>&1 >/dev/null | grep -q "skipped 3 keys" || fail "tsv dump did not skip the lists"
}

# dump --format resp | load of streams: XADD per entry (600 entries: three XRANGE pages), XSETID
# for the counters (an empty stream too); the digest and XINFO are the same after.
test_streams() {
  local before info_s info_e
  awk 'BEGIN { for (i = 1; i <= 600; i++) printf "XADD big %d-1 f %d g v\n", i, i }' |
    redis-cli -p "$SERVER_PORT" >/dev/null
  cli xadd s 5-5 $'b\x01\xff' $'\r\n' >/dev/null || fail "xadd"
  cli xadd e 1-1 a b >/dev/null
  cli xdel e 1-1 >/dev/null
  cli xdel big 600-1 >/dev/null
  before=$(digest)
  info_s=$(cli xinfo stream big)
  info_e=$(cli xinfo stream e)
  cli dump --format resp >"$SERVER_DIR/dump.resp" || fail "dump --format resp"
  [ "$(grep -c '^XSETID' "$SERVER_DIR/dump.resp")" -eq 3 ] || fail "an XSETID a stream"
  cli flushall >/dev/null
  cli load "$SERVER_DIR/dump.resp" || fail "load"
  [ "$(digest)" = "$before" ] || fail "streams changed by dump | load"
  [ "$(cli xinfo stream big)" = "$info_s" ] || fail "XINFO of big changed"
  [ "$(cli xinfo stream e)" = "$info_e" ] || fail "XINFO of the empty stream changed"
  [ "$(cli xlen big)" = 599 ] || fail "xlen big"
}

test_load_million() {
  local n=1000000 start end
  awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "key:%07d\tvalue-%d\n", i, i }' \
    >"$SERVER_DIR/million.tsv"
  start=$(date +%s.%N)
  cli load "$SERVER_DIR/million.tsv" || fail "load"
  end=$(date +%s.%N)
  [ "$(cli dbsize)" = $n ] || fail "dbsize $(cli dbsize) after loading $n keys"
  awk -v s="$start" -v e="$end" -v n=$n \
    'BEGIN { printf "loaded %d keys in %.2f s (%.0f keys/s)\n", n, e - s, n / (e - s) }'
  start=$(date +%s.%N)
  [ "$(cli dump | wc -l)" = $n ] || fail "dump"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v n=$n 'BEGIN { printf "dumped %d keys in %.2f s\n", n, e - s }'
}

# convert: the server's keys as an RDB file (redis-cli --rdb), converted to an rbkv snapshot and
# back by rbkv-cli convert (rbkv-server --convert-rdb underneath), with a progress line per 65536
# keys on stderr that ends at every key and 100%; the wrong arity and a missing server are usage
# errors.
test_convert() {
  local n=70000 d=$SERVER_DIR
  awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "k:%06d\t%d\n", i, i - 300 }' >"$d/keys"
  cli load "$d/keys" || fail "load"
  redis-cli -p "$SERVER_PORT" --rdb "$d/in.rdb" >/dev/null 2>&1 || fail "redis-cli --rdb"
  RBKV_SERVER=$SERVER "$CLI" convert "$d/in.rdb" "$d/out.rbkv" >"$d/out" 2>"$d/err" ||
    fail "convert in.rdb out.rbkv: $(head -c 300 "$d/err")"
  grep -q "^Read $n keys .*(Redis RDB)" "$d/out" || fail "convert's summary: $(cat "$d/out")"
  grep -q "^Reading: 65536 keys, [0-9]*%$" "$d/err" || fail "no reading progress: $(head -c 300 "$d/err")"
  grep -q "^Reading: $n keys, 100%$" "$d/err" || fail "reading does not end at 100%"
  grep -q "^Writing: $n keys, 100%$" "$d/err" || fail "writing does not end at 100%"
  RBKV_SERVER=$SERVER "$CLI" convert "$d/out.rbkv" "$d/back.rdb" >"$d/out" 2>"$d/err" ||
    fail "convert out.rbkv back.rdb: $(head -c 300 "$d/err")"
  grep -q "^Read $n keys .*(rbkv snapshot)" "$d/out" || fail "convert back: $(cat "$d/out")"
  [ "$(head -c 9 "$d/back.rdb")" = REDIS0010 ] || fail "back.rdb is no RDB version 10 file"
  # Integers are written as Redis writes them: the file is no bigger than the one redis-cli got.
  [ "$(stat -c %s "$d/back.rdb")" -le "$(stat -c %s "$d/in.rdb")" ] || fail "back.rdb grew"
  expect_rc 2 "$CLI" convert "$d/in.rdb"
  RBKV_SERVER=$d/no-such-server expect_rc 2 "$CLI" convert "$d/in.rdb" "$d/x"
}

case $3 in
paging | binary | exit_codes | plain | formats | load_million | zsets | maps | lists | streams | \
  convert) ;;
*)
  echo "unknown test '$3'" >&2
  exit 2
  ;;
esac
server_start "$SERVER" || exit 1
"test_$3"
if [ -n "$SERVER_PID" ]; then
  server_stop || fail "server_stop"
fi
[ "$failed" -eq 0 ] && echo "PASS: cli $3"
exit "$failed"
