# Real clients against rbkv (issue #11): hiredis's async API on its libuv adapter, redis-cli's
# bulk, scan, stat, latency, RESP3 and interactive modes, and the Node.js clients node-redis and
# ioredis pinned by tests/clients/package-lock.json, also over TLS with client certificates
# (tls.test.js). include()d from tests/CMakeLists.txt, so
# relative paths start in tests/. The scripts skip (exit 77) when a tool they need is missing;
# scripts/deps.sh test installs them.
rbkv_server_test(integration_hiredis_async integration/test_hiredis_async.c 120 integration)
target_link_libraries(test_integration_hiredis_async PRIVATE PkgConfig::LIBUV)

add_test(NAME integration_redis_cli
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/redis_cli.sh $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_redis_cli PROPERTIES LABELS integration TIMEOUT 180
                     SKIP_RETURN_CODE 77)

# npm ci on a first run downloads the pinned packages: the TIMEOUT leaves room for that.
add_test(NAME integration_clients_node
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/clients/run.sh $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_clients_node PROPERTIES LABELS "integration;clients" TIMEOUT 300
                     SKIP_RETURN_CODE 77)

# redis-py's RedisCluster, ioredis's Cluster and node-redis's createCluster against a cluster of
# 3 primaries and 3 replicas made by redis-cli --cluster create (issue 35), reads from replicas,
# and a failover seen by redis-py and by ioredis (each kills a primary).
add_test(NAME integration_clients_cluster
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/clients/cluster/run.sh $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_clients_cluster PROPERTIES LABELS "integration;clients;cluster"
                     TIMEOUT 420 SKIP_RETURN_CODE 77)
rbkv_script_on_redis(integration_clients_cluster ${CMAKE_CURRENT_SOURCE_DIR}/clients/cluster/run.sh)

# redis-benchmark --cluster through a cluster of 3 primaries and 3 replicas (issue 35).
add_test(NAME integration_cluster_benchmark
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cluster_benchmark.sh
                 $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_cluster_benchmark PROPERTIES LABELS "integration;cluster"
                     TIMEOUT 180 SKIP_RETURN_CODE 77)
rbkv_script_on_redis(integration_cluster_benchmark
                     ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cluster_benchmark.sh)
