# The cluster bus's links (server/cluster/cluster_bus.c, cluster_gossip.c, cluster_failure.c):
# MEET, gossip, slot-map agreement and failure detection between real nodes, rbkv alone and
# mixed with redis-server 7.0.15 (issue 35). include()d from tests/CMakeLists.txt.
rbkv_server_test(integration_cluster_gossip integration/test_cluster_gossip.c 300 integration)
# Replicas and failover (server/cluster/cluster_failover.c): redis-cli --cluster create with
# replicas, kill -9 of a primary, CLUSTER FAILOVER [FORCE|TAKEOVER], and elections with
# redis-server 7.0.15 voters and candidates.
rbkv_server_test(integration_cluster_failover integration/test_cluster_failover.c 600 integration)
# Pub/sub over the bus (server/cluster/cluster_pubsub.c): PUBLISH to every node, SPUBLISH to the
# slot's shard, rbkv alone and mixed with redis-server 7.0.15.
rbkv_server_test(integration_cluster_pubsub integration/test_cluster_pubsub.c 300 integration)
# The bus over TLS (tls-cluster yes; tests/integration/test_cluster_tls.sh says what it checks):
# redis-cli --tls --cluster create, the ports each kind of client is told, keys and PUBLISH across
# nodes, and a redis-server 7.0.15 node joining. The same script against Debian's redis-server:
#   tests/integration/test_cluster_tls.sh /usr/bin/redis-server
add_test(NAME integration_cluster_tls
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cluster_tls.sh $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_cluster_tls PROPERTIES LABELS integration TIMEOUT 240
                     SKIP_RETURN_CODE 77)
rbkv_script_on_redis(integration_cluster_tls ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cluster_tls.sh)
# Redirections beyond the request: the commands scripts run, and clients blocked on keys whose
# slot moved or whose cluster went down (server/cluster/cluster_route.c), side by side with redis-server.
rbkv_server_test(integration_cluster_redirect integration/test_cluster_redirect.c 180 integration)
# Slot moves back to back (tests/integration/test_cluster_moves.sh): a primary taking an imported
# slot tells every node at once, and 20 moves in a row leave one slot map.
add_test(NAME integration_cluster_moves
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cluster_moves.sh $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_cluster_moves PROPERTIES LABELS "integration;cluster" TIMEOUT 240
                     SKIP_RETURN_CODE 77)
rbkv_script_on_redis(integration_cluster_moves ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cluster_moves.sh)
