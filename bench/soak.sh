#!/usr/bin/env bash
# Soak test: mixed traffic with random disconnects against one rbkv-server for N minutes, checked
# against a model while it runs and key by key at the end (bench/soak.c says how).
#   bench/soak.sh [MINUTES] [--seconds S] [--aof] [--asan] [--workers N] [--readers N] [--seed N]
#                 [--server BIN --soak BIN]
# Builds rbkv-server and soak into $SOAK_BUILD (default build-soak/, RelWithDebInfo; --asan: with
# AddressSanitizer and UBSan, into build-soak-asan/) unless --server and --soak name binaries,
# starts the server on a free loopback port (tests/integration/server.sh, so RBKV_SERVER_WRAPPER
# works here too), runs the soak for MINUTES (default 1), then stops the server, which must exit 0.
# --aof: the server logs every write (appendfsync everysec); after the run it is stopped and
# started again on its files, and the keyspace it loads must equal the model too.
# Exit status: 0 when everything matched, 1 on a mismatch or a bad server exit, 77 without redis-cli.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
minutes=1 seconds="" aof=0 asan=0 server="" soak="" extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --aof) aof=1; shift ;;
    --asan) asan=1; shift ;;
    --workers) extra+=(-w "$2"); shift 2 ;;
    --readers) extra+=(-r "$2"); shift 2 ;;
    --seed) extra+=(-S "$2"); shift 2 ;;
    --server) server=$2; shift 2 ;;
    --soak) soak=$2; shift 2 ;;
    [0-9]*) minutes=$1; shift ;;
    *) echo "usage: $0 [MINUTES] [--seconds S] [--aof] [--asan] [--workers N] [--readers N]" \
            "[--seed N] [--server BIN --soak BIN]" >&2; exit 2 ;;
  esac
done
[ -n "$seconds" ] || seconds=$((minutes * 60))
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found (scripts/deps.sh test)" >&2; exit 77; }

if [ -z "$server" ] || [ -z "$soak" ]; then
  "$ROOT/scripts/deps.sh" build test
  if [ $asan = 1 ]; then
    build=${SOAK_BUILD:-$ROOT/build-soak-asan}
    cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DRBKV_SANITIZE=ON >/dev/null || exit 1
  else
    build=${SOAK_BUILD:-$ROOT/build-soak}
    cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
  fi
  cmake --build "$build" -j "$(nproc)" --target rbkv-server soak >/dev/null || exit 1
  server=$build/server/rbkv-server
  soak=$build/bench/soak
fi

# shellcheck source=../tests/integration/server.sh
. "$ROOT/tests/integration/server.sh"
flags=()
[ $aof = 1 ] && flags=(--appendonly yes --appendfsync everysec)
server_start "$server" "${flags[@]}" || exit 1
echo "soak: server $server on port $SERVER_PORT (dir $SERVER_DIR), $seconds s"
status=0
"$soak" -p "$SERVER_PORT" -s "$seconds" --dump "$SERVER_DIR/expected.txt" "${extra[@]}" || status=1
server_stop || status=1

if [ $aof = 1 ] && [ -f "$SERVER_DIR/expected.txt" ]; then
  first_dir=$SERVER_DIR
  if server_start "$server" "${flags[@]}" --dir "$first_dir"; then
    "$soak" -p "$SERVER_PORT" --verify "$first_dir/expected.txt" || status=1
    server_stop || status=1
  else
    status=1
  fi
  if [ $status = 0 ]; then rm -rf "$first_dir"; else echo "first server's dir kept: $first_dir" >&2; fi
fi
echo "soak: $([ $status = 0 ] && echo OK || echo FAILED)"
exit $status
