#!/usr/bin/env bash
# Runs a script test against redis-server instead of rbkv-server, to prove the test right (ctest's
# *_on_redis twins of the script tests, tests/CMakeLists.txt's rbkv_script_on_redis):
#   tests/integration/on_redis.sh SCRIPT [ARG...]   runs SCRIPT /path/to/redis-server ARG...
# Without redis-server on PATH: exit 77 (skipped), or 1 where the reference is required (CI=true or
# RBKV_REQUIRE_REFERENCE set and not 0), as the C tests' harness does.
set -u
[ $# -ge 1 ] || { echo "usage: $0 SCRIPT [ARG...]" >&2; exit 2; }
script=$1
shift
if ! redis=$(command -v redis-server); then
  if [ "${CI:-}" = true ] || { [ -n "${RBKV_REQUIRE_REFERENCE:-}" ] && [ "$RBKV_REQUIRE_REFERENCE" != 0 ]; }; then
    echo "FAIL: no redis-server on PATH to run $script against, required here" \
      "(CI=true or RBKV_REQUIRE_REFERENCE=1): scripts/deps.sh test installs it" >&2
    exit 1
  fi
  echo "SKIP: no redis-server on PATH to run $script against"
  exit 77
fi
exec "$script" "$redis" "$@"
