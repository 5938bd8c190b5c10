# shellcheck shell=bash
# free_port, the script tests' one way to pick a loopback port; sourced by server.sh and
# instances.sh (harness.c's free_port is its C counterpart).
#   free_port [PORT...]   prints a port nothing listens on just now, none of the PORTs given
# Another program may still take it before the caller's bind: callers retry on a new port.
free_port() {
  local p q used
  while :; do
    p=$((20000 + RANDOM % 40000))
    used=0
    for q in "$@"; do [ "$q" = "$p" ] && used=1; done
    [ "$used" -eq 0 ] || continue
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
