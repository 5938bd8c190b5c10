#!/usr/bin/env bash
# test_install.sh BUILD_DIR - `make install`'s rules (CMakeLists.txt) put a working rbkv-server
# and rbkv-cli into PREFIX/bin, and DESTDIR goes in front of PREFIX, as packagers use it.
set -uo pipefail
build=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-install-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # WHAT COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
check "rbkv-server installed and runs" \
  sh -c "'$tmp/prefix/bin/rbkv-server' --version | grep -q '^rbkv-server v='"
check "rbkv-cli installed, prints its usage with no arguments" \
  sh -c "'$tmp/prefix/bin/rbkv-cli' 2>&1 | grep -q '^Usage: rbkv-cli'"
DESTDIR=$tmp/dest cmake --install "$build" --prefix /opt/rbkv >/dev/null ||
  { echo "FAIL: cmake --install with DESTDIR"; exit 1; }
check "DESTDIR goes in front of PREFIX" test -x "$tmp/dest/opt/rbkv/bin/rbkv-server" -a \
  -x "$tmp/dest/opt/rbkv/bin/rbkv-cli"
exit $fail
