# Automatic failover under Redis Sentinel (tests/integration/test_sentinel.sh says what it checks):
# three servers and three Debian redis-sentinel processes; a kill -9 of the primary, its restart,
# and a SENTINEL FAILOVER; with tests/clients/node_modules present, an ioredis client writes
# through the sentinels across the kill -9. include()d from tests/CMakeLists.txt, so relative
# paths start in tests/. Skips (exit 77) without redis-sentinel or redis-cli (scripts/deps.sh test),
# and while the server has no PUBLISH/SUBSCRIBE, which Sentinel needs (SENTINEL_FORCE=1 in the
# environment runs it anyway, to see how Sentinel fails).
# The same script against Debian's redis-server, the yardstick it was written against:
#   tests/integration/test_sentinel.sh /usr/bin/redis-server
add_test(NAME integration_sentinel
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_sentinel.sh $<TARGET_FILE:rbkv-server>)
# About 35 s when it passes; each failed wait is bounded by 30-40 s.
set_tests_properties(integration_sentinel PROPERTIES LABELS integration TIMEOUT 300
                     SKIP_RETURN_CODE 77)
rbkv_script_on_redis(integration_sentinel ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_sentinel.sh)
# The failover tests time their servers' answers (down-after-milliseconds 1000): one at a time, so
# a busy machine does not make the sentinels judge a healthy primary down (production.cmake too).
foreach(t integration_sentinel integration_sentinel_on_redis)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES RESOURCE_LOCK sentinel_failover)
  endif()
endforeach()
# Ordering only: when both run, the client tests' npm ci comes first, so the client part runs.
if(TEST integration_clients_node)
  set_tests_properties(integration_sentinel PROPERTIES DEPENDS integration_clients_node)
  if(TEST integration_sentinel_on_redis)
    set_tests_properties(integration_sentinel_on_redis PROPERTIES DEPENDS integration_clients_node)
  endif()
endif()
