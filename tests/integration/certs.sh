# shellcheck shell=bash
# Test certificates made by openssl at test time (never committed), for the TLS tests
# (test_tls.sh, test_cluster_tls.sh, test_production.sh, tests/clients/run.sh). Sourced, not run,
# after setting CERTS to a temp dir:
#   certs_ca NAME                  # a self-signed CA: NAME.key, NAME.crt
#   certs_make NAME CN CA [days] [extension]
#                                  # NAME.key, NAME.crt signed by CA, valid for days (default 2;
#                                  # -1 makes an expired one), with one more X.509 v3 extension
#                                  # line, e.g. extendedKeyUsage=clientAuth for a client-only one
#   certs_basic                    # the set every TLS test starts from: the CA ca, and server
#                                  # (CN localhost) and client (CN client) signed by it
# Every certificate names localhost and 127.0.0.1 as subject alternative names, so clients that
# check the server's name (Node's tls) accept it on the loopback address.
certs_ca() {
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$CERTS/$1.key" -out "$CERTS/$1.crt" \
    -days 2 -subj "/CN=$1" 2>/dev/null
}
certs_make() {
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n%s\n' "${5:-}" >"$CERTS/$1.ext" &&
    openssl req -newkey rsa:2048 -nodes -keyout "$CERTS/$1.key" -out "$CERTS/$1.csr" \
      -subj "/CN=$2" 2>/dev/null &&
    openssl x509 -req -in "$CERTS/$1.csr" -CA "$CERTS/$3.crt" -CAkey "$CERTS/$3.key" \
      -CAcreateserial -extfile "$CERTS/$1.ext" -out "$CERTS/$1.crt" -days "${4:-2}" 2>/dev/null
}
certs_basic() {
  certs_ca ca && certs_make server localhost ca && certs_make client client ca
}
