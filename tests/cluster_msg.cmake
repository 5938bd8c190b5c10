# Tests of the cluster bus's codec (server/cluster/cluster_msg.c). include()d from
# tests/CMakeLists.txt, so relative paths start in tests/.

# Every message type encoded and decoded back, and every malformed shape refused.
add_executable(test_cluster_msg unit/test_cluster_msg.c)
target_link_libraries(test_cluster_msg PRIVATE rbkv_cluster)
add_test(NAME cluster_msg COMMAND test_cluster_msg)
set_tests_properties(cluster_msg PROPERTIES LABELS unit TIMEOUT 60)
