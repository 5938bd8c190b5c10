#!/usr/bin/env bash
# Sidekiq against one server: starts SERVER_BIN on a free loopback port and runs sidekiq_test.rb
# (minitest) with Debian's ruby-sidekiq and ruby-redis.
# usage: tests/frameworks/sidekiq/run.sh SERVER_BIN
# Exits 77 (skip) when ruby or those packages are missing (scripts/deps.sh test installs them).
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 SERVER_BIN" >&2; exit 2; }

command -v ruby >/dev/null || { echo "SKIP: ruby not installed (scripts/deps.sh test)"; exit 77; }
ruby -e 'require "sidekiq"; require "redis"; require "minitest"' 2>/dev/null ||
  { echo "SKIP: ruby-sidekiq or ruby-redis not installed (scripts/deps.sh test)"; exit 77; }

. "$here/../framework.sh"
framework_run "$1" ruby "$here/sidekiq_test.rb"
