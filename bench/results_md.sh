#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted texts are awk programs and Markdown backquotes
# Prints the Markdown tables bench/README.md quotes from one bench/run result folder, so the
# README's figures are regenerated from the committed CSVs, never typed in:
#   bench/results_md.sh [DIR]     (default bench/results)
# Reads DIR's machine.txt, summary.csv, scan_range.csv, scan_size.csv, memory.csv,
# range_length.csv, range_size.csv and client_cpu.csv (bench/run writes them); a missing file
# stops it.
set -euo pipefail
DIR=${1:-$(dirname "$0")/results}
for f in machine.txt summary.csv scan_range.csv scan_size.csv memory.csv range_length.csv \
         range_size.csv client_cpu.csv; do
  [ -f "$DIR/$f" ] || { echo "usage: $0 [DIR]; no $DIR/$f" >&2; exit 1; }
done
field() { sed -n "s/^$1: //p" "$DIR/machine.txt"; }
commit=$(field rbkv)
keys=$(field keys)
thousands=$(awk -v x="$keys" 'BEGIN { s = x ""; n = length(s)
  while (n > 3) { s = substr(s, 1, n - 3) "," substr(s, n - 2); n -= 3 } print s }')

# md FILE AWK-PROGRAM: the program runs over FILE's rows after its header, with c() to group
# thousands (mawk has no %'d).
md() {
  awk -F, -v commit="$commit" -v keys="$keys" '
    function c(x,   s, n) { s = sprintf("%.0f", x); n = length(s)
      while (n > 3) { s = substr(s, 1, n - 3) "," substr(s, n - 2); n -= 3 } return s }
    function range(m, lo, hi) { return c(m) " (" c(lo) "–" c(hi) ")" }
    NR == 1 { next }
    '"$2" "$DIR/$1"
}

echo "Run: \`$(field run) --out bench/results\`, $(field date), commit $commit, load average" \
  "$(field load_at_start | cut -d' ' -f1) at the start."
echo
echo "| workload ($thousands keys, $commit) | rbkv op/s | redis op/s | ratio | p50 us rbkv / redis | p99 us | p99.9 us |"
echo "|---|---:|---:|---:|---|---|---|"
md summary.csv '{ printf "| `%s` | %s | %s | **%.2f** | %s / %s | %s / %s | %s / %s |\n", $1, c($2), c($3), $4,
  c($5), c($6), c($7), c($8), c($9), c($10) }'
echo
echo "| scan of m keys (one client, $commit) | $(awk -F, 'NR > 1 { printf "%s%s", s, $1; s = " | " }' "$DIR/scan_range.csv") |"
echo "|---$(awk -F, 'NR > 1 { printf "|---:" }' "$DIR/scan_range.csv")|"
for col in '4 rbkv `KRANGE`, in-command us' '5 redis `ZRANGEBYLEX`, in-command us' \
           '2 rbkv p50 at the client us' '3 redis p50 at the client us'; do
  n=${col%% *}; label=${col#* }
  awk -F, -v n="$n" -v label="$label" 'NR > 1 { printf "%s | %s", (NR == 2 ? "| " label : ""), $n }
    END { print " |" }' "$DIR/scan_range.csv"
done
echo
echo "| keys in the tree (n, $commit) | $(awk -F, 'NR > 1 { printf "%s%s", s, $1; s = " | " }' "$DIR/scan_size.csv") |"
echo "|---$(awk -F, 'NR > 1 { printf "|---:" }' "$DIR/scan_size.csv")|"
awk -F, 'NR > 1 { printf "%s | %s", (NR == 2 ? "| rbkv `KRANGE` of 100 keys, in-command us" : ""), $3 } END { print " |" }' "$DIR/scan_size.csv"
awk -F, 'NR > 1 { printf "%s | %s", (NR == 2 ? "| rbkv, p50 at the client us" : ""), $2 } END { print " |" }' "$DIR/scan_size.csv"
awk -F, 'NR > 1 { printf "%s | %s", (NR == 2 ? "| memory, rbkv / redis `used_memory` B/key" : ""), $2 " / " $3 } END { print " |" }' "$DIR/memory.csv"
awk -F, 'NR > 1 { printf "%s | %s", (NR == 2 ? "| ratio (rbkv / redis)" : ""), $4 } END { print " |" }' "$DIR/memory.csv"
awk -F, 'NR > 1 { printf "%s | %s", (NR == 2 ? "| RSS B/key, rbkv / redis" : ""), $5 " / " $6 } END { print " |" }' "$DIR/memory.csv"
echo
for f in 'range_length.csv|m' 'range_size.csv|n, keys (m = 100)'; do
  file=${f%%|*}; first=${f#*|}
  [ "$first" = m ] && first="m ($thousands keys)"
  echo "| $first | rbkv, -c 32 -P 16 | redis, -c 32 -P 16 | ratio | rbkv, -c 50 -P 1 | redis, -c 50 -P 1 | ratio |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  md "$file" '{ printf "| %s | %s | %s | **%.2f** | %s | %s | **%.2f** |\n", c($1), range($2, $3, $4),
    range($5, $6, $7), $8, range($9, $10, $11), range($12, $13, $14), $15 }'
  echo
done
echo "| client -> server ($commit) | op/s | client cores | client CPU us/request | server cores | server CPU us/request |"
echo "|---|---:|---:|---:|---:|---:|"
md client_cpu.csv '{ printf "| %s -> %s | %s | %.2f | %.2f | %.2f | %.2f |\n", $1, $2, c($5), $7, $8, $10, $11 }'
