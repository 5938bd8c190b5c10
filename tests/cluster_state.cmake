# Cluster mode's state without the bus (server/cluster/, server/commands/cmd_cluster.c): the CLUSTER
# commands, nodes.conf and redirection (issue 35), with redis-server 7.0.15 as its twin.
# include()d from tests/CMakeLists.txt, so relative paths start in tests/.
rbkv_server_test(integration_cluster_state integration/test_cluster_state.c 180 integration)
rbkv_on_redis(integration_cluster_state)
