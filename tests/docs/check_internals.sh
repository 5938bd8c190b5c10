#!/usr/bin/env bash
# check_internals.sh ROOT - docs/internals.md stays true to the tree:
#   1. the layer drawing (the first ``` block under "## Layers") names every source file of every
#      layer in that layer's row, and names no file that is not there. A row is a line that starts
#      with a folder ("core/", "proto/", "server/" for the top-level files) followed by file names
#      without ".c"; lines indented under it continue it; other lines ("|", arrows) are ignored.
#   2. the Source map (the table under "## Source map") has a row for every folder of the server
#      and proto/, and every file it names in backquotes (`x.c`, `x.h`) exists in that folder.
# Exits 1 with one line per difference.
set -uo pipefail
root=${1:?usage: check_internals.sh ROOT}
doc=$root/docs/internals.md
fail=0
complain() { echo "check_internals: $*" >&2; fail=1; }

folder_path() { # the folder a drawing row names
  case $1 in
    proto) echo "$root/proto" ;;
    server) echo "$root/server" ;;
    *) echo "$root/server/$1" ;;
  esac
}

# 1. the drawing
drawing=$(awk '/^## Layers/ { in_layers = 1; next }
               in_layers && /^## / { exit }
               in_layers && /^```/ { if (open) exit; open = 1; next }
               open { print }' "$doc")
[ -n "$drawing" ] || complain "no drawing under ## Layers"
declare -A named=()
current=""
while IFS= read -r line; do
  if [[ $line =~ ^([a-z_]+)/[[:space:]]+(.*)$ ]]; then
    current=${BASH_REMATCH[1]}
    named[$current]+=" ${BASH_REMATCH[2]}"
  elif [[ -n $current && $line =~ ^[[:space:]]{8,}([a-z_].*)$ ]]; then
    named[$current]+=" ${BASH_REMATCH[1]}"
  else
    current=""
  fi
done <<< "$drawing"

layers=(server proto)
for d in "$root"/server/*/; do layers+=("$(basename "$d")"); done
for l in "${layers[@]}"; do
  dir=$(folder_path "$l")
  [ -n "${named[$l]+x}" ] || { complain "the drawing has no row for $l/"; continue; }
  want=$(find "$dir" -maxdepth 1 -name '*.c' -printf '%f\n' | sed 's/\.c$//' | sort)
  have=$(tr ' ' '\n' <<< "${named[$l]}" | sed '/^$/d' | sort)
  while read -r f; do
    [ -n "$f" ] && complain "the drawing's $l/ row leaves out $f.c"
  done < <(comm -23 <(echo "$want") <(echo "$have"))
  while read -r f; do
    [ -n "$f" ] && complain "the drawing's $l/ row names $f, which is no $l/$f.c"
  done < <(comm -13 <(echo "$want") <(echo "$have"))
done
for l in "${!named[@]}"; do
  [ -d "$(folder_path "$l")" ] || complain "the drawing names $l/, which is no folder"
done

# 2. the Source map
map=$(awk '/^## Source map/ { on = 1; next } on && /^## / { exit } on && /^\|/ { print }' "$doc")
[ -n "$map" ] || complain "no Source map table"
for l in "${layers[@]}"; do
  [ "$l" = server ] && continue
  rel=${l/#/server/}
  [ "$l" = proto ] && rel=proto
  grep -q "^| \`$rel/" <<< "$map" || complain "the Source map has no row for $rel/"
done
# shellcheck disable=SC2016 # the backquotes are Markdown's, matched literally
while IFS= read -r row; do
  folder=$(sed -n 's/^| `\([^`]*\)`.*/\1/p' <<< "$row")
  [ -n "$folder" ] || continue
  case $folder in
    */) dir=$root/$folder ;;
    *) dir=$root/$(dirname "$folder") ;;  # a row for one file or a few: server/main.c, ...
  esac
  [ -d "$dir" ] || { complain "the Source map names $folder, which is no folder"; continue; }
  for f in $(grep -o '`[A-Za-z0-9_]*\.[ch]`' <<< "$row" | tr -d '`' | sort -u); do
    [ -e "$dir/$f" ] || complain "the Source map's $folder row names $f, which is not in $dir"
  done
done <<< "$map"
exit $fail
