# The recommended production configuration (issue #23; tests/integration/test_production.sh says what
# it checks): docs/examples/production's files, as docs/operations.md shows them, on a primary, a
# replica and a Debian redis-sentinel, all TLS only with ACL users, and a SENTINEL FAILOVER.
# Skips (exit 77) without openssl, redis-cli or redis-sentinel (scripts/deps.sh test).
# The same script against Debian's redis-server, the yardstick:
#   tests/integration/test_production.sh /usr/bin/redis-server
add_test(NAME integration_production
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_production.sh $<TARGET_FILE:rbkv-server>)
# About 40 s when it passes, most of it the failover; each failed wait is bounded (20-60 s).
set_tests_properties(integration_production PROPERTIES LABELS integration TIMEOUT 300
                     SKIP_RETURN_CODE 77)
rbkv_script_on_redis(integration_production
                     ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_production.sh)
# One failover test at a time (sentinel.cmake says why).
foreach(t integration_production integration_production_on_redis)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES RESOURCE_LOCK sentinel_failover)
  endif()
endforeach()
