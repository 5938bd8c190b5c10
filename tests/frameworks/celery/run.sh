#!/usr/bin/env bash
# Celery against one server: starts SERVER_BIN on a free loopback port and runs celery_test.py
# (unittest; it starts its own worker) with Debian's python3-celery and python3-redis. Always
# /usr/bin/python3: Debian's packages are installed for it, not for another python3 on the PATH.
# usage: tests/frameworks/celery/run.sh SERVER_BIN
# Exits 77 (skip) when those packages are missing (scripts/deps.sh test installs them).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
python=/usr/bin/python3

"$python" -c 'import celery, redis' 2>/dev/null ||
  { echo "SKIP: python3-celery or python3-redis not installed (scripts/deps.sh test)"; exit 77; }

server_bin=$1
# A relative path to the server must not be looked up from here/, where the test runs.
case $server_bin in */*) server_bin=$(cd "$(dirname "$server_bin")" && pwd)/$(basename "$server_bin") ;; esac

. "$here/../framework.sh"
cd "$here" || exit 1
framework_run "$server_bin" "$python" celery_test.py
