#!/usr/bin/env bash
# Checks COMMAND's replies with redis-cli against an rbkv already running on 127.0.0.1:PORT.
# usage: tests/integration/command_docs.sh PORT
# Exits 0 when every check passes, 1 when one fails (each failure is printed), 2 on bad usage,
# 77 when redis-cli is missing (for CTest's SKIP_RETURN_CODE).
#
# redis-cli's own reading of COMMAND DOCS matters most: at interactive start it builds its hints
# from that reply and asserts on its shape, so these checks use redis-cli rather than raw RESP.
set -u

if [ $# -ne 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 PORT" >&2
  exit 2
fi
port=$1
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found" >&2; exit 77; }

failures=0
cli() { redis-cli -h 127.0.0.1 -p "$port" "$@" 2>&1; }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# expect WHAT EXPECTED ACTUAL: exact comparison (command substitution drops trailing newlines).
expect() { [ "$2" = "$3" ] || fail "$1: expected [$2], got [$3]"; }
# expect_line WHAT LINE TEXT: TEXT has LINE as one whole line.
expect_line() { grep -qxF -- "$2" <<<"$3" || fail "$1: no line [$2] in [$3]"; }
# expect_word WHAT WORD TEXT: TEXT has WORD as a whole word (redis-cli prints a RESP3 map's key
# and value on one line).
expect_word() { grep -qwF -- "$2" <<<"$3" || fail "$1: no word [$2] in [$3]"; }

pong=$(cli PING)
[ "$pong" = PONG ] || { echo "FAIL: no server on port $port: $pong" >&2; exit 1; }

count=$(cli COMMAND COUNT)
if ! [[ $count =~ ^[1-9][0-9]*$ ]]; then
  fail "COMMAND COUNT: expected a positive integer, got [$count]"
fi
expect_line "COMMAND LIST" get "$(cli COMMAND LIST)"

info=$(cli COMMAND INFO get)
expect "COMMAND INFO get name" get "$(sed -n 1p <<<"$info")"
expect "COMMAND INFO get arity" 2 "$(sed -n 2p <<<"$info")"
expect_line "COMMAND INFO get flags" readonly "$info"
expect_line "COMMAND INFO get ACL categories" @read "$info"

for proto in 2 3; do
  docs=$(cli -"$proto" COMMAND DOCS set)
  expect_word "RESP$proto COMMAND DOCS set" arguments "$docs"
  expect_word "RESP$proto COMMAND DOCS set" NX "$docs"
  expect_word "RESP$proto COMMAND DOCS set" pure-token "$docs"
done
expect "COMMAND DOCS of an unknown name" "" "$(cli COMMAND DOCS no-such-command)"

expect "COMMAND GETKEYS mset" $'a\nb' "$(cli COMMAND GETKEYS mset a 1 b 2)"
expect "COMMAND GETKEYS get" k "$(cli COMMAND GETKEYS GET k)"
expect "COMMAND GETKEYS unknown command" "ERR Invalid command specified" \
  "$(cli COMMAND GETKEYS no-such-command a)"
expect "COMMAND GETKEYS keyless command" "ERR The command has no key arguments" \
  "$(cli COMMAND GETKEYS ping x)"
expect "COMMAND GETKEYS wrong count" "ERR Invalid number of arguments specified for command" \
  "$(cli COMMAND GETKEYS get a b)"

expect_line "COMMAND LIST FILTERBY PATTERN" get "$(cli COMMAND LIST FILTERBY PATTERN 'G?T')"
expect "COMMAND LIST FILTERBY MODULE" "" "$(cli COMMAND LIST FILTERBY MODULE any)"
expect "COMMAND LIST bad filter" "ERR syntax error" "$(cli COMMAND LIST FILTERBY NOPE x)"

expect "unknown subcommand" "ERR unknown subcommand 'nope'. Try COMMAND HELP." "$(cli COMMAND nope)"
expect "subcommand arity" "ERR wrong number of arguments for 'command|count' command" \
  "$(cli COMMAND COUNT extra)"

if [ "$failures" -ne 0 ]; then
  echo "$failures COMMAND check(s) failed" >&2
  exit 1
fi
echo "command_docs: all checks passed"
