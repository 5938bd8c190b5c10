#!/usr/bin/env bash
# Replays redis-cli transcripts against a fresh server and diffs the output with what Redis 7
# printed for the same lines.
# usage: tests/integration/transcript.sh [--update] SERVER_BIN TRANSCRIPT_DIR
# For each NAME.txt in TRANSCRIPT_DIR (one command per line, as typed at redis-cli; blank lines
# and lines starting with # are skipped), every command runs as `redis-cli -p PORT` in non-tty
# mode, one connection per command, and the output is "> command" followed by what redis-cli
# printed. That must equal NAME.expected. --update writes NAME.expected instead: run it with
# Debian's redis-server as SERVER_BIN, so the expected output is Redis's, not ours.
# Exits 0 when every transcript matches, 1 otherwise, 77 (skip) without redis-cli.
set -u

update=0
if [ "${1:-}" = --update ]; then
  update=1
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 [--update] SERVER_BIN TRANSCRIPT_DIR" >&2
  exit 2
fi
server_bin=$1
dir=$2
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found" >&2; exit 77; }
. "$(dirname "$0")/server.sh"

server_start "$server_bin" || exit 1
failed=0
for transcript in "$dir"/*.txt; do
  name=$(basename "$transcript" .txt)
  actual="$SERVER_DIR/$name.actual"
  # A transcript starts from an empty server, whatever the one before it left.
  redis-cli -p "$SERVER_PORT" FLUSHALL >/dev/null
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in '' | '#'*) continue ;; esac
    printf '> %s\n' "$line"
    printf '%s\n' "$line" | redis-cli -p "$SERVER_PORT" 2>&1
  done <"$transcript" >"$actual"
  if [ "$update" -eq 1 ]; then
    cp "$actual" "$dir/$name.expected"
    echo "wrote $dir/$name.expected"
  elif diff -u "$dir/$name.expected" "$actual"; then
    echo "transcript $name: $(grep -c '^> ' "$actual") commands match"
  else
    echo "FAIL: transcript $name differs from $name.expected (- expected, + actual)" >&2
    failed=1
  fi
done
server_stop || failed=1
exit "$failed"
