#!/usr/bin/env bash
# Debian's redis-cli (7.0) against rbkv in the modes an operator uses, beyond one command a call:
#   --pipe      bulk loading of PIPE_KEYS keys; redis-cli ends the stream with an ECHO of random
#               bytes and must see it back before it reports the replies it counted
#   --scan      with --pattern: the matching keys, each once, in ascending order
#   --stat      for 2 s: the header and a keys count read from INFO
#   --latency   for 2 s: min, max, avg and the number of samples
#   -3          RESP3: HELLO's map and ZRANGE WITHSCORES's [member, (double) score] pairs
#   hints       interactive mode, in tmux: typing KRANGE shows rbkv's own argument hints, which
#               redis-cli builds from COMMAND DOCS
# usage: tests/integration/redis_cli.sh SERVER_BIN
# Exits 77 when redis-cli is missing; the hints check alone is skipped, saying so, without tmux
# (scripts/deps.sh test installs both).
set -u
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not installed (scripts/deps.sh test)"; exit 77; }
here=$(dirname "$0")
. "$here/server.sh"

PIPE_KEYS=${PIPE_KEYS:-1000000}
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect WHAT EXPECTED ACTUAL
expect() {
  [ "$2" = "$3" ] || fail "$1: expected [$2], got [$3]"
}

server_start "$1" || exit 1
cli() { redis-cli -p "$SERVER_PORT" "$@"; }

# --pipe: SET key:%07d v%d as RESP, generated on the fly.
echo "== --pipe $PIPE_KEYS keys"
start=$(date +%s.%N)
out=$(awk -v n="$PIPE_KEYS" 'BEGIN {
  for (i = 0; i < n; i++) {
    k = sprintf("key:%07d", i); v = "v" i
    printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v
  }
}' | cli --pipe 2>&1)
echo "$out" | sed 's/^/   /'
echo "   $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }')"
grep -q 'Last reply received from server' <<<"$out" || fail "--pipe never saw its closing ECHO come back"
expect "--pipe summary" "errors: 0, replies: $PIPE_KEYS" "$(grep -o 'errors: .*' <<<"$out")"
expect "DBSIZE after --pipe" "$PIPE_KEYS" "$(cli DBSIZE)"
expect "GET of the last key loaded" "v$((PIPE_KEYS - 1))" "$(cli GET "$(printf 'key:%07d' $((PIPE_KEYS - 1)))")"

# --scan: key:000012* is key:0000120 .. key:0000129, ascending; a pattern matching nothing
# prints nothing; the whole keyspace comes back in order, each key once.
echo "== --scan --pattern"
expect "--scan --pattern key:000012*" "$(printf 'key:000012%d\n' 0 1 2 3 4 5 6 7 8 9)" \
  "$(cli --scan --pattern 'key:000012*')"
expect "--scan --pattern nomatch:*" "" "$(cli --scan --pattern 'nomatch:*')"
cli SET 'key:0000005x' extra >/dev/null
expect "--scan --pattern key:000000[5]*" "$(printf 'key:0000005\nkey:0000005x')" \
  "$(cli --scan --pattern 'key:000000[5]*')"
cli DEL 'key:0000005x' >/dev/null
all=$(cli --scan) # redis-cli 7.0 has no --count: COUNT 10 a call, 100,000 calls for 1M keys
expect "--scan of every key: count" "$PIPE_KEYS" "$(wc -l <<<"$all")"
LC_ALL=C sort -c <<<"$all" 2>/dev/null || fail "--scan of every key: not in ascending order"
expect "--scan of every key: duplicates" "0" "$(LC_ALL=C uniq -d <<<"$all" | wc -l)"

# --stat: stdout is a pipe, so line buffering keeps what redis-cli printed before timeout stops it.
echo "== --stat"
out=$(timeout 2 stdbuf -oL redis-cli -p "$SERVER_PORT" --stat -i 0.5)
echo "$out" | head -3 | sed 's/^/   /'
grep -q '^keys  *mem  *clients  *blocked  *requests  *connections' <<<"$out" ||
  fail "--stat printed no keys/mem/clients header"
expect "--stat keys column" "$PIPE_KEYS" "$(awk '$1 ~ /^[0-9]+$/ { print $1; exit }' <<<"$out")"

# --latency: on SIGTERM redis-cli prints its summary; raw (not a tty) it is "min max avg samples".
echo "== --latency"
out=$(timeout 2 redis-cli -p "$SERVER_PORT" --latency)
echo "   $out"
if [[ "$out" =~ ^([0-9]+)\ ([0-9]+)\ ([0-9.]+)\ ([0-9]+)$ ]]; then
  [ "${BASH_REMATCH[4]}" -gt 0 ] || fail "--latency took no samples"
  [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] || fail "--latency min > max: $out"
else
  fail "--latency printed no 'min max avg samples' line: [$out]"
fi

# -3: RESP3 replies shown with their types (--no-raw: stdout is not a tty).
echo "== -3 (RESP3)"
cli ZADD z 1 a 2.5 b >/dev/null
expect "-3 ZRANGE WITHSCORES" '1) 1) "a"
   2) (double) 1
2) 1) "b"
   2) (double) 2.5' "$(cli -3 --no-raw ZRANGE z 0 -1 WITHSCORES)"
out=$(cli -3 --no-raw HELLO 3)
grep -q '^1# "server" => ' <<<"$out" || fail "-3 HELLO 3 is not shown as a map: [$out]"
grep -q '"proto" => (integer) 3' <<<"$out" || fail "-3 HELLO 3: no proto 3 in [$out]"
expect "-3 KRANGE WITHVALUES" '1) 1) "key:0000000"
   2) "v0"' "$(cli -3 --no-raw KRANGE 0 0 WITHVALUES)"

# Hints: redis-cli draws the argument hint after the cursor as the command is typed.
echo "== interactive hints"
if ! command -v tmux >/dev/null; then
  echo "SKIP (hints only): tmux not installed (scripts/deps.sh test)"
else
  sock="rbkv-cli-$$"
  tmux -L "$sock" new-session -d -x 200 -y 10 "redis-cli -p $SERVER_PORT"
  # wait_for TEXT: polls the pane for up to 5 s (times RBKV_TEST_SLOW, as server.sh's
  # READY_SECONDS); prints the prompt line it found.
  wait_for() {
    local i line
    for ((i = 0; i < READY_SECONDS * 5; i++)); do
      line=$(tmux -L "$sock" capture-pane -p | grep -F -- "$1" | head -n 1)
      [ -n "$line" ] && { echo "$line"; return 0; }
      sleep 0.1
    done
    return 1
  }
  wait_for "127.0.0.1:$SERVER_PORT>" >/dev/null || fail "interactive redis-cli showed no prompt"
  tmux -L "$sock" send-keys 'KRANGE '
  line=$(wait_for 'KRANGE start stop [BYLEX]') ||
    fail "no hint after 'KRANGE ': $(tmux -L "$sock" capture-pane -p | head -n 1)"
  echo "   $line"
  tmux -L "$sock" send-keys '0 '
  wait_for 'KRANGE 0 stop [BYLEX]' >/dev/null ||
    fail "hint did not advance after 'KRANGE 0 ': $(tmux -L "$sock" capture-pane -p | head -n 1)"
  tmux -L "$sock" send-keys C-u 'KPREFIX '
  wait_for 'KPREFIX prefix [REV]' >/dev/null ||
    fail "no hint after 'KPREFIX ': $(tmux -L "$sock" capture-pane -p | head -n 1)"
  tmux -L "$sock" send-keys C-u 'KCOUNT PREFIX user: ' Enter
  wait_for '(integer) 0' >/dev/null || fail "KCOUNT typed interactively did not answer (integer) 0"
  tmux -L "$sock" kill-server
fi

server_stop || failures=$((failures + 1))
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all redis-cli checks passed"
