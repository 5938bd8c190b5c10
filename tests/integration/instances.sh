# shellcheck shell=bash
# Several processes of one script test (servers, sentinels), each on a free loopback port with a
# config file, a dir and a log of its own in $work; server.sh is the one-server counterpart.
# Sourced, not run, after the caller has set `work` (its temp dir) and READY_SECONDS, and defined:
#   write_conf NAME        writes $work/NAME.conf for ${port[NAME]}
#   instance_cmd NAME      sets the array INSTANCE_CMD to NAME's command line
#   instance_answers NAME  0 when NAME answers on ${port[NAME]} (any reply of the server's own)
# It provides:
#   pid, port              associative arrays by instance name (the caller's cleanup kills ${pid[@]})
#   start_instance NAME    a free port, write_conf, launch; another port when that one was taken
#   launch NAME            starts NAME from its config file as it is (a restart keeps what CONFIG
#                          REWRITE wrote) in $work/NAME.dir, appending to $work/NAME.log, and waits
#                          until it answers: 0; 1 when it never did; 2 when its port was taken
#   wait_until SECONDS COMMAND...   runs COMMAND every 0.2 s until it succeeds; 1 after SECONDS
# and an EXIT trap that kills every process in pid (a caller may add its own there) and removes
# $work, or keeps it, with each instance's log and config, when the test failed (status neither
# 0 nor 77, the skip) and prints its path.
declare -A pid port
INSTANCE_CMD=()

instances_cleanup() {
  local rc=$? p
  for p in "${pid[@]}"; do
    [ -n "$p" ] || continue
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then
    rm -rf "$work"
  else
    echo "logs and configs kept in $work" >&2
  fi
  return "$rc"
}
trap instances_cleanup EXIT

# free_port; start_instance asks for one that no instance here was given, and tries another when
# a program takes it before the bind.
# shellcheck source-path=SCRIPTDIR source=ports.sh
. "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

launch() {
  local name=$1 waited
  mkdir -p "$work/$name.dir"
  instance_cmd "$name"
  (cd "$work/$name.dir" && exec "${INSTANCE_CMD[@]}") >>"$work/$name.log" 2>&1 &
  pid[$name]=$!
  for ((waited = 0; waited < READY_SECONDS * 20; waited++)); do
    kill -0 "${pid[$name]}" 2>/dev/null || break
    # Ours only if still alive after the answer: another process may hold the port.
    instance_answers "$name" && kill -0 "${pid[$name]}" 2>/dev/null && return 0
    sleep 0.05
  done
  if kill -0 "${pid[$name]}" 2>/dev/null; then
    echo "$name never answered on port ${port[$name]}" >&2
    return 1
  fi
  wait "${pid[$name]}" 2>/dev/null
  pid[$name]=
  grep -qi "in use" "$work/$name.log" && return 2
  echo "$name did not start:" >&2
  tail -n 20 "$work/$name.log" >&2
  return 1
}

start_instance() {
  local attempt
  for ((attempt = 0; attempt < 5; attempt++)); do
    port[$1]=$(free_port "${port[@]}")
    write_conf "$1"
    launch "$1"
    case $? in
      0) return 0 ;;
      1) return 1 ;;
    esac
  done
  return 1
}

wait_until() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}
