#!/usr/bin/env bash
# Runs command_docs.sh (which needs a server already running) against a fresh server.
# usage: tests/integration/command_docs_server.sh SERVER_BIN
# Exits with command_docs.sh's status (77 = skip), or 1 when the server fails to start or stop.
set -u

if [ $# -ne 1 ]; then
  echo "usage: $0 SERVER_BIN" >&2
  exit 2
fi
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found" >&2; exit 77; }
here=$(dirname "$0")
. "$here/server.sh"

server_start "$1" || exit 1
bash "$here/command_docs.sh" "$SERVER_PORT"
rc=$?
server_stop || rc=1
exit "$rc"
