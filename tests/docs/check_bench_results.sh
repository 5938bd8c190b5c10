#!/usr/bin/env bash
# check_bench_results.sh ROOT - bench/README.md quotes the committed bench/results/ as they are:
# every table row bench/results_md.sh prints from those CSVs is a line of the README, so a new
# bench/run committed without its tables, or a figure typed in by hand over them, fails here.
# Exits 1 with one line per row the README lacks.
set -uo pipefail
root=${1:?usage: check_bench_results.sh ROOT}
rows=$("$root/bench/results_md.sh" "$root/bench/results") || exit 1
fail=0
while IFS= read -r line; do
  case $line in '|'*) ;; *) continue ;; esac
  grep -qxF -- "$line" "$root/bench/README.md" ||
    { echo "check_bench_results: bench/README.md lacks: $line" >&2; fail=1; }
done <<<"$rows"
exit "$fail"
