#!/usr/bin/env bash
# The Prometheus exporter operators use, Debian's prometheus-redis-exporter, scraping rbkv and
# redis-server 7 that hold the same data: every metric family Redis yields must come from rbkv
# too (but the few listed in REDIS_ONLY, which rbkv has no counterpart for by design), and the
# exporter must log no error against rbkv (an unknown command or an unparsable INFO field shows
# up there). One exporter serves both through its multi-target /scrape endpoint.
#   tests/integration/test_exporter.sh SERVER_BIN
# Skips (77) without prometheus-redis-exporter, redis-server, redis-cli or curl
# (scripts/deps.sh test installs them); fails without redis-server where the comparisons with
# Redis are required (CI=true or RBKV_REQUIRE_REFERENCE=1, as in the C tests' harness).
set -u
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }
server_bin=$1
if ! command -v redis-server >/dev/null &&
  { [ "${CI:-}" = true ] || [ "${RBKV_REQUIRE_REFERENCE:-0}" != 0 ]; }; then
  echo "FAIL: no redis-server to compare with, required here (CI=true or RBKV_REQUIRE_REFERENCE=1)" >&2
  exit 1
fi
for tool in prometheus-redis-exporter redis-server redis-cli curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
done
[ -x "$server_bin" ] || { echo "$server_bin is not an executable" >&2; exit 2; }
server_bin=$(cd "$(dirname "$server_bin")" && pwd)/$(basename "$server_bin")
SLOW=${RBKV_TEST_SLOW:-1}

# Families only Redis can have: active defragmentation (jemalloc's), I/O threads, modules and
# cluster. Everything else Redis yields rbkv must yield too.
REDIS_ONLY_RE='^redis_(active_defrag_.*|defrag_.*|io_threads_active|module_.*|modules|cluster_.*)$'

work=$(mktemp -d "${TMPDIR:-/tmp}/rbkv-exporter-XXXXXX") || exit 1
READY_SECONDS=$((10 * SLOW))

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The two servers are instances.sh's (rbkv and redis), from config files in $work; the exporter
# joins its pid array, so its EXIT trap kills all three and keeps $work with the logs on failure.
write_conf() {
  {
    echo "port ${port[$1]}"
    # local is rbkv's default, and lets the file run against redis-server too.
    echo "enable-debug-command local"
    [ "$1" = redis ] && printf 'save ""\nappendonly no\n'
  } >"$work/$1.conf"
}
instance_cmd() {
  case $1 in
    rbkv) INSTANCE_CMD=("${wrapper[@]}" "$server_bin" "$work/rbkv.conf") ;;
    redis) INSTANCE_CMD=(redis-server "$work/redis.conf") ;;
  esac
}
instance_answers() { [ "$(redis-cli -p "${port[$1]}" PING 2>/dev/null)" = PONG ]; }
# shellcheck source-path=SCRIPTDIR source=instances.sh
. "$(dirname "$0")/instances.sh"

read -r -a wrapper <<<"${RBKV_SERVER_WRAPPER:-}"
start_instance rbkv || { fail "rbkv did not start"; exit 1; }
rbkv_port=${port[rbkv]}
start_instance redis || { fail "redis-server did not start"; exit 1; }
redis_port=${port[redis]}

# The same data in both, of every type both have, some with deadlines, in two databases, and a
# deliberately slow command so the slow log has an entry.
for port in "$rbkv_port" "$redis_port"; do
  {
    for i in $(seq 1 50); do echo "SET key:$i value:$i"; done
    echo "EXPIRE key:1 1000"
    echo "HSET h f1 v1 f2 v2"
    echo "SADD s a b c"
    echo "ZADD z 1 a 2 b"
    echo "SELECT 1"
    echo "SET other 1"
    echo "CONFIG SET slowlog-log-slower-than 0"
    echo "GET key:2"
    echo "GET nokey"
    echo "INCR key:2"
    echo "CONFIG SET slowlog-log-slower-than 10000"
    echo "CONFIG SET latency-monitor-threshold 100"
    echo "DEBUG SLEEP 0.12"
  } | redis-cli -p "$port" >/dev/null
done

# The exporter on a free port; another test may take the port first, so it retries on a new one.
start_exporter() {
  local attempt i
  for ((attempt = 0; attempt < 5; attempt++)); do
    exporter_port=$(free_port "${port[@]}")
    prometheus-redis-exporter -web.listen-address "127.0.0.1:$exporter_port" -redis.addr "" \
      -include-system-metrics -export-client-list -ping-on-connect >>"$work/exporter.log" 2>&1 &
    pid[exporter]=$!
    for ((i = 0; i < 100 * SLOW; i++)); do
      kill -0 "${pid[exporter]}" 2>/dev/null || break
      curl -sf "http://127.0.0.1:$exporter_port/" >/dev/null && return 0
      sleep 0.05
    done
    kill -9 "${pid[exporter]}" 2>/dev/null
  done
  fail "the exporter did not start"
  return 1
}
start_exporter || exit 1

# scrape PORT FILE: the exporter's /metrics for the server on PORT, into FILE.
scrape() {
  local i
  for ((i = 0; i < 100 * SLOW; i++)); do
    curl -sf "http://127.0.0.1:$exporter_port/scrape?target=redis://127.0.0.1:$1" >"$2" && return 0
    sleep 0.1
  done
  fail "no scrape of port $1"
  return 1
}
# families FILE: the metric family names in FILE, one per line, sorted.
families() {
  awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$1" | sort -u
}

scrape "$rbkv_port" "$work/rbkv.prom" || exit 1
scrape "$redis_port" "$work/redis.prom" || exit 1
families "$work/rbkv.prom" >"$work/rbkv.families"
families "$work/redis.prom" >"$work/redis.families"

missing=$(comm -13 "$work/rbkv.families" "$work/redis.families" | grep -Ev "$REDIS_ONLY_RE")
[ -z "$missing" ] || fail "metric families Redis yields and rbkv does not:
$missing"
[ "$(awk '$1 == "redis_up" { print $2 }' "$work/rbkv.prom")" = 1 ] || fail "redis_up is not 1 for rbkv"
# A few figures that must be right, not merely present.
for family in redis_db_keys redis_slowlog_length redis_connected_clients; do
  grep -q "^$family" "$work/rbkv.prom" || fail "no $family sample for rbkv"
done
grep -q '^redis_db_keys{db="db0"} 53' "$work/rbkv.prom" || fail "redis_db_keys for db0 is not 53"
grep -q '^redis_db_keys_expiring{db="db0"} 1' "$work/rbkv.prom" ||
  fail "redis_db_keys_expiring for db0 is not 1"

# The exporter logs what it could not read or parse: against rbkv it must log no error.
errors=$(grep -iE 'level=(error|warn)|ERR ' "$work/exporter.log" | grep -v 'address already in use')
[ -z "$errors" ] || fail "the exporter logged:
$errors"

echo "rbkv: $(wc -l <"$work/rbkv.families") families, redis: $(wc -l <"$work/redis.families");" \
  "Redis's alone by design: $(comm -13 "$work/rbkv.families" "$work/redis.families" | tr '\n' ' ')"
if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "PASS"
