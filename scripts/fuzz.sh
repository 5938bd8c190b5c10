#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz_*) built in BUILD_DIR, or only the NAMEs given (fuzz_NAME), for
# SECONDS each, FUZZ_JOBS at a time (default: the cores), on a temporary copy of
# its seed corpus tests/fuzz/corpus/<name>/ (new inputs never land in the repository), with the
# dictionary tests/fuzz/<name>.dict when there is one. Fails if any target crashes, leaks or hangs;
# the input that did it is kept in BUILD_DIR/fuzz-artifacts/<name>/ and its log in
# BUILD_DIR/fuzz-logs/<name>.log. Turn such an input into a regression case (copy it into the corpus
# or a unit test) before fixing the bug.
# FUZZ_ARGS adds libFuzzer flags (e.g. FUZZ_ARGS="-jobs=2 -workers=2").
# usage: scripts/fuzz.sh BUILD_DIR SECONDS [NAME ...]
#   make fuzz FUZZ_SECONDS=3600 runs an hour each; scripts/fuzz.sh build-fuzz 3600 commands one only.
set -euo pipefail
usage="usage: scripts/fuzz.sh BUILD_DIR SECONDS [NAME ...]"
build=${1:?$usage}
seconds=${2:?$usage}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)

mapfile -t targets < <(find "$build" -path '*/CMakeFiles' -prune -o -type f -executable -name 'fuzz_*' -print | sort)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz_* executables in $build (configure with CC=clang -DRBKV_FUZZ=ON)" >&2
  exit 1
fi
if [ $# -gt 0 ]; then
  chosen=()
  for want in "$@"; do
    found=
    for exe in "${targets[@]}"; do
      if [ "$(basename "$exe")" = "fuzz_${want#fuzz_}" ]; then
        chosen+=("$exe")
        found=1
      fi
    done
    if [ -z "$found" ]; then
      echo "fuzz.sh: no target fuzz_${want#fuzz_} in $build" >&2
      exit 1
    fi
  done
  targets=("${chosen[@]}")
fi

mkdir -p "$build/fuzz-logs"
# run_target EXE: one target for SECONDS on a copy of its corpus; prints its figures (or its log's
# tail) when done and exits non-zero when it failed.
run_target() {
  local exe=$1 name work artifacts log args
  name=$(basename "$exe")
  name=${name#fuzz_}
  work=$(mktemp -d)
  artifacts="$build/fuzz-artifacts/$name"
  log="$build/fuzz-logs/$name.log"
  mkdir -p "$artifacts"
  if [ -d "$root/tests/fuzz/corpus/$name" ]; then
    cp -R "$root/tests/fuzz/corpus/$name/." "$work/"
  fi
  args=(-max_total_time="$seconds" -timeout=30 -print_final_stats=1 -artifact_prefix="$artifacts/")
  # shellcheck disable=SC2206 # FUZZ_ARGS is a list of flags
  args+=(${FUZZ_ARGS:-})
  if [ -f "$root/tests/fuzz/$name.dict" ]; then
    args+=(-dict="$root/tests/fuzz/$name.dict")
  fi
  local rc=0
  if "$exe" "${args[@]}" "$work" >"$log" 2>&1; then
    echo "fuzz.sh: $name ran ${seconds}s (log: $log)"
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$log" | sed "s/^/  $name /" || true
  else
    rc=1
    echo "fuzz.sh: $name FAILED; input kept in $artifacts/, last lines of the log:" >&2
    tail -n 30 "$log" >&2
  fi
  rm -rf "$work"
  return $rc
}

# FUZZ_JOBS targets at a time (default: the cores), each one process: in CI 15 targets of 10 s
# take 80 s on two cores instead of 150.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
declare -A running=()
failed=()
reap() { # waits for one target to finish and records it when it failed
  local pid
  wait -n -p pid "${!running[@]}" || failed+=("${running[$pid]}")
  unset "running[$pid]"
}
for exe in "${targets[@]}"; do
  while [ ${#running[@]} -ge "$jobs" ]; do reap; done
  run_target "$exe" &
  name=$(basename "$exe")
  running[$!]=${name#fuzz_}
done
while [ ${#running[@]} -gt 0 ]; do reap; done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: ${#targets[@]} target(s) ran ${seconds}s each without a failure"
