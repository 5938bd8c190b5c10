# shellcheck shell=bash
# Shared by the framework runners (bullmq/run.sh, sidekiq/run.sh, celery/run.sh): starts the
# server given on a free loopback port (tests/integration/server.sh), runs one framework test
# against it, stops the server, which must exit 0. Sourced, not run:
#   . tests/frameworks/framework.sh
#   framework_run SERVER_BIN COMMAND [ARGS...]   # exits with COMMAND's status, or 1 when the server fails
# COMMAND runs with RBKV_PORT set to the server's port, and is killed after FRAMEWORK_SECONDS (a
# framework whose commands are missing tends to retry forever rather than exit). When
# $RBKV_FRAMEWORK_MONITOR names a file, every command the server receives is recorded there
# (redis-cli MONITOR), which is how docs/clients.md's lists of the commands each framework sends
# were made (tests/frameworks/commands_used.sh).

FRAMEWORK_SECONDS=$((120 * ${RBKV_TEST_SLOW:-1}))
framework_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$framework_here/../integration/server.sh"

framework_run() {
  local server_bin=$1 status monitor_pid=
  shift
  command -v "$server_bin" >/dev/null ||
    { echo "SKIP: $server_bin not found (scripts/deps.sh test installs redis-server)"; exit 77; }
  command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not installed (scripts/deps.sh test)"; exit 77; }
  server_start "$server_bin" || exit 1
  if [ -n "${RBKV_FRAMEWORK_MONITOR:-}" ]; then
    redis-cli -p "$SERVER_PORT" MONITOR >"$RBKV_FRAMEWORK_MONITOR" &
    monitor_pid=$!
    # MONITOR must be in place (redis-cli prints its OK) before the first command of the test.
    until grep -q . "$RBKV_FRAMEWORK_MONITOR" 2>/dev/null; do
      kill -0 "$monitor_pid" 2>/dev/null || { echo "FAIL: redis-cli MONITOR exited" >&2; exit 1; }
      redis-cli -p "$SERVER_PORT" PING >/dev/null
      sleep 0.05
    done
  fi
  RBKV_PORT=$SERVER_PORT timeout -k 5 "$FRAMEWORK_SECONDS" "$@"
  status=$?
  [ "$status" -eq 124 ] && echo "FAIL: $1 still running after $FRAMEWORK_SECONDS s; killed" >&2
  if [ -n "$monitor_pid" ]; then
    kill "$monitor_pid"
    wait "$monitor_pid" 2>/dev/null
  fi
  server_stop || status=1
  exit "$status"
}
