#!/bin/sh
# The image's HEALTHCHECK: healthy when the server on port 6379 answers PING.
# rbkv-cli authenticates with RBKV_PASSWORD when it is set. When the password was given another way
# (--requirepass, a config file, CONFIG SET, an ACL file) and the check does not know it, the server's
# "-NOAUTH Authentication required." is also a healthy answer: it parsed a command and replied.
# With RBKV_TLS_CERT_FILE (the entrypoint then serves TLS only on 6379), it connects over TLS with the
# server's own certificate as its client certificate, which the server's CA signed.
# rbkv-cli's own timeout (2 s) ends before the HEALTHCHECK's (5 s), so the check never leaves an
# orphan behind for PID 1 (the server, which reaps only its own children) to inherit.
if [ -n "${RBKV_TLS_CERT_FILE:-}" ]; then
  set -- --tls --cacert "${RBKV_TLS_CA_CERT_FILE:-}" --cert "$RBKV_TLS_CERT_FILE" --key "${RBKV_TLS_KEY_FILE:-}"
fi
out=$(rbkv-cli -p 6379 --timeout 2 "$@" ping 2>&1)
case "$out" in
  PONG|*NOAUTH*) exit 0 ;;
  *) echo "$out"; exit 1 ;;
esac
