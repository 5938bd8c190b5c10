# shellcheck shell=bash
# Installs the npm packages a test folder pins in its package-lock.json, for the scripts that run
# Node.js tests (tests/clients/run.sh, tests/frameworks/bullmq/run.sh). Sourced, not run:
#   . tests/integration/npm_ci.sh
#   npm_ci_or_skip DIR   # returns once DIR/node_modules matches DIR/package-lock.json
# It exits the script with 77 (skip) when node or npm is missing (scripts/deps.sh test installs
# them) or when npm ci fails (no registry reachable), so a machine without them skips rather
# than fails.
# npm ci removes node_modules first and asks the registry, so it runs only when the lock file
# changed since the last successful install, whose copy is kept in node_modules/.rbkv-installed-lock.
# (npm's own record, node_modules/.package-lock.json, leaves out the root entry and the optional
# packages of other platforms, so it never equals the lock file.)
npm_ci_or_skip() {
  local dir=$1 tool
  for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/deps.sh test)"; exit 77; }
  done
  cmp -s "$dir/package-lock.json" "$dir/node_modules/.rbkv-installed-lock" && return 0
  # Concurrent runs (several build dirs) must not install into the same tree at once.
  if ! (
    flock 9
    cmp -s "$dir/package-lock.json" "$dir/node_modules/.rbkv-installed-lock" && exit 0
    cd "$dir" && npm ci --no-audit --no-fund --loglevel=error &&
      cp package-lock.json node_modules/.rbkv-installed-lock
  ) 9>"${TMPDIR:-/tmp}/rbkv-npm-ci.$(id -u).lock"; then
    echo "SKIP: npm ci failed (is the npm registry reachable?)"
    exit 77
  fi
}
