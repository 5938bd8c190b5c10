#!/usr/bin/env bash
# Runs the Node.js client tests (node-redis and ioredis, pinned by package-lock.json) against one
# rbkv server: installs the pinned packages into tests/clients/node_modules with `npm ci` when they
# are missing or older than the lock file, starts SERVER_BIN on a free loopback port (and on a
# tls-port with certificates made here by openssl: a CA, the server's, a client's, and a CA of
# nobody's with a client of its own, for tls.test.js), runs every *.test.js here with node's own
# test runner, stops the server (which must exit 0). Without openssl tls.test.js skips.
# usage: tests/clients/run.sh SERVER_BIN
# Exits 77 (skip) when node or npm is missing (scripts/deps.sh test installs them) or when the
# packages cannot be installed (no registry reachable), so a machine without them skips rather
# than fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$1

command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not installed (scripts/deps.sh test)"; exit 77; }
. "$here/../integration/npm_ci.sh"
npm_ci_or_skip "$here"

. "$here/../integration/server.sh"
tls_flags=()
if command -v openssl >/dev/null; then
  . "$here/../integration/certs.sh"
  CERTS=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-clients-tls-XXXXXX") || exit 1
  trap 'st=$?; rm -rf "$CERTS"; (exit $st); server_cleanup' EXIT
  certs_basic && certs_ca otherca && certs_make stranger stranger otherca ||
    { echo "openssl could not make the certificates" >&2; exit 1; }
  tls_flags=(--tls-cert-file "$CERTS/server.crt" --tls-key-file "$CERTS/server.key"
             --tls-ca-cert-file "$CERTS/ca.crt")
fi
# The TLS port is picked here, so a clash with another test's server is retried on new ports.
for ((attempt = 0; attempt < START_ATTEMPTS; attempt++)); do
  TLS_PORT=
  [ ${#tls_flags[@]} -gt 0 ] && TLS_PORT=$(free_port)
  server_start "$server_bin" ${TLS_PORT:+--tls-port "$TLS_PORT"} "${tls_flags[@]}" && break
  grep -q "in use" "$SERVER_DIR/server.log" || exit 1
done
[ -n "$SERVER_PID" ] || exit 1

cd "$here" || exit 1
RBKV_PORT=$SERVER_PORT RBKV_TLS_PORT=$TLS_PORT RBKV_TLS_CERTS=${CERTS:-} \
  node --test --test-reporter=spec ./*.test.js
status=$?
server_stop || status=1
exit "$status"
