#!/usr/bin/env bash
# TLS end to end (issue #23), with certificates made at test time by openssl in a temp dir (a CA,
# a server certificate, a second one for the reload, a client certificate, an expired client
# certificate, and a CA with its client and server certificates that our CA did not sign).
# Checked, each against the server's tls-port next to its plaintext port:
#   clients     redis-cli --tls --cacert with a client certificate: SET, GET, a 1 MB value both
#               ways (many records per read and per write), 20000 pipelined commands (--pipe),
#               redis-benchmark --tls -P 16, and rbkv-cli --tls (with our server)
#   refused     tls-auth-clients yes: no client certificate, one from another CA, an expired one;
#               a client that trusts another CA refuses our server; plaintext RESP to the TLS port
#               gets no reply; the server serves on afterwards (and logs each refusal)
#   optional    tls-auth-clients optional: without a certificate served, with a bad one refused
#   protocols   tls-protocols TLSv1.3 refuses a TLSv1.2 handshake (a downgrade) and takes TLSv1.3
#   replication a replica with tls-replication yes follows the primary's tls-port: the full sync
#               (the 1 MB value) and a write streamed after it; its link shows its client-only
#               tls-client-cert-file (its own tls-cert-file is from a CA the primary refuses);
#               CONFIG GET/SET of tls-client-key-file, tls-client-key-file-pass redacted in SLOWLOG
#   close       the server's close after QUIT, CLIENT KILL and the idle timeout sends TLS's
#               close_notify alert (openssl s_client -msg sees it)
#   reload      CONFIG SET tls-cert-file/tls-key-file: new connections get the new certificate at
#               once; a missing file is refused with Redis's error and the old one keeps serving
#   ports       CONFIG SET port and tls-port: the new port listens, the old one closes, a plaintext
#               and a TLS connection made before still answer; a port in use is refused with
#               Redis's error and the old port keeps listening; tls-port 0 closes the TLS listener
#   start       a certificate that does not load, a key that does not match, tls-port without a
#               key, a wrong tls-key-file-pass: no start, with the reason logged; port 0 serves TLS
#               only (with a passphrase-protected key and the right tls-key-file-pass)
# usage: tests/integration/test_tls.sh SERVER_BIN (Debian's redis-server passes it too)
# Exits 77 (skip) without openssl, redis-cli or redis-benchmark.
set -u
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
for tool in openssl redis-cli redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
done
here=$(cd "$(dirname "$0")" && pwd)
. "$here/server.sh"

CERTS=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-tls-XXXXXX") || exit 1
REPLICA_PID=
trap 'st=$?; [ -n "$REPLICA_PID" ] && kill -9 "$REPLICA_PID"; rm -rf "$CERTS"; (exit $st); server_cleanup' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# ---- certificates ----
. "$here/certs.sh"
certs_basic && certs_ca otherca &&
  certs_make server2 reloaded ca && certs_make expired expired ca -1 &&
  certs_make stranger stranger otherca && certs_make otherserver localhost otherca &&
  certs_make replclient replica ca 2 extendedKeyUsage=clientAuth ||
  { echo "openssl could not make the certificates" >&2; exit 1; }

TLS_FLAGS=(--tls-cert-file "$CERTS/server.crt" --tls-key-file "$CERTS/server.key"
           --tls-ca-cert-file "$CERTS/ca.crt")
# start_tls [flags...]: a server with a plaintext port and a TLS port (TLS_PORT), retried on new
# ports when another test took one.
start_tls() {
  local attempt
  for ((attempt = 0; attempt < 5; attempt++)); do
    TLS_PORT=$(free_port)
    server_start "$server_bin" --tls-port "$TLS_PORT" "${TLS_FLAGS[@]}" "$@" && return 0
    grep -q "in use" "$SERVER_DIR/server.log" || return 1
  done
  return 1
}
# stop_tls: server_stop, and its temp dir removed (server.sh's EXIT trap removes only the last).
stop_tls() {
  server_stop || { fail "server did not stop cleanly (log kept in $SERVER_DIR)"; return; }
  rm -rf "$SERVER_DIR"
}
# cli NAME [redis-cli args...]: redis-cli over TLS trusting our CA, with client certificate NAME
# ("" for none).
cli() {
  local who=$1
  shift
  local id=()
  [ -n "$who" ] && id=(--cert "$CERTS/$who.crt" --key "$CERTS/$who.key")
  timeout 20 redis-cli -p "$TLS_PORT" --tls --cacert "$CERTS/ca.crt" "${id[@]}" "$@" 2>&1
}
expect() { # expect WHAT GOT WANTED
  [ "$2" = "$3" ] || fail "$1: got '$2', wanted '$3'"
}
# subject PORT: the CN of the certificate the server shows.
subject() {
  openssl s_client -connect "127.0.0.1:$1" -CAfile "$CERTS/ca.crt" -cert "$CERTS/client.crt" \
    -key "$CERTS/client.key" </dev/null 2>/dev/null | openssl x509 -noout -subject 2>/dev/null
}
# handshake PROTOCOL_FLAG: 0 when openssl s_client completes a handshake with that protocol.
handshake() {
  timeout 20 openssl s_client -connect "127.0.0.1:$TLS_PORT" "$1" -CAfile "$CERTS/ca.crt" \
    -cert "$CERTS/client.crt" -key "$CERTS/client.key" -verify_return_error </dev/null >/dev/null 2>&1
}

# ---- clients ----
start_tls || exit 1
expect "SET over TLS" "$(cli client SET k v)" OK
expect "GET over TLS" "$(cli client GET k)" v
head -c 1048576 /dev/urandom | base64 -w0 >"$CERTS/big"
cli client -x SET big <"$CERTS/big" >/dev/null
expect "1 MB value, its length" "$(cli client STRLEN big)" "$(stat -c %s "$CERTS/big")"
cli client --raw GET big | head -c -1 >"$CERTS/big.back" # --raw adds a newline
cmp -s "$CERTS/big" "$CERTS/big.back" || fail "1 MB value read back over TLS differs"
for i in $(seq 1 20000); do printf 'INCR counter\r\n'; done >"$CERTS/pipe"
out=$(cli client --pipe <"$CERTS/pipe")
echo "$out" | grep -q "errors: 0, replies: 20000" || fail "--pipe over TLS: $out"
expect "pipelined INCRs" "$(cli client GET counter)" 20000
# rbkv-cli --tls, when the server is ours (it sits beside it in the build tree).
rbkv_cli="$(dirname "$server_bin")/../client/rbkv-cli"
if [ -x "$rbkv_cli" ]; then
  ours=(timeout 20 "$rbkv_cli" -p "$TLS_PORT" --tls --cacert "$CERTS/ca.crt")
  expect "rbkv-cli --tls GET" "$("${ours[@]}" --cert "$CERTS/client.crt" --key "$CERTS/client.key" GET k 2>&1)" v
  expect "rbkv-cli --tls count" \
    "$("${ours[@]}" --cert "$CERTS/client.crt" --key "$CERTS/client.key" count - + 2>&1)" 3
  out=$("${ours[@]}" GET k 2>&1)
  [ "$out" = v ] && fail "rbkv-cli --tls without a certificate: served"
  out=$(timeout 20 "$rbkv_cli" -p "$TLS_PORT" --tls --cacert "$CERTS/otherca.crt" \
    --cert "$CERTS/client.crt" --key "$CERTS/client.key" GET k 2>&1)
  echo "$out" | grep -q "could not connect to 127.0.0.1:$TLS_PORT over TLS: " ||
    fail "rbkv-cli --tls trusting another CA: $out"
fi
out=$(timeout 60 redis-benchmark -p "$TLS_PORT" --tls --cacert "$CERTS/ca.crt" \
  --cert "$CERTS/client.crt" --key "$CERTS/client.key" -t set,get -n 20000 -P 16 -c 20 -q 2>&1)
[ "$(echo "$out" | grep -c 'requests per second')" -eq 2 ] || fail "redis-benchmark --tls: $out"

# ---- replication over TLS: the replica's link to the primary's tls-port ----
REPLICA_PID=
# Its own certificate (tls-cert-file) is from a CA the primary does not trust: the link gets in
# only by showing tls-client-cert-file, a client-only certificate from ours (Redis 7.0).
for ((attempt = 0; attempt < 5; attempt++)); do
  replica_port=$(free_port)
  mkdir -p "$CERTS/replica"
  (cd "$CERTS/replica" && exec "$server_bin" --port "$replica_port" --save "" --appendonly no \
    --tls-cert-file "$CERTS/otherserver.crt" --tls-key-file "$CERTS/otherserver.key" \
    --tls-ca-cert-file "$CERTS/ca.crt" --tls-client-cert-file "$CERTS/replclient.crt" \
    --tls-client-key-file "$CERTS/replclient.key" \
    --tls-replication yes --replicaof 127.0.0.1 "$TLS_PORT") >"$CERTS/replica.log" 2>&1 &
  REPLICA_PID=$!
  for ((i = 0; i < READY_SECONDS * 20; i++)); do # server.sh's, scaled by RBKV_TEST_SLOW
    redis-cli -p "$replica_port" INFO replication 2>/dev/null | grep -q "master_link_status:up" && break
    kill -0 "$REPLICA_PID" 2>/dev/null || break
    sleep 0.05
  done
  kill -0 "$REPLICA_PID" 2>/dev/null && break
  wait "$REPLICA_PID"
  REPLICA_PID=
  grep -q "in use" "$CERTS/replica.log" || break
done
redis-cli -p "$replica_port" INFO replication | grep -q "master_link_status:up" ||
  fail "replica over TLS with a client certificate: link not up: $(tail -n 5 "$CERTS/replica.log")"
expect "CONFIG GET tls-client-cert-file" \
  "$(redis-cli -p "$replica_port" CONFIG GET tls-client-cert-file | tail -n 1)" "$CERTS/replclient.crt"
expect "CONFIG SET tls-client-key-file, a missing file" \
  "$(redis-cli -p "$replica_port" CONFIG SET tls-client-key-file "$CERTS/nothing.key")" \
  "ERR CONFIG SET failed (possibly related to argument 'tls-client-key-file') - Unable to update TLS configuration. Check server logs."
expect "tls-client-key-file after the refusal" \
  "$(redis-cli -p "$replica_port" CONFIG GET tls-client-key-file | tail -n 1)" "$CERTS/replclient.key"
# The client key's passphrase is redacted in the slow log, like tls-key-file-pass (ours only:
# Redis 7.0.15 redacts neither).
redis-cli -p "$replica_port" CONFIG SET slowlog-log-slower-than 0 >/dev/null
redis-cli -p "$replica_port" CONFIG SET tls-client-key-file-pass s3cret-pw >/dev/null
out=$(redis-cli -p "$replica_port" SLOWLOG GET 5)
if [ "$(basename "$server_bin")" != redis-server ]; then
  echo "$out" | grep -q "s3cret-pw" && fail "tls-client-key-file-pass shown in the slow log"
  echo "$out" | grep -q "(redacted)" || fail "tls-client-key-file-pass not redacted in the slow log: $out"
fi
redis-cli -p "$replica_port" CONFIG SET slowlog-log-slower-than 10000 tls-client-key-file-pass "" >/dev/null
expect "full sync over TLS, the 1 MB value" "$(redis-cli -p "$replica_port" STRLEN big)" \
  "$(stat -c %s "$CERTS/big")"
cli client SET after-sync 42 >/dev/null
for ((i = 0; i < READY_SECONDS * 10; i++)); do
  [ "$(redis-cli -p "$replica_port" GET after-sync)" = 42 ] && break
  sleep 0.05
done
expect "a write streamed over TLS" "$(redis-cli -p "$replica_port" GET after-sync)" 42
kill -TERM "$REPLICA_PID"
wait "$REPLICA_PID" || fail "the replica did not exit 0"
REPLICA_PID=

# ---- refused ----
out=$(cli "" PING)
echo "$out" | grep -q PONG && fail "no client certificate, tls-auth-clients yes: served ($out)"
out=$(cli stranger PING)
echo "$out" | grep -q PONG && fail "a client certificate from another CA: served ($out)"
out=$(cli expired PING)
echo "$out" | grep -q PONG && fail "an expired client certificate: served ($out)"
out=$(timeout 20 redis-cli -p "$TLS_PORT" --tls --cacert "$CERTS/otherca.crt" \
  --cert "$CERTS/client.crt" --key "$CERTS/client.key" PING 2>&1)
echo "$out" | grep -q PONG && fail "a client trusting another CA accepted our server ($out)"
out=$(timeout 20 redis-cli -p "$TLS_PORT" PING 2>&1)
echo "$out" | grep -q PONG && fail "plaintext to the TLS port: served ($out)"
expect "served after the refusals" "$(cli client PING)" PONG
expect "plaintext port beside it" "$(redis-cli -p "$SERVER_PORT" GET k)" v
grep -q "peer did not return a certificate" "$SERVER_DIR/server.log" ||
  fail "the refusal of a client without a certificate is not logged"
# Redis logs only "certificate verify failed"; we say why.
[ "$(basename "$server_bin")" = redis-server ] || grep -q "certificate has expired" "$SERVER_DIR/server.log" ||
  fail "the refusal of an expired certificate is not logged with its reason"

# wait_in_file FILE REGEX: polls FILE until a line matches, for up to READY_SECONDS.
wait_in_file() {
  local i
  for ((i = 0; i < READY_SECONDS * 20; i++)); do
    grep -q -- "$2" "$1" && return 0
    sleep 0.05
  done
  return 1
}

# ---- close_notify: the server's close of a TLS connection is announced (Redis's connTLSClose) ----
# closed_with_notify WHAT ACTION_AFTER_PING: an openssl s_client that sends PING, then waits while
# ACTION (a shell command) makes the server close it; the alert must arrive after +PONG. Its input
# stays open until its output (polled) shows the +PONG, then the alert, or for 10 s (times
# RBKV_TEST_SLOW) each.
closed_with_notify() {
  local what=$1 action=$2 out f=$CERTS/notify.out
  : >"$f"
  # shellcheck disable=SC2094 # the input side polls the output s_client writes: on purpose
  (printf 'PING\r\n'; wait_in_file "$f" "^+PONG"; eval "$action"
   wait_in_file "$f" "^<<< .*Alert.*close_notify") |
    timeout 20 openssl s_client -connect "127.0.0.1:$TLS_PORT" -CAfile "$CERTS/ca.crt" \
      -cert "$CERTS/client.crt" -key "$CERTS/client.key" -msg >"$f" 2>&1
  out=$(cat "$f")
  echo "$out" | grep -q "^+PONG" || fail "close_notify, $what: no PONG first: $(echo "$out" | tail -n 3)"
  echo "$out" | grep -q "^<<< .*Alert.*close_notify" ||
    fail "close_notify, $what: the server closed without it: $(echo "$out" | tail -n 3)"
}
closed_with_notify "after QUIT" "printf 'quit\r\n'" # s_client takes a line starting with Q as its own quit
closed_with_notify "after CLIENT KILL" \
  "redis-cli -p $SERVER_PORT CLIENT KILL LADDR 127.0.0.1:$TLS_PORT >/dev/null"
expect "CONFIG SET timeout 1" "$(redis-cli -p "$SERVER_PORT" CONFIG SET timeout 1)" OK
closed_with_notify "after the idle timeout" "sleep 2" # the test: past the 1 s timeout
redis-cli -p "$SERVER_PORT" CONFIG SET timeout 0 >/dev/null

# ---- reload ----
expect "certificate at start" "$(subject "$TLS_PORT")" "subject=CN = localhost"
expect "CONFIG SET of the certificate and key" \
  "$(cli client CONFIG SET tls-cert-file "$CERTS/server2.crt" tls-key-file "$CERTS/server2.key")" OK
expect "certificate after CONFIG SET" "$(subject "$TLS_PORT")" "subject=CN = reloaded"
expect "missing certificate file" "$(cli client CONFIG SET tls-cert-file "$CERTS/nothing.crt")" \
  "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs."
expect "the setting after a failed reload" "$(cli client CONFIG GET tls-cert-file | tail -n 1)" \
  "$CERTS/server2.crt"
expect "certificate after a failed reload" "$(subject "$TLS_PORT")" "subject=CN = reloaded"
expect "bad tls-protocols" "$(cli client CONFIG SET tls-protocols TLSv9)" \
  "ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - Unable to update TLS configuration. Check server logs."
stop_tls

# ---- optional client certificates ----
start_tls --tls-auth-clients optional || exit 1
expect "no certificate, tls-auth-clients optional" "$(cli "" PING)" PONG
out=$(cli stranger PING)
echo "$out" | grep -q PONG && fail "a certificate from another CA, tls-auth-clients optional: served"
stop_tls

# ---- protocols: a downgrade to TLSv1.2 is refused ----
start_tls --tls-protocols TLSv1.3 || exit 1
handshake -tls1_2 && fail "tls-protocols TLSv1.3 completed a TLSv1.2 handshake"
handshake -tls1_3 || fail "tls-protocols TLSv1.3 refused a TLSv1.3 handshake"
expect "served after the downgrade attempt" "$(cli client PING)" PONG
stop_tls

# ---- ports: CONFIG SET port and tls-port move the listeners, connections stay ----
start_tls || exit 1
# A plaintext connection and a TLS one (openssl s_client) made before the moves, asked again after.
exec 3<>"/dev/tcp/127.0.0.1/$SERVER_PORT"
coproc TLS_CONN { exec openssl s_client -quiet -connect "127.0.0.1:$TLS_PORT" -CAfile "$CERTS/ca.crt" \
  -cert "$CERTS/client.crt" -key "$CERTS/client.key" 2>/dev/null; }
# still_served WHAT: both connections answer an inline PING.
still_served() {
  local line=
  printf 'PING\r\n' >&3
  read -r -t 10 line <&3
  expect "$1: the plaintext connection made before" "${line%$'\r'}" +PONG
  line=
  printf 'PING\r\n' >&"${TLS_CONN[1]}"
  read -r -t 10 line <&"${TLS_CONN[0]}"
  expect "$1: the TLS connection made before" "${line%$'\r'}" +PONG
}
still_served "before the moves"
old_port=$SERVER_PORT old_tls=$TLS_PORT
expect "CONFIG SET port, the same port" "$(redis-cli -p "$old_port" CONFIG SET port "$old_port")" OK
# A port in use (our own TLS port): Redis's error, and the old port still listens.
expect "CONFIG SET port to a port in use" "$(redis-cli -p "$old_port" CONFIG SET port "$old_tls")" \
  "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs."
expect "the old port after the refusal" "$(redis-cli -p "$old_port" PING)" PONG
expect "CONFIG GET port after the refusal" "$(redis-cli -p "$old_port" CONFIG GET port | tail -n 1)" \
  "$old_port"
# move_to SETTING CMD...: CONFIG SET SETTING (port, tls-port) through CMD to a free port, on a new
# one when another test took it meanwhile (free_port's caveat); sets MOVED_PORT and MOVED_REPLY.
move_to() {
  local setting=$1 attempt
  shift
  for ((attempt = 0; attempt < START_ATTEMPTS; attempt++)); do
    MOVED_PORT=$(free_port)
    MOVED_REPLY=$("$@" CONFIG SET "$setting" "$MOVED_PORT")
    [[ $MOVED_REPLY == *"Unable to listen"* ]] || return 0
  done
}
move_to port redis-cli -p "$old_port"
new_port=$MOVED_PORT
expect "CONFIG SET port" "$MOVED_REPLY" OK
expect "the new port" "$(redis-cli -p "$new_port" PING)" PONG
redis-cli -p "$old_port" PING >/dev/null 2>&1 && fail "the old port still listens after CONFIG SET port"
SERVER_PORT=$new_port
expect "CONFIG SET tls-port to a port in use" "$(cli client CONFIG SET tls-port "$new_port")" \
  "ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to listen on this port. Check server logs."
expect "the old tls-port after the refusal" "$(cli client PING)" PONG
move_to tls-port cli client
new_tls=$MOVED_PORT
expect "CONFIG SET tls-port" "$MOVED_REPLY" OK
TLS_PORT=$new_tls
expect "the new tls-port" "$(cli client PING)" PONG
TLS_PORT=$old_tls
[ "$(cli client PING)" = PONG ] && fail "the old tls-port still listens after CONFIG SET tls-port"
still_served "after the moves"
expect "CONFIG SET tls-port 0" "$(redis-cli -p "$new_port" CONFIG SET tls-port 0)" OK
TLS_PORT=$new_tls
[ "$(cli client PING)" = PONG ] && fail "tls-port 0 still listens"
still_served "after tls-port 0"
exec 3>&-
kill "$TLS_CONN_PID" 2>/dev/null
stop_tls

# ---- start ----
# refused_start WHAT LOG_TEXT flags...: the server must exit non-zero, saying LOG_TEXT.
refused_start() {
  local what=$1 text=$2 log="$CERTS/refused.log" rc
  shift 2
  timeout 20 "$server_bin" --port 0 --tls-port "$(free_port)" --save "" "$@" >"$log" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "$what: the server started (status $rc)"
  grep -q -- "$text" "$log" || fail "$what: no '$text' in its log: $(tail -n 3 "$log")"
}
printf 'not a certificate\n' >"$CERTS/garbage.crt"
refused_start "a certificate that does not load" "Failed to load certificate" \
  --tls-cert-file "$CERTS/garbage.crt" --tls-key-file "$CERTS/server.key" --tls-auth-clients no
refused_start "a key that does not match" "key values mismatch" \
  --tls-cert-file "$CERTS/server.crt" --tls-key-file "$CERTS/client.key" --tls-auth-clients no
refused_start "no key" "No tls-key-file configured!" --tls-cert-file "$CERTS/server.crt"
openssl rsa -aes256 -in "$CERTS/server.key" -out "$CERTS/locked.key" -passout pass:s3cret 2>/dev/null
refused_start "a key with the wrong passphrase" "Failed to load private key" \
  --tls-cert-file "$CERTS/server.crt" --tls-key-file "$CERTS/locked.key" \
  --tls-key-file-pass wrong --tls-auth-clients no

# port 0: TLS only (server_start's readiness check needs the plaintext port, so by hand, with
# its retry: another test may take the free port before this server binds it).
for ((attempt = 0; attempt < START_ATTEMPTS; attempt++)); do
  port=$(free_port)
  # Its key is the passphrase-protected copy: tls-key-file-pass opens it.
  (cd "$CERTS" && exec "$server_bin" --port 0 --tls-port "$port" --save "" "${TLS_FLAGS[@]}" \
    --tls-key-file "$CERTS/locked.key" --tls-key-file-pass s3cret) \
    >"$CERTS/tlsonly.log" 2>&1 &
  SERVER_PID=$!
  TLS_PORT=$port
  for ((i = 0; i < READY_SECONDS * 10; i++)); do
    [ "$(cli client PING)" = PONG ] && break 2
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$SERVER_PID" 2>/dev/null && break # up but not answering: the checks below tell
  wait "$SERVER_PID" 2>/dev/null
  grep -q "in use" "$CERTS/tlsonly.log" || { cat "$CERTS/tlsonly.log" >&2; break; }
done
expect "port 0, TLS only" "$(cli client PING)" PONG
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" || fail "the TLS-only server did not exit 0"
SERVER_PID=

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "PASS"
