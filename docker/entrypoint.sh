#!/bin/sh
# The image's entrypoint: turns `docker run rbkv [config.conf] [--name value ...]` into one rbkv-server
# command line, then execs it, so the server is PID 1 and receives `docker stop`'s SIGTERM itself.
#
# As with the redis image: a first argument that starts with `-` or ends in `.conf` is for the server;
# `rbkv-server ...` runs the server too; anything else (`rbkv-cli -h db ping`, `sh`) runs as given.
# Container defaults come first, so the config file and the flags override them (the server applies
# the file first, then the flags in order, the last one winning):
#   --bind 0.0.0.0        the published port reaches the server only through the container's interface;
#   --protected-mode no   clients arrive through Docker's NAT, never from loopback, so protected mode
#                         would refuse them all: set a password instead (docs/operations.md, "Run in a container").
# Each default is left out when the config file sets that name, so a file can set its own.
# RBKV_PASSWORD, when set, becomes --requirepass; rbkv-cli (and so the healthcheck) reads the same variable.
#
# The recommended production configuration (docs/operations.md) by variables, each a path in the container:
#   RBKV_TLS_CERT_FILE, RBKV_TLS_KEY_FILE, RBKV_TLS_CA_CERT_FILE (all three): TLS only on 6379:
#     --port 0 --tls-port 6379, those files, --tls-replication yes (clients need a certificate from the CA,
#     tls-auth-clients' default); the healthcheck connects with the same files.
#   RBKV_ACLFILE: --aclfile; protected mode then stays on (it refuses no one while the file's default
#     user has a password or is off), and RBKV_PASSWORD is refused: the file defines the default user.
set -eu

case "${1:-}" in
  rbkv-server) shift ;;
  -*|*.conf|'') ;;
  *) exec "$@" ;;
esac

conf=
case "${1:-}" in
  -*|'') ;;
  *) conf=$1; shift
     [ -r "$conf" ] || { echo "rbkv: cannot read config file $conf (mounted? readable by uid $(id -u)?)" >&2; exit 1; } ;;
esac

# file_sets NAME: the config file has a NAME line (names are case-insensitive, as the server reads them).
file_sets() { [ -n "$conf" ] && grep -qiE "^[[:space:]]*$1([[:space:]]|\$)" "$conf"; }

die() { echo "rbkv: $*" >&2; exit 1; }
tls_set=0
for v in "${RBKV_TLS_CERT_FILE:-}" "${RBKV_TLS_KEY_FILE:-}" "${RBKV_TLS_CA_CERT_FILE:-}"; do
  [ -z "$v" ] || tls_set=$((tls_set + 1))
done
case $tls_set in
  0|3) ;;
  *) die "set all three of RBKV_TLS_CERT_FILE, RBKV_TLS_KEY_FILE and RBKV_TLS_CA_CERT_FILE, or none" ;;
esac
if [ -n "${RBKV_ACLFILE:-}" ] && [ -n "${RBKV_PASSWORD:-}" ]; then
  die "RBKV_PASSWORD and RBKV_ACLFILE together: set the default user's password (or 'off') in the ACL file"
fi

# Prepended in reverse, so the final order is:
#   [conf] --bind [--protected-mode] [--port 0 --tls-port ...] [--aclfile] [--requirepass] "$@".
if [ -n "${RBKV_PASSWORD:-}" ]; then set -- --requirepass "$RBKV_PASSWORD" "$@"; fi
if [ -n "${RBKV_ACLFILE:-}" ]; then set -- --aclfile "$RBKV_ACLFILE" "$@"; fi
if [ "$tls_set" = 3 ]; then
  set -- --port 0 --tls-port 6379 --tls-cert-file "$RBKV_TLS_CERT_FILE" --tls-key-file "$RBKV_TLS_KEY_FILE" \
    --tls-ca-cert-file "$RBKV_TLS_CA_CERT_FILE" --tls-replication yes "$@"
fi
[ -n "${RBKV_ACLFILE:-}" ] || file_sets protected-mode || set -- --protected-mode no "$@"
file_sets bind || set -- --bind 0.0.0.0 "$@"
if [ -n "$conf" ]; then set -- "$conf" "$@"; fi
exec rbkv-server "$@"
