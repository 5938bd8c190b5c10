#!/usr/bin/env bash
# Lists every command a framework test sends, and which of them rbkv lacks: runs the framework's
# runner against redis-server with MONITOR recording (framework.sh's RBKV_FRAMEWORK_MONITOR),
# counts the commands by name (with the subcommand for container commands such as CLIENT or
# SCRIPT), separately for those sent by clients and those run by Lua scripts ("[0 lua]" in
# MONITOR), then asks RBKV_BIN's COMMAND LIST which of the names it knows.
# usage: tests/frameworks/commands_used.sh RUNNER RBKV_BIN    e.g. bullmq/run.sh build/server/rbkv-server
# Prints "count origin command [MISSING]" lines; exits with the runner's status (77: skipped).
set -u
[ $# -eq 2 ] || { echo "usage: $0 RUNNER RBKV_BIN" >&2; exit 2; }
runner=$1 rbkv_bin=$2
here=$(cd "$(dirname "$0")" && pwd)
monitor=$(mktemp "${TMPDIR:-/tmp}/rbkv-monitor-XXXXXX") || exit 1
known=$(mktemp "${TMPDIR:-/tmp}/rbkv-known-XXXXXX") || exit 1

RBKV_FRAMEWORK_MONITOR=$monitor "$runner" "$(command -v redis-server)" >/dev/null 2>&1
status=$?
if [ "$status" -ne 0 ]; then
  echo "$runner failed against redis-server (status $status); the list below is partial" >&2
fi

(
  . "$here/../integration/server.sh"
  server_start "$rbkv_bin" || exit 1
  redis-cli -p "$SERVER_PORT" COMMAND LIST | tr '[:upper:]' '[:lower:]' >"$known"
  server_stop
) || { rm -f "$monitor" "$known"; exit 1; }

# A MONITOR line: 1733390000.123456 [0 127.0.0.1:5555] "cmd" "arg" ...; the origin is "lua" or
# a client address. The PING loop framework.sh uses to wait for MONITOR is not the framework's.
awk -v known="$known" '
  BEGIN {
    while ((getline name < known) > 0) have[name] = 1
    split("client config command object script function memory xinfo xgroup acl cluster debug", c, " ")
    for (i in c) container[c[i]] = 1
  }
  match($0, /\] "[^"]*"/) {
    origin = ($3 == "lua]") ? "lua" : "client"
    name = tolower(substr($0, RSTART + 3, RLENGTH - 4))
    full = name
    if (name in container && match($0, /\] "[^"]*" "[^"]*"/)) {
      rest = substr($0, RSTART, RLENGTH)
      sub(/^\] "[^"]*" "/, "", rest); sub(/"$/, "", rest)
      full = name "|" tolower(rest)
    }
    count[origin " " full]++
    missing[origin " " full] = (name in have) ? "" : " MISSING"
  }
  END { for (k in count) printf "%6d %s%s\n", count[k], k, missing[k] }
' "$monitor" | grep -v ' client ping$' | sort -k2,2 -k3,3
rm -f "$monitor" "$known"
exit "$status"
