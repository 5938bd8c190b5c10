# Ordered queries across the cluster (server/cluster/cluster_query.c, cluster_ksplit.c, cluster_qlink.c; issue 35):
# three rbkv primaries compared with one standalone node. include()d from tests/CMakeLists.txt.
rbkv_server_test(integration_cluster_ordered integration/test_cluster_ordered.c 300 integration)
