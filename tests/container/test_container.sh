#!/usr/bin/env bash
# The container test (issue #9), `make test-container`, CTest label `container`: builds the image from
# the Dockerfile and checks, through the published port and redis-cli on the host:
#   - the image: non-root user, WORKDIR and VOLUME /data, EXPOSE 6379, a HEALTHCHECK, no build tools;
#   - persistence: keys and a sorted set written with `--appendonly yes` on a named volume (some before
#     a BGSAVE + BGREWRITEAOF, some after), found again, with the same ordered ranges (KRANGE, ZRANGE),
#     by a new container on the same volume;
#   - PID 1: the server is PID 1, its BGSAVE/BGREWRITEAOF children and the orphans a `docker exec`
#     leaves behind leave no zombie, and `stop` (SIGTERM) ends it within 10 s with exit status 0;
#   - the HEALTHCHECK reports healthy, with no password and with one;
#   - passwords (--requirepass, RBKV_PASSWORD) and a mounted config file given as the first argument;
#   - --init: no zombie either, still a clean stop;
#   - compose.yaml: its two services run as compose would run them (podman, no compose tool here), the
#     query's output, and the copy of the file in docs/operations.md; its rbkv-tls service (TLS only,
#     the documented ACL users through RBKV_TLS_* and RBKV_ACLFILE): users, plaintext refused, healthy;
#   - compose.ha.yaml: its primary and a replica, the replica syncing by service name;
#   - compose.cluster.yaml: its six nodes and its one-shot cluster-create service (its image built from
#     docker/cluster-init): the cluster made (3 primaries, 3 replicas, cluster_state:ok on every
#     node) and a key written and read through redis-cli -c from another node.
# Every check prints what it expected and what it got, then the containers' logs, and exits 1.
#
# usage: tests/container/test_container.sh [REPO_DIR]
# env:   RBKV_CONTAINER_ENV  the script that provides ctr_setup and ctr (podman); default
#                            REPO_DIR/../shared/container-env.sh. Its absence fails the test: a test
#                            that cannot build the image has not shown that the image works.
#        RBKV_IMAGE          the tag to build (default localhost/rbkv:test)
set -euo pipefail

REPO=$(realpath "${1:-$(dirname "$0")/../..}")
ENV_SCRIPT=${RBKV_CONTAINER_ENV:-$REPO/../shared/container-env.sh}
IMAGE=${RBKV_IMAGE:-localhost/rbkv:test}
TAG=rbkv-test-$$
VOLUME=$TAG-data
TMP=$(mktemp -d)
CONTAINERS=()
STOP_LIMIT=10   # seconds `ctr stop` waits before SIGKILL; a clean stop must finish well within it

if [ ! -r "$ENV_SCRIPT" ]; then
  echo "FAIL: $ENV_SCRIPT not found: it provides podman (ctr) and the debian:bookworm-slim base image." >&2
  echo "      Set RBKV_CONTAINER_ENV to its path." >&2
  exit 1
fi
command -v redis-cli >/dev/null || { echo "FAIL: redis-cli missing (scripts/deps.sh test installs it)" >&2; exit 1; }
# shellcheck source=/dev/null
. "$ENV_SCRIPT"
ctr_setup

cleanup() {
  for c in "${CONTAINERS[@]}"; do ctr rm -f -v -t 0 "$c" >/dev/null 2>&1 || true; done
  ctr volume rm -f "$VOLUME" "$VOLUME-compose" >/dev/null 2>&1 || true
  ctr network rm -f "$TAG-net" >/dev/null 2>&1 || true
  rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for c in "${CONTAINERS[@]}"; do
    echo "----- logs of $c (state: $(ctr inspect -f '{{.State.Status}} exit={{.State.ExitCode}}' "$c" 2>&1))"
    ctr logs "$c" 2>&1 | grep -v 'systemd connection' | tail -40
  done
  exit 1
}
# expect WHAT EXPECTED ACTUAL
expect() {
  [ "$2" = "$3" ] || fail "$1: expected [$2], got [$3]"
  echo "ok - $1"
}

# start NAME ARGS...: run the image detached with the port published on a free loopback port.
start() {
  local name=$1; shift
  CONTAINERS+=("$name")
  ctr run -d --name "$name" -p 127.0.0.1::6379 "$@" >/dev/null 2>"$TMP/run.err" ||
    { cat "$TMP/run.err"; fail "ctr run $name $*"; }
}
# port NAME: the host port published for 6379.
port() { ctr port "$1" 6379/tcp | sed 's/.*://'; }
# wait_ready NAME [redis-cli flags]: until PING answers PONG (or the container has exited).
wait_ready() {
  local name=$1; shift
  local p; p=$(port "$name")
  for _ in $(seq 100); do
    [ "$(redis-cli -p "$p" "$@" ping 2>/dev/null)" = PONG ] && return 0
    [ "$(ctr inspect -f '{{.State.Running}}' "$name")" = true ] || fail "$name exited before answering PING"
    sleep 0.1
  done
  fail "$name: no PONG on 127.0.0.1:$p within 10 s"
}
# logs_have NAME TEXT: the container's log has a line containing TEXT. (Not `ctr logs | grep -q`:
# under pipefail, grep leaving early can fail the pipeline with SIGPIPE.)
logs_have() { local l; l=$(ctr logs "$1" 2>&1); grep -qF -- "$2" <<<"$l"; }
# stop_clean NAME: SIGTERM via `ctr stop`; must exit 0, in time, and log a clean shutdown.
stop_clean() {
  local name=$1 t0 t1
  t0=$(date +%s%N)
  ctr stop -t "$STOP_LIMIT" "$name" >/dev/null 2>&1 || fail "ctr stop $name"
  t1=$(date +%s%N)
  local ms=$(((t1 - t0) / 1000000))
  [ "$ms" -lt $((STOP_LIMIT * 1000)) ] || fail "$name took ${ms} ms to stop (SIGTERM ignored? it was killed at ${STOP_LIMIT} s)"
  expect "$name exit status after SIGTERM (stopped in ${ms} ms)" 0 "$(ctr inspect -f '{{.State.ExitCode}}' "$name")"
  logs_have "$name" 'Received SIGTERM' || fail "$name: no 'Received SIGTERM' in its log"
}
# healthy NAME: run the image's HEALTHCHECK now (podman's timers need systemd, absent here) and read
# the status it recorded.
healthy() {
  local name=$1 out
  out=$(ctr healthcheck run "$name" 2>&1) || fail "$name: healthcheck run failed: $out"
  expect "$name HEALTHCHECK status" healthy "$(ctr inspect -f '{{.State.Health.Status}}' "$name")"
}
# zombies NAME: processes in the container in state Z (none is expected).
zombies() {
  ctr exec "$1" sh -c 'for s in /proc/[0-9]*/status; do grep -qs "^State:[[:space:]]*Z" "$s" && echo "$s"; done; true'
}

# ---------------------------------------------------------------------------------------- the image
echo "# building $IMAGE from $REPO/Dockerfile"
t0=$(date +%s)
ctr build --pull=never --format docker -t "$IMAGE" "$REPO" >"$TMP/build.log" 2>&1 ||
  { tail -60 "$TMP/build.log"; fail "image build"; }
grep -E 'tests passed|Total Test time' "$TMP/build.log" | sed 's/^/  build stage: /' ||
  echo "  build stage: cached (no source changed since the last build, so its unit tests did not run again)"
echo "# built in $(($(date +%s) - t0)) s; $(ctr image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$IMAGE")"

expect "image user" rbkv "$(ctr image inspect -f '{{.Config.User}}' "$IMAGE")"
expect "image working directory" /data "$(ctr image inspect -f '{{.Config.WorkingDir}}' "$IMAGE")"
expect "image volumes" "map[/data:{}]" "$(ctr image inspect -f '{{.Config.Volumes}}' "$IMAGE")"
expect "image exposed ports" "map[6379/tcp:{}]" "$(ctr image inspect -f '{{.Config.ExposedPorts}}' "$IMAGE")"
expect "image healthcheck" "[CMD rbkv-healthcheck]" "$(ctr image inspect -f '{{.Config.Healthcheck.Test}}' "$IMAGE")"
# Nothing of the build stage in the runtime image: no compiler, no -dev package.
extra=$(ctr run --rm --entrypoint sh "$IMAGE" -c \
  'command -v gcc cc cmake make; dpkg-query -W -f "\${Package}\n" | grep -E -- "-dev$|^(gcc|cmake|make)$"; true' 2>/dev/null)
expect "no build tools or -dev packages in the runtime image" "" "$extra"

# ------------------------------------------------ first container: write through the published port
ctr volume create "$VOLUME" >/dev/null
A=$TAG-a
start "$A" -v "$VOLUME:/data" "$IMAGE" --appendonly yes
wait_ready "$A"
PA=$(port "$A")
expect "uid of the server" 999 "$(ctr exec "$A" id -u)"
expect "PID 1 is the server (exec'd by the entrypoint)" rbkv-server "$(ctr exec "$A" cat /proc/1/comm)"
# The title set-proc-title writes over the command line, as Redis's: "{title} {listen-addr}", then NULs
# to the end of the old command line (the kernel gives them all, so every trailing blank goes).
expect "the server's command line" "rbkv-server 0.0.0.0:6379" \
  "$(ctr exec "$A" sh -c 'tr "\0" " " </proc/1/cmdline' | sed 's/ *$//')"

# 200 keys: half before the background save and log rewrite, half after (only in the log's tail).
for i in $(seq 0 99); do printf 'SET user:%03d value-%03d\n' "$i" "$i"; done | redis-cli -p "$PA" >"$TMP/set1.out"
expect "first 100 SETs" 100 "$(grep -c '^OK$' "$TMP/set1.out")"
expect "ZADD" 4 "$(redis-cli -p "$PA" zadd board 30 carol 10 alice 20 bob 40 dave)"

expect "BGSAVE" "Background saving started" "$(redis-cli -p "$PA" bgsave)"
expect "BGREWRITEAOF" "Background append only file rewriting started" "$(redis-cli -p "$PA" bgrewriteaof)"
for _ in $(seq 100); do
  info=$(redis-cli -p "$PA" info persistence | tr -d '\r')
  grep -q '^rdb_bgsave_in_progress:0' <<<"$info" && grep -q '^aof_rewrite_in_progress:0' <<<"$info" && break
  sleep 0.1
done
grep -q '^rdb_last_bgsave_status:ok' <<<"$info" || fail "BGSAVE did not finish well: $info"
grep -q '^aof_rewrite_in_progress:0' <<<"$info" || fail "BGREWRITEAOF still running after 10 s: $info"
# The cron (hz 10) reaps a child that has just exited: polled, for 2 s at most.
for _ in $(seq 20); do [ -z "$(zombies "$A")" ] && break; sleep 0.1; done
expect "zombie processes after BGSAVE and BGREWRITEAOF" "" "$(zombies "$A")"
expect "files on the volume, owned by rbkv" "rbkv appendonly.aof
rbkv dump.rbkv" "$(ctr exec "$A" sh -c 'cd /data && for f in *; do echo "$(stat -c %U "$f") $f"; done')"

for i in $(seq 100 199); do printf 'SET user:%03d value-%03d\n' "$i" "$i"; done | redis-cli -p "$PA" >"$TMP/set2.out"
expect "next 100 SETs" 100 "$(grep -c '^OK$' "$TMP/set2.out")"
expect "ZADD after the rewrite" 1 "$(redis-cli -p "$PA" zadd board 25 erin)"
redis-cli -p "$PA" set "user:150" changed >/dev/null

# The state to find again, and the ordered queries over it.
snapshot() {
  local p=$1
  echo "dbsize $(redis-cli -p "$p" dbsize)"
  redis-cli -p "$p" krange 0 -1 WITHVALUES | paste - - | md5sum
  echo "krange: $(redis-cli -p "$p" krange '[user:098' + BYLEX LIMIT 0 4 | tr '\n' ' ')"
  echo "krange rev: $(redis-cli -p "$p" krange '(user:100' - BYLEX REV LIMIT 0 2 | tr '\n' ' ')"
  echo "zrange: $(redis-cli -p "$p" zrange board 0 -1 withscores | tr '\n' ' ')"
  echo "zrangebyscore: $(redis-cli -p "$p" zrangebyscore board '(10' 30 | tr '\n' ' ')"
}
before=$(snapshot "$PA")
expect "ordered range of keys (KRANGE BYLEX)" "krange: user:098 user:099 user:100 user:101 " \
  "$(grep '^krange:' <<<"$before")"
expect "descending range of keys (KRANGE BYLEX REV)" "krange rev: user:099 user:098 " \
  "$(grep '^krange rev:' <<<"$before")"
expect "sorted set in score order (ZRANGE)" "zrange: alice 10 bob 20 erin 25 carol 30 dave 40 " \
  "$(grep '^zrange:' <<<"$before")"
expect "keys written" "dbsize 201" "$(head -1 <<<"$before")"
healthy "$A"
expect "zombie processes after the healthcheck" "" "$(zombies "$A")"
# An orphan of `docker exec` is the server's to reap, as PID 1 (its cron, 10 times a second).
ctr exec "$A" sh -c '(sleep 0.1 &); true'
sleep 1 # the test: the orphan exits and the cron has had time to reap it (no zombie would pass at once)
expect "zombie processes after an orphaned exec" "" "$(zombies "$A")"
stop_clean "$A"

# ------------------------------------------------------ second container on the same volume: reload
B=$TAG-b
start "$B" -v "$VOLUME:/data" "$IMAGE" --appendonly yes
wait_ready "$B"
PB=$(port "$B")
expect "every key, value and range after a restart on the volume" "$before" "$(snapshot "$PB")"
expect "a key written after the log rewrite" changed "$(redis-cli -p "$PB" get user:150)"
logs_have "$B" 'DB loaded from append only file' || fail "$B did not load the append-only log"
healthy "$B"
stop_clean "$B"

# ---------------------------------------------------------------------------------------- passwords
# --requirepass as an argument: the healthcheck does not know it and counts -NOAUTH as alive.
C=$TAG-c
start "$C" "$IMAGE" --requirepass arg-secret
wait_ready "$C" -a arg-secret --no-auth-warning
PC=$(port "$C")
expect "a client without the password" "NOAUTH Authentication required." \
  "$(redis-cli -p "$PC" get x 2>&1 | sed 's/^(error) //')"
healthy "$C"
stop_clean "$C"

# RBKV_PASSWORD: the entrypoint passes it as --requirepass, rbkv-cli (the healthcheck) sends it.
D=$TAG-d
start "$D" -e RBKV_PASSWORD=env-secret "$IMAGE"
wait_ready "$D" -a env-secret --no-auth-warning
expect "healthcheck script authenticates with RBKV_PASSWORD" PONG "$(ctr exec "$D" rbkv-cli ping)"
expect "a client without the password" "NOAUTH Authentication required." \
  "$(redis-cli -p "$(port "$D")" get x 2>&1 | sed 's/^(error) //')"
healthy "$D"
# The check can fail: while the server does not answer (SIGSTOP from the host), it reports unhealthy.
pid=$(ctr inspect -f '{{.State.Pid}}' "$D")
kill -STOP "$pid"
if out=$(ctr exec "$D" rbkv-healthcheck 2>&1); then kill -CONT "$pid"; fail "the healthcheck passed while the server was stopped: $out"; fi
kill -CONT "$pid"
echo "ok - the healthcheck fails while the server does not answer: $out"
stop_clean "$D"

# A mounted config file as the first argument, then flags; the container's bind and protected-mode
# defaults still apply because the file does not set them.
cat >"$TMP/rbkv.conf" <<'EOF'
# a config file mounted read-only into the container
requirepass "file secret"
save "60 1"
maxclients 77
EOF
chmod 644 "$TMP/rbkv.conf"
E=$TAG-e
start "$E" -v "$TMP/rbkv.conf:/etc/rbkv/rbkv.conf:ro" "$IMAGE" /etc/rbkv/rbkv.conf --maxclients 88
wait_ready "$E" -a "file secret" --no-auth-warning
PE=$(port "$E")
cfg() { redis-cli -p "$PE" -a "file secret" --no-auth-warning config get "$1" | tail -1; }
expect "save rules from the file" "60 1" "$(cfg save)"
expect "a flag after the file wins" 88 "$(cfg maxclients)"
expect "bind default of the container" 0.0.0.0 "$(cfg bind)"
redis-cli -p "$PE" -a "file secret" --no-auth-warning set saved-on-stop yes >/dev/null
healthy "$E"
stop_clean "$E"
# SIGTERM with save rules set saves first: the snapshot is in the container's anonymous /data volume.
logs_have "$E" 'DB saved on disk' || fail "$E: SIGTERM with save rules did not save"
echo "ok - $E saved its snapshot on SIGTERM"

# --------------------------------------------------------------------------------------- --init
# With --init, PID 1 is podman's init, which reaps orphans and forwards SIGTERM: the stop is still
# clean.
F=$TAG-f
start "$F" --init "$IMAGE"
wait_ready "$F"
ctr exec "$F" sh -c '(sleep 0.1 &); true'
sleep 0.5 # the test, as above: the orphan has exited and init has had time to reap it
expect "zombies under --init after an orphaned exec" "" "$(zombies "$F")"
stop_clean "$F"

# ------------------------------------------------------------------------------------- compose.yaml
# There is no compose tool here, so read compose.yaml with python3-yaml and run its two services as
# Docker Compose would: on one network where the server's name is `rbkv`, with the named volume, the
# healthcheck and RBKV_PASSWORD in both, the query once the server is healthy.
if ! python3 -c 'import yaml' 2>/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-yaml >/dev/null 2>&1 || fail "python3-yaml is needed to read compose.yaml"
fi
# compose_get PATH: the value at a dotted path of compose.yaml; a list as NUL-terminated items.
compose_get() {
  python3 - "${COMPOSE_FILE:-$REPO/compose.yaml}" "$1" <<'PY'
import sys, yaml
v = yaml.safe_load(open(sys.argv[1]))
for k in sys.argv[2].split('.'):
    v = v[k]
sys.stdout.write(''.join(str(x) + '\0' for x in v) if isinstance(v, list) else str(v))
PY
}
expect "compose: the server's healthcheck" "CMD rbkv-healthcheck " "$(compose_get services.rbkv.healthcheck.test | tr '\0' ' ')"
expect "compose: a named volume on /data" "rbkv-data:/data " "$(compose_get services.rbkv.volumes | tr '\0' ' ')"
expect "compose: the query waits for a healthy server" service_healthy "$(compose_get services.query.depends_on.rbkv.condition)"
for svc in rbkv query; do
  case "$(compose_get "services.$svc.environment.RBKV_PASSWORD")" in
    '${RBKV_PASSWORD:?'*) echo "ok - compose: $svc requires RBKV_PASSWORD" ;;
    *) fail "compose: $svc does not take RBKV_PASSWORD from the environment" ;;
  esac
done
docs_yaml=$(awk '/<!-- section: container -->/,/<!-- end: container -->/' "$REPO/docs/operations.md" |
  awk '/^```yaml$/ { f = 1; next } /^```$/ { f = 0 } f')
expect "docs/operations.md's compose example is compose.yaml (from services:)" \
  "$(sed -n '/^services:/,$p' "$REPO/compose.yaml")" "$docs_yaml"
mapfile -d '' server_cmd < <(compose_get services.rbkv.command)
mapfile -d '' query_cmd < <(compose_get services.query.command)
PW=compose-$RANDOM$RANDOM
NET=$TAG-net
ctr network create "$NET" >/dev/null
ctr volume create "$VOLUME-compose" >/dev/null
G=$TAG-rbkv
start "$G" --network "$NET" --network-alias rbkv -e RBKV_PASSWORD="$PW" -v "$VOLUME-compose:/data" "$IMAGE" "${server_cmd[@]}"
wait_ready "$G" -a "$PW" --no-auth-warning
healthy "$G"
Q=$TAG-query
CONTAINERS+=("$Q")
out=$(ctr run --name "$Q" --network "$NET" -e RBKV_PASSWORD="$PW" "$IMAGE" "${query_cmd[@]}" 2>"$TMP/query.err") ||
  { echo "$out"; cat "$TMP/query.err"; fail "the compose query service failed"; }
expect "the compose query's output" "OK
4
cities in key order:
city:berlin	3755251
city:madrid	3332035
city:paris	2102650
city:rome	2748109
by population, largest first:
berlin
3755251
madrid
3332035
rome
2748109
paris
2102650" "$out"
stop_clean "$G"

# ------------------------------------------------- compose.yaml's rbkv-tls: TLS only and ACL users
# The recommended production configuration's users (docs/examples/production/users.acl as it is),
# switched on by the entrypoint's variables as the rbkv-tls service sets them, with its volumes' host
# side in the temp dir and certificates made here; checked from the host with redis-cli --tls.
expect "compose: rbkv-tls only with the tls profile" "tls " "$(compose_get services.rbkv-tls.profiles | tr '\0' ' ')"
TLS=$TMP/tls
mkdir "$TLS"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TLS/ca.key" -out "$TLS/ca.crt" -days 2 -subj /CN=ca \
  2>/dev/null || fail "openssl: CA"
for who in server client; do
  openssl req -newkey rsa:2048 -nodes -keyout "$TLS/$who.key" -out "$TLS/$who.csr" -subj "/CN=$who" 2>/dev/null &&
    openssl x509 -req -in "$TLS/$who.csr" -CA "$TLS/ca.crt" -CAkey "$TLS/ca.key" -CAcreateserial \
      -out "$TLS/$who.crt" -days 2 2>/dev/null || fail "openssl: $who certificate"
done
cp "$REPO/docs/examples/production/users.acl" "$TMP/users.acl"
chmod 644 "$TLS"/* "$TMP/users.acl" # uid 999 reads them (test keys in a temp dir)
tls_args=()
for v in RBKV_TLS_CERT_FILE RBKV_TLS_KEY_FILE RBKV_TLS_CA_CERT_FILE RBKV_ACLFILE; do
  tls_args+=(-e "$v=$(compose_get "services.rbkv-tls.environment.$v")")
done
mapfile -d '' tls_volumes < <(compose_get services.rbkv-tls.volumes)
for vol in "${tls_volumes[@]}"; do
  case $vol in ./*) tls_args+=(-v "$TMP/${vol#./}") ;; esac # the named data volume: the image's anonymous one
done
mapfile -d '' tls_cmd < <(compose_get services.rbkv-tls.command)
T=$TAG-tls
start "$T" "${tls_args[@]}" "$IMAGE" "${tls_cmd[@]}"
PT=$(port "$T")
tcli() { redis-cli -p "$PT" --tls --cacert "$TLS/ca.crt" --cert "$TLS/client.crt" --key "$TLS/client.key" "$@" 2>&1; }
for _ in $(seq 100); do
  [ "$(tcli ping)" = "NOAUTH Authentication required." ] && break
  [ "$(ctr inspect -f '{{.State.Running}}' "$T")" = true ] || fail "$T exited before answering PING"
  sleep 0.1
done
expect "TLS + ACL: the server's command line (its title: the TLS port)" "rbkv-server 0.0.0.0:6379" \
  "$(ctr exec "$T" sh -c 'tr "\0" " " </proc/1/cmdline' | sed 's/ *$//')"
expect "TLS + ACL: the default user is off" "NOAUTH Authentication required." "$(tcli ping)"
expect "TLS + ACL: app writes its prefix" OK "$(tcli --user app --pass app-CHANGE-ME --no-auth-warning set app:k v)"
expect "TLS + ACL: app reads its prefix" v "$(tcli --user app --pass app-CHANGE-ME --no-auth-warning get app:k)"
expect "TLS + ACL: app outside its prefix" "NOPERM this user has no permissions to access one of the keys used as arguments" \
  "$(tcli --user app --pass app-CHANGE-ME --no-auth-warning set other v)"
out=$(timeout 10 redis-cli -p "$PT" ping 2>&1) || true
case "$out" in PONG | *NOAUTH*) fail "TLS + ACL: plaintext PING answered: $out" ;; esac
echo "ok - TLS + ACL: plaintext gets no reply"
healthy "$T"
stop_clean "$T"
# The entrypoint refuses what it cannot do as asked, before the server starts.
out=$(ctr run --rm -e RBKV_PASSWORD=x -e RBKV_ACLFILE=/etc/rbkv/users.acl "$IMAGE" 2>&1) &&
  fail "RBKV_PASSWORD with RBKV_ACLFILE started: $out"
expect "RBKV_PASSWORD with RBKV_ACLFILE is refused" \
  "rbkv: RBKV_PASSWORD and RBKV_ACLFILE together: set the default user's password (or 'off') in the ACL file" \
  "$(grep '^rbkv:' <<<"$out")"

# --------------------------------------------------------------------------------- compose.ha.yaml
# The servers of the high-availability example, as compose would run them: the primary and a
# replica that finds it by its service name, a write on the primary read on the replica. (Its
# sentinels' image installs redis-sentinel with apt, which this offline build cannot reach;
# tests/integration/test_sentinel.sh runs the sentinels against the same servers on the host.)
COMPOSE_FILE=$REPO/compose.ha.yaml
mapfile -d '' ha_primary_cmd < <(compose_get services.rbkv-primary.command)
mapfile -d '' ha_replica_cmd < <(compose_get services.rbkv-replica1.command)
ha_primary_cmd=("${ha_primary_cmd[@]//\$\{RBKV_PASSWORD\}/$PW}")
ha_replica_cmd=("${ha_replica_cmd[@]//\$\{RBKV_PASSWORD\}/$PW}")
HP=$TAG-ha-primary
HR=$TAG-ha-replica1
start "$HP" --network "$NET" --network-alias rbkv-primary -e RBKV_PASSWORD="$PW" "$IMAGE" "${ha_primary_cmd[@]}"
wait_ready "$HP" -a "$PW" --no-auth-warning
redis-cli -p "$(port "$HP")" -a "$PW" --no-auth-warning set ha:before v1 >/dev/null
start "$HR" --network "$NET" --network-alias rbkv-replica1 -e RBKV_PASSWORD="$PW" "$IMAGE" "${ha_replica_cmd[@]}"
wait_ready "$HR" -a "$PW" --no-auth-warning
rcli() { redis-cli -p "$(port "$HR")" -a "$PW" --no-auth-warning "$@"; }
for _ in $(seq 100); do
  rcli info replication | grep -q '^master_link_status:up' && break
  sleep 0.1
done
expect "compose.ha.yaml: the replica's link to rbkv-primary" "master_link_status:up" \
  "$(rcli info replication | grep '^master_link_status' | tr -d '\r')"
redis-cli -p "$(port "$HP")" -a "$PW" --no-auth-warning set ha:after v2 >/dev/null
redis-cli -p "$(port "$HP")" -a "$PW" --no-auth-warning wait 1 5000 >/dev/null
expect "compose.ha.yaml: the replica has the writes from before and after it joined" "v1
v2" "$(rcli mget ha:before ha:after)"
expect "compose.ha.yaml: the replica refuses writes" \
  "READONLY You can't write against a read only replica." "$(rcli set x y 2>&1)"
stop_clean "$HR"
stop_clean "$HP"

# ---------------------------------------------------------------------------- compose.cluster.yaml
# The cluster example as compose would run it: six nodes on one network by their service names,
# then the one-shot cluster-create service (its own image, docker/cluster-init: redis-cli) once
# they answer; it must exit 0 with the cluster made. Then every node says cluster_state:ok, three
# are primaries and three replicas, and a key goes in and out through redis-cli -c (following
# -MOVED) from the init image on the same network (the nodes announce their network addresses).
COMPOSE_FILE=$REPO/compose.cluster.yaml
expect "compose.cluster.yaml: cluster-create waits for healthy nodes" service_healthy \
  "$(compose_get services.cluster-create.depends_on.rbkv-node6.condition)"
INIT_IMAGE=$IMAGE-cluster-init
ctr build --pull=never --format docker -t "$INIT_IMAGE" "$REPO/docker/cluster-init" >"$TMP/init-build.log" 2>&1 ||
  { tail -30 "$TMP/init-build.log"; fail "building docker/cluster-init"; }
nodes=()
for i in 1 2 3 4 5 6; do
  mapfile -d '' node_cmd < <(compose_get "services.rbkv-node$i.command")
  node_cmd=("${node_cmd[@]//\$\{RBKV_PASSWORD\}/$PW}")
  start "$TAG-node$i" --network "$NET" --network-alias "rbkv-node$i" -e RBKV_PASSWORD="$PW" "$IMAGE" "${node_cmd[@]}"
  nodes+=("$TAG-node$i")
done
for n in "${nodes[@]}"; do wait_ready "$n" -a "$PW" --no-auth-warning; done
healthy "${nodes[0]}"
CI_NAME=$TAG-cluster-create
CONTAINERS+=("$CI_NAME")
out=$(ctr run --name "$CI_NAME" --network "$NET" -e RBKV_PASSWORD="$PW" \
        -e CLUSTER_NODES="$(compose_get services.cluster-create.environment.CLUSTER_NODES)" \
        -e CLUSTER_REPLICAS="$(compose_get services.cluster-create.environment.CLUSTER_REPLICAS)" \
        "$INIT_IMAGE" 2>&1) || { echo "$out"; fail "the cluster-create service failed"; }
grep -q 'All 16384 slots covered' <<<"$out" || { echo "$out"; fail "cluster-create did not check the cluster"; }
echo "ok - compose.cluster.yaml: cluster-create made the cluster"
ncli() { redis-cli -p "$(port "$1")" -a "$PW" --no-auth-warning "${@:2}"; }
for n in "${nodes[@]}"; do
  for _ in $(seq 100); do
    ncli "$n" cluster info | grep -q '^cluster_state:ok' && break
    sleep 0.1
  done
  expect "compose.cluster.yaml: $n's cluster_state" "cluster_state:ok" \
    "$(ncli "$n" cluster info | grep '^cluster_state' | tr -d '\r')"
done
# node1 learns the replicas' roles by gossip, after the slots agree (which is all cluster-create
# waits for): wait up to 30 s for its view to show them.
for _ in $(seq 60); do
  roles=$(ncli "${nodes[0]}" cluster nodes | awk '{ print ($3 ~ /master/) ? "master" : "slave" }' |
    sort | uniq -c | awk '{ printf "%s %s ", $1, $2 }')
  [ "$roles" = "3 master 3 slave " ] && break
  sleep 0.5
done
expect "compose.cluster.yaml: three primaries and three replicas" "3 master 3 slave " "$roles"
# A key through redis-cli -c: written via node1, read via node2, whichever owns its slot.
ccli() { ctr run --rm --network "$NET" --entrypoint redis-cli "$INIT_IMAGE" -c -a "$PW" --no-auth-warning "$@"; }
expect "compose.cluster.yaml: SET through redis-cli -c" OK "$(ccli -h rbkv-node1 set cluster:greeting hello)"
expect "compose.cluster.yaml: GET through redis-cli -c from another node" hello \
  "$(ccli -h rbkv-node2 get cluster:greeting)"
for n in "${nodes[@]}"; do stop_clean "$n"; done

echo "CONTAINER TEST OK"
