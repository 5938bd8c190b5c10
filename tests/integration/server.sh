# Shell counterpart of harness.c for the script tests: start a server on a free loopback port in a
# temp dir, stop it with SIGTERM and check it exits 0. Sourced, not run:
#   . tests/integration/server.sh
#   server_start SERVER_BIN [flags...]   # sets SERVER_PORT, SERVER_PID, SERVER_DIR; 0 or 1
#   server_stop                          # 0 when the server exited 0 within STOP_SECONDS
# An EXIT trap kills a server still running and removes its temp dir (kept, with server.log,
# when the script fails). Passing Debian's redis-server as SERVER_BIN works too: it then gets
# --save "" --appendonly no, which is how transcripts' expected outputs are made. Both get
# --enable-debug-command local unless the flags name it.
# As in harness.c, $RBKV_SERVER_WRAPPER (words split at spaces) is a command the server runs under,
# e.g. valgrind, whose errors then fail server_stop; $RBKV_TEST_SLOW multiplies the waits.

START_ATTEMPTS=5
READY_SECONDS=$((10 * ${RBKV_TEST_SLOW:-1}))
STOP_SECONDS=$((10 * ${RBKV_TEST_SLOW:-1}))
SERVER_PID=
SERVER_PORT=
SERVER_DIR=

server_cleanup() {
  local rc=$?
  if [ -n "$SERVER_PID" ]; then
    kill -9 "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  if [ -n "$SERVER_DIR" ]; then
    if [ "$rc" -eq 0 ]; then
      rm -rf "$SERVER_DIR"
    else
      echo "server log kept in $SERVER_DIR" >&2
    fi
  fi
  return "$rc"
}
trap server_cleanup EXIT

# free_port; another test may still take its port before our bind: server_start retries.
# shellcheck source-path=SCRIPTDIR source=ports.sh
. "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

server_start() {
  local bin=$1 attempt waited reply
  shift
  # The server runs in its temp dir: a relative path must not be looked up from there.
  case $bin in
    */*) bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" ;;
  esac
  local extra=() wrapper=()
  read -r -a wrapper <<<"${RBKV_SERVER_WRAPPER:-}"
  [ "$(basename "$bin")" = redis-server ] && extra=(--save "" --appendonly no)
  # DEBUG is refused by default (as Redis 7.0); the tests use it as harness.c lets them: local,
  # unless the test names the setting itself.
  [[ " $* " == *" --enable-debug-command "* ]] || extra+=(--enable-debug-command local)
  SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-it-XXXXXX") || return 1
  for ((attempt = 0; attempt < START_ATTEMPTS; attempt++)); do
    SERVER_PORT=$(free_port)
    (cd "$SERVER_DIR" && exec "${wrapper[@]}" "$bin" --port "$SERVER_PORT" "${extra[@]}" "$@") \
      >"$SERVER_DIR/server.log" 2>&1 &
    SERVER_PID=$!
    for ((waited = 0; waited < READY_SECONDS * 20; waited++)); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      reply=$(redis-cli -p "$SERVER_PORT" INFO server 2>/dev/null | tr -d '\r')
      # Our server is the one answering when it gives our pid: another test's server that took
      # the port first answers too, while ours, still starting, has yet to fail its bind. A
      # server that wants AUTH first gives no pid: then it is ours if still alive after it.
      case $reply in
        *"process_id:$SERVER_PID"$'\n'* | *"process_id:$SERVER_PID") return 0 ;;
        *process_id:*) ;;
        ?*) kill -0 "$SERVER_PID" 2>/dev/null && return 0 ;;
      esac
      sleep 0.05
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "server never answered PING on port $SERVER_PORT" >&2
      return 1
    fi
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=
    grep -q "in use" "$SERVER_DIR/server.log" || break
  done
  echo "server $bin did not start:" >&2
  tail -n 20 "$SERVER_DIR/server.log" >&2
  return 1
}

server_stop() {
  local waited status
  [ -n "$SERVER_PID" ] || return 1
  kill -TERM "$SERVER_PID"
  for ((waited = 0; waited < STOP_SECONDS * 20; waited++)); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "FAIL: server still running $STOP_SECONDS s after SIGTERM; killing it" >&2
    return 1 # the EXIT trap kills it
  fi
  wait "$SERVER_PID"
  status=$?
  local vglog="$SERVER_DIR/valgrind.$SERVER_PID.log"
  SERVER_PID=
  if [ "$status" -ne 0 ]; then
    echo "FAIL: server exited with status $status after SIGTERM" >&2
    tail -n 20 "$SERVER_DIR/server.log" >&2
    [ -f "$vglog" ] && head -c 8000 "$vglog" >&2
    return 1
  fi
  # A wrapper's valgrind --log-file=valgrind.%p.log: leaks do not change the exit status (see
  # harness.c), so the summary is read here.
  if [ -f "$vglog" ] && grep -Eq '(definitely|indirectly|possibly) lost: [1-9]' "$vglog"; then
    echo "FAIL: valgrind reports lost memory in the server ($vglog):" >&2
    head -c 8000 "$vglog" >&2
    return 1
  fi
  return 0
}
