#!/usr/bin/env bash
# Installs the Debian packages that building, testing or benchmarking rbkv needs, when they are missing.
# usage: scripts/deps.sh [build|test|bench|fuzz|lint]...   (build is always included)
set -euo pipefail
# libssl-dev: TLS (tls-port). liblua5.1-0-dev lua-cjson-dev lua-bitop-dev: EVAL and FUNCTION (docs/scripting.md).
want=(gcc make cmake pkg-config libuv1-dev libhiredis-dev libmimalloc-dev liblua5.1-0-dev lua-cjson-dev lua-bitop-dev libssl-dev)
for what in "$@"; do
  case "$what" in
    build) ;;
    # redis-sentinel: tests/integration/test_sentinel.sh. prometheus-redis-exporter curl:
    # tests/integration/test_exporter.sh. redis-server: the tests' reference. nodejs npm: tests/clients. Only when npm
    # is missing: NodeSource's nodejs ships npm itself and conflicts with Debian's npm package, which
    # apt would then resolve by removing nodejs.
    # ruby-sidekiq ruby-redis python3-celery python3-redis: tests/frameworks (python3-redis also
    # tests/clients/cluster: redis-py RedisCluster; BullMQ's npm
    # packages come from its lock file).
    test) want+=(redis-tools redis-server redis-sentinel prometheus-redis-exporter curl valgrind tmux
                 ruby-sidekiq ruby-redis python3-celery python3-redis openssl)
          command -v npm >/dev/null || want+=(nodejs npm) ;;
    # What the bench/ scripts call: redis-tools (redis-benchmark, redis-cli), redis-server (the
    # reference), gnuplot-nox (bench/run's and latency_vs_redis.sh's plots), linux-perf (perf stat in
    # set_ab.sh; perf record/report for bench/README.md's profiles), valgrind
    # (callgrind_per_request.sh), openssl (tls_vs_redis.sh's certificates), redis-sentinel
    # (failover_vs_redis.sh), python3 (fullrange_vs_redis.sh, rdb_figures_vs_redis.sh), strace
    # (cluster_mode_cost.sh's system calls per request).
    bench) want+=(redis-tools redis-server gnuplot-nox linux-perf valgrind openssl redis-sentinel python3
                  strace) ;;
    fuzz) want+=(clang libclang-rt-dev) ;;
    lint) want+=(cppcheck clang-tidy) ;;
    *) echo "deps.sh: unknown set '$what'" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing missing packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
