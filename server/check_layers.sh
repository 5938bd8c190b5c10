#!/usr/bin/env bash
# check_layers.sh SRC_DIR AR_DIR - the layer rules that include paths alone cannot hold, checked
# after every build of the server's libraries (server/CMakeLists.txt runs it; a failure fails the
# build). SRC_DIR is the repository, AR_DIR the folder holding the layers' static libraries.
# The rules and the picture of the layers: docs/internals.md, "Layers".
#   1. includes: each layer includes only its own headers and those of the layers below it;
#      proto/ and the tree include no server header and no <uv.h>; data/ no <uv.h>, no resp_*.h
#      but resp_num.h (integers as text, nothing of RESP), no clock; persist/ reaches core/ only
#      through server.h, config.h and command_table.h (the one cycle, core <-> persist), never
#      connections (client.h, conn.h) or commands; core/ includes nothing of scripting/,
#      replication/ or cluster/, scripting/ nothing of replication/; the transport (core/conn.c) includes, of
#      core, only what it names in CONN_MAY_INCLUDE: every module reaches it through the hooks it
#      registers (conn.h).
#   2. symbols (nm): no object of a layer calls or reads what a higher layer defines, except
#      persist -> core (the cycle); data/ reads no clock; base/ reads no server state.
#   3. declarations: X.h declares only functions and objects that X.c defines.
#   4. order inside a layer: its files never call each other in a loop (from the same nm), so
#      each layer reads bottom-up, file by file; tsort names the files of a loop.
set -uo pipefail
src=$1/server proto=$1/proto ar=$2
fail=0
complain() { echo "check_layers: $*" >&2; fail=1; }

layers=(rbtree base data persist core scripting replication cluster commands)
# The transport's own headers and the few of core it reads (the server's state, TLS, error
# counts); never a module's, not even the dispatcher's (conn.h's hooks reach those).
CONN_MAY_INCLUDE=" client.h conn.h server.h config.h tls.h errorstats.h "
rank() { # the layer's height, or 99 for what is no layer (system headers)
  local i
  for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done
  [ "$1" = proto ] && { echo 0; return; }
  echo 99
}
where() { # the folder of a quoted include's header, or "" for a header of no layer
  local d
  for d in "${layers[@]}"; do [ -f "$src/$d/$1" ] && { echo "$d"; return; }; done
  [ -f "$proto/$1" ] && { echo proto; return; }
  echo ""
}

# 1. includes
check_includes() { # FOLDER LAYER
  local f inc to
  for f in "$1"/*.[ch]; do
    while read -r inc; do
      to=$(where "$inc")
      [ -z "$to" ] && continue
      case $2:$to in
        proto:proto) ;;
        proto:*) complain "$f includes $inc: proto/ knows nothing of the server" ;;
        rbtree:rbtree) ;;
        rbtree:*) complain "$f includes $inc: the tree includes only its own headers" ;;
        persist:core)
          case $inc in
            server.h|config.h|command_table.h) ;;
            *) complain "$f includes $inc: persist/ reaches core/ only through server.h, config.h, command_table.h" ;;
          esac ;;
        *)
          if [ "$(rank "$to")" -gt "$(rank "$2")" ]; then
            complain "$f includes $inc: $2/ is below $to/"
          fi ;;
      esac
      if [ "$f" = "$src/core/conn.c" ] && [ "$to" = core ] && [[ $CONN_MAY_INCLUDE != *" $inc "* ]]; then
        complain "$f includes $inc: the transport knows no module (a hook in conn.h instead)"
      fi
      if [ "$2" = data ] && [ "$inc" = clock.h ]; then
        complain "$f includes clock.h: data/ never reads the clock (callers pass now)"
      fi
      case $2:$inc in
        data:resp_num.h) ;;
        data:resp_*) complain "$f includes $inc: data/ knows nothing of RESP" ;;
      esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
    if grep -q '^#include <uv.h>' "$f"; then
      case $2 in proto|rbtree|base|data) complain "$f includes <uv.h>: $2/ knows nothing of libuv" ;; esac
    fi
  done
}
check_includes "$proto" proto
for l in "${layers[@]}"; do check_includes "$src/$l" "$l"; done

# 2. symbols, from one nm per library: "object type symbol" lines.
lib_of() { case $1 in rbtree) echo rbtree ;; *) echo "rbkv_$1" ;; esac; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for l in "${layers[@]}"; do
  a=$ar/lib$(lib_of "$l").a
  [ -f "$a" ] || { complain "no $a"; continue; }
  nm -A "$a" 2>/dev/null | awk -v l="$l" '
    { n = split($1, p, ":"); t = $(NF-1); if (NF == 2) t = "U" }
    t == "U" { print l, p[n - 1], $NF > "'"$tmp"'/" l ".undef"; next }
    t ~ /^[TDBRC]$/ { print l, p[n - 1], $NF > "'"$tmp"'/" l ".def" }'
done
cat "$tmp"/*.def > "$tmp/all.def" 2>/dev/null
rank_list=$(printf '%s ' "${layers[@]}")
# A use resolves to the layer that defines the symbol; a use upwards is a violation but for the
# cycle's direction, persist -> core.
cat "$tmp"/*.undef 2>/dev/null | awk -v layers="$rank_list" '
  BEGIN { n = split(layers, L, " "); for (i = 1; i <= n; i++) R[L[i]] = i }
  FILENAME ~ /all.def$/ { owner[$3] = $1; next }
  {
    if ($1 == "data" && $3 ~ /^(gettimeofday|clock_gettime|time|mstime|ustime)$/)
      printf "%s/%s uses %s: data/ never reads the clock\n", $1, $2, $3
    to = owner[$3]
    if (to == "" || to == $1 || ($1 == "persist" && to == "core")) next
    if (R[to] > R[$1]) printf "%s/%s uses %s, defined in %s/: a layer never reaches a higher one\n", $1, $2, $3, to
  }' "$tmp/all.def" - > "$tmp/violations"
while read -r line; do complain "$line"; done < "$tmp/violations"

# 3. X.h declares only what X.c defines: every prototype at file scope (outside braces and
# comments, not static, ending in ");") names a function that X.c.o defines, and every extern
# declaration an object it defines.
for l in "${layers[@]}"; do
  for h in "$src/$l"/*.h; do
    c=${h%.h}.c
    [ -f "$c" ] || continue
    obj=$(basename "$c").o
    awk -v o="$obj" -v l="$l" '
      FILENAME ~ /\.def$/ { if ($1 == l && $2 == o) have[$3] = 1; next }
      {
        line = $0
        if (incomment) { if (sub(/.*\*\//, "", line)) incomment = 0; else next }
        gsub(/\/\*.*\*\//, "", line)
        if (sub(/\/\*.*/, "", line)) incomment = 1
        # A macro ends at a line without a trailing backslash: its continuation lines
        # (an error text saying "kept); ", say) are no declaration.
        if (inmacro || line ~ /^#/) { inmacro = line ~ /\\[ \t]*$/; next }
        opens = gsub(/\{/, "{", line); closes = gsub(/\}/, "}", line)
        if (depth == 0 && opens == 0 && line !~ /^[ \t]*$/) decl = decl " " line
        depth += opens - closes
        if (opens || closes) { decl = ""; next }
        if (depth == 0 && line ~ /;[ \t]*$/) {
          name = ""
          if (decl ~ /(^|[ \t])extern[ \t]/ && match(decl, /[A-Za-z_][A-Za-z0-9_]*[ \t]*(\[[^]]*\])?[ \t]*;/)) {
            name = substr(decl, RSTART, RLENGTH); sub(/[ \t]*(\[.*)?;$/, "", name)
          } else if (decl ~ /\)[ \t]*(__attribute__.*)?;/ && decl !~ /(^|[ \t])(static|typedef)[ \t]/ &&
                     decl !~ /=/ && match(decl, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
            name = substr(decl, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
          }
          if (name != "" && !have[name]) printf "%s declares %s, which %s does not define\n", FILENAME, name, o
          decl = ""
        }
      }' "$tmp/all.def" "$h"
  done
done > "$tmp/decls"
while read -r line; do complain "$line"; done < "$tmp/decls"

# 4. "caller callee" pairs of objects within one layer, sorted per layer by tsort, which
# reports a loop on stderr and goes on.
cat "$tmp"/*.undef 2>/dev/null | awk '
  FILENAME ~ /all.def$/ { layer[$3] = $1; obj[$3] = $2; next }
  layer[$3] == $1 && obj[$3] != $2 { print $1, $2, obj[$3] }' "$tmp/all.def" - | sort -u > "$tmp/calls"
for l in "${layers[@]}"; do
  loop=$(awk -v l="$l" '$1 == l { print $2, $3 }' "$tmp/calls" | tsort 2>&1 >/dev/null |
         sed -n 's/^tsort: \([^ ]*\.o\)$/\1/p' | awk '!seen[$0]++' | tr '\n' ' ')
  [ -n "$loop" ] && complain "$l/: its files call each other in a loop: $loop"
done

exit $fail
