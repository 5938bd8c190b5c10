#!/usr/bin/env bash
# The docs check: the docs must match the code, so a new command, setting or moved heading fails
# `make test` until the docs follow. Starts the built server on a free loopback port (as the script
# tests do, through tests/integration/server.sh) and checks:
#   - every command of COMMAND LIST (COMMAND, on a server without LIST) has a `### NAME` heading in
#     docs/commands.md, and every `### ` heading there is exactly one command name in upper case
#     (container subcommands such as CONFIG GET are described under ### CONFIG);
#   - every setting of CONFIG GET * is the first cell of a table row in docs/operations.md, and every
#     first-cell name of the configuration table is a setting;
#   - every relative link in README.md, docs/*.md, bench/README.md and client/README.md points to a
#     file or folder that exists, and its #anchor, if any, to a heading of the .md file it names.
# usage: tests/docs/check_commands.sh SERVER_BIN REPO_DIR
# Exits 0 when all pass, 1 when one fails (each failure printed), 2 on bad usage, 77 without redis-cli.
set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 SERVER_BIN REPO_DIR" >&2
  exit 2
fi
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found" >&2; exit 77; }
here=$(dirname "$0")
repo=$(cd "$2" && pwd) || exit 2
server=$1
[[ $server == */* && $server != /* ]] && server=$PWD/$server # server.sh starts it in a temp dir
# shellcheck source-path=SCRIPTDIR source=../integration/server.sh
. "$here/../integration/server.sh"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
cli() { redis-cli -h 127.0.0.1 -p "$SERVER_PORT" "$@"; }
export LC_ALL=C

# ---- commands ----
server_start "$server" || exit 1
commands=$(cli COMMAND LIST | grep -v '|' | tr '[:lower:]' '[:upper:]' | sort -u)
if ! grep -qx PING <<<"$commands"; then
  # No COMMAND LIST: the name is the first element of each entry of COMMAND, whose top-level
  # index ("  1)  1) \"ping\"") is as wide as the first line's; nested ones are indented further.
  commands=$(cli --no-raw COMMAND | awk '
    { i = index($0, ")"); if (NR == 1) w = i }
    i == w && substr($0, 1, i - 1) ~ /^ *[0-9]+$/ && match($0, /^ *[0-9]+\) +1\) "/) {
      name = substr($0, RLENGTH + 1); sub(/"$/, "", name); print name }' | tr '[:lower:]' '[:upper:]' | sort -u)
fi
settings=$(cli CONFIG GET '*' | awk 'NR % 2 == 1' | sort -u)
server_stop || fail "the server did not stop cleanly"
[ -n "$commands" ] || { echo "FAIL: no command names from the server" >&2; exit 1; }
[ -n "$settings" ] || { echo "FAIL: no settings from CONFIG GET *" >&2; exit 1; }

# Sets as associative arrays: a grep per name would fork hundreds of times.
declare -A is_command=() is_heading=() is_setting=() is_documented=()
while IFS= read -r c; do is_command[$c]=1; done <<<"$commands"
while IFS= read -r s; do is_setting[$s]=1; done <<<"$settings"

doc=$repo/docs/commands.md
[ -f "$doc" ] || { echo "FAIL: $doc is missing" >&2; exit 1; }
while IFS= read -r h; do
  if ! [[ $h =~ ^[A-Z][A-Z0-9_-]*$ ]]; then
    fail "docs/commands.md: heading '### $h' is not one command name in upper case"
  elif [ -z "${is_command[$h]:-}" ]; then
    fail "docs/commands.md: '### $h' is not a command of the server"
  elif [ -n "${is_heading[$h]:-}" ]; then
    fail "docs/commands.md: '### $h' is given twice"
  fi
  is_heading[$h]=1
done < <(sed -n 's/^### //p' "$doc")
for c in "${!is_command[@]}"; do
  [ -n "${is_heading[$c]:-}" ] || fail "docs/commands.md: no '### $c' heading for the command $c"
done

# ---- settings ----
ops=$repo/docs/operations.md
[ -f "$ops" ] || { echo "FAIL: $ops is missing" >&2; exit 1; }
# The names in backquotes in the first cell of the table under "## Configuration".
# shellcheck disable=SC2016 # the backquotes are markdown, not a command substitution
documented=$(awk '/^## /{ on = ($0 == "## Configuration") } on && /^\| `/' "$ops" |
  cut -d'|' -f2 | grep -o '`[^`]*`' | tr -d '`' | sort -u)
while IFS= read -r s; do
  [ -n "$s" ] && is_documented[$s]=1
  [ -z "$s" ] || [ -n "${is_setting[$s]:-}" ] ||
    fail "docs/operations.md: '$s' in the configuration table is not a setting of CONFIG GET *"
done <<<"$documented"
for s in "${!is_setting[@]}"; do
  [ -n "${is_documented[$s]:-}" ] || fail "docs/operations.md: the setting $s has no row in the configuration table"
done

# ---- links ----
# slugs FILE: the anchors GitHub makes of FILE's headings (outside code blocks): lower case, only
# letters, digits, spaces, '-' and '_' kept, spaces turned into '-', a repeated one suffixed -1, -2...
slugs() {
  awk '/^```/ { code = !code; next }
       !code && /^#+ / {
         s = $0; sub(/^#+ +/, "", s); s = tolower(s)
         gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s)
         if (s in seen) { n = seen[s]++; print s "-" n } else { seen[s] = 1; print s }
       }' "$1"
}
checked=0
declare -A anchors=() # "file#anchor" -> 1, for every .md file a link named so far
for md in "$repo/README.md" "$repo"/docs/*.md "$repo/bench/README.md" "$repo/client/README.md"; do
  [ -f "$md" ] || { fail "${md#"$repo"/} is missing"; continue; }
  dir=$(dirname "$md")
  # Link targets outside code blocks and code spans: the (...) after a ](.
  # shellcheck disable=SC2016 # the backquotes are markdown, not a command substitution
  targets=$(awk '/^```/ { code = !code; next } !code' "$md" | sed 's/`[^`]*`//g' |
    grep -o '](\([^)]*\))' | sed 's/^](//; s/)$//; s/ .*//')
  while IFS= read -r t; do
    [ -n "$t" ] || continue
    case $t in http://* | https://* | mailto:*) continue ;; esac
    checked=$((checked + 1))
    path=${t%%#*} anchor=
    [ "$path" != "$t" ] && anchor=${t#*#}
    if [ -z "$path" ]; then
      target=$md
    else
      target=$dir/$path
    fi
    where="${md#"$repo"/}: link ($t)"
    if [ ! -e "$target" ]; then
      fail "$where: no such file"
    elif [ -n "$anchor" ]; then
      if [[ $target != *.md ]]; then
        fail "$where: an anchor into a file that is not markdown"
      else
        target=$(realpath "$target")
        if [ -z "${anchors[$target#]:-}" ]; then
          anchors[$target#]=1
          while IFS= read -r a; do anchors[$target#$a]=1; done < <(slugs "$target")
        fi
        [ -n "${anchors[$target#$anchor]:-}" ] || fail "$where: no heading with the anchor #$anchor"
      fi
    fi
  done <<<"$targets"
done

if [ "$failures" -ne 0 ]; then
  echo "$failures docs check(s) failed" >&2
  exit 1
fi
echo "docs: $(wc -l <<<"$commands") commands, $(wc -l <<<"$settings") settings, $checked links: all documented and found"
