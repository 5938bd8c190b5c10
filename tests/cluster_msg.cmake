# Tests of the cluster bus's codec (server/cluster/cluster_msg.c). include()d from
# tests/CMakeLists.txt, so relative paths start in tests/.

# Every message type encoded and decoded back, and every malformed shape refused.
add_executable(test_cluster_msg unit/test_cluster_msg.c)
target_link_libraries(test_cluster_msg PRIVATE rbkv_cluster)
add_test(NAME cluster_msg COMMAND test_cluster_msg)
set_tests_properties(cluster_msg PROPERTIES LABELS unit TIMEOUT 60)

# The codec against a real redis-server 7.0.15 in cluster mode: a node of the test's making
# MEETs it, ends the handshake, gossips, gives itself slots, exchanges PUBLISH, draws an UPDATE and
# a FAIL; every message Redis sends decodes to what its CLUSTER commands say and encodes back to
# Redis's bytes. Skips without redis-server.
rbkv_server_test(integration_cluster_bus integration/test_cluster_bus.c 120 integration)
target_link_libraries(test_integration_cluster_bus PRIVATE rbkv_cluster)
set_tests_properties(integration_cluster_bus PROPERTIES SKIP_RETURN_CODE 77)
