# Ordered queries across the cluster (server/cluster/cluster_query.c, cluster_ksplit.c, cluster_qlink.c; issue 35):
# three rbkv primaries compared with one standalone node. include()d from tests/CMakeLists.txt.
rbkv_server_test(integration_cluster_ordered integration/test_cluster_ordered.c 300 integration)
# KSPLIT over 1,100,000 keys on three primaries against one node, and its rounds as docs/cluster.md
# gives them; the keys go in with rbkv-cli -c load.
rbkv_server_test(integration_cluster_ksplit_big integration/test_cluster_ksplit_big.c 180 integration cluster)
target_compile_definitions(test_integration_cluster_ksplit_big PRIVATE
                           RBKV_CLI_BIN="$<TARGET_FILE:rbkv-cli>")
add_dependencies(test_integration_cluster_ksplit_big rbkv-cli)
