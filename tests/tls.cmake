# TLS (issue #23; tests/integration/test_tls.sh says what it checks): redis-cli and
# redis-benchmark over TLS, refused certificates and protocols, plaintext to the TLS port, the
# certificate's reload by CONFIG SET, and the start refused on a bad certificate. Certificates are
# made at test time by openssl. Skips (exit 77) without openssl, redis-cli or redis-benchmark.
# The same script against Debian's redis-server, the yardstick:
#   tests/integration/test_tls.sh /usr/bin/redis-server
add_test(NAME integration_tls
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_tls.sh $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_tls PROPERTIES LABELS integration TIMEOUT 180 SKIP_RETURN_CODE 77)
rbkv_script_on_redis(integration_tls ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_tls.sh)
