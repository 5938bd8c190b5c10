# bench/loadgen (the latency benchmark's load generator, bench/latency_vs_redis.sh) against a
# fresh server: percentiles per command, and a stall charged from the requests' due times.
if(RBKV_BENCH)
  add_test(NAME integration_loadgen_smoke
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/loadgen_smoke.sh
                   $<TARGET_FILE:rbkv-server> $<TARGET_FILE:loadgen>)
  set_tests_properties(integration_loadgen_smoke PROPERTIES
                       LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77)
endif()
