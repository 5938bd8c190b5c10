# Tests of the set commands (server/commands/cmd_set.c; the value is server/data/omap.[ch], whose
# own tests are in omap.cmake). include()d from tests/CMakeLists.txt after integration.cmake
# (fragments are included in name order), so rbkv_server_test exists.

# End-to-end against the real server with hiredis: every command, its errors, RESP3 shapes,
# keyspace events, SPOP through the append-only log and a restart, and a random differential part
# against a model and, where /usr/bin/redis-server is installed, Redis itself. SEED=<n> replays.
rbkv_server_test(integration_set integration/test_set.c 180 integration)
# Against redis-server itself, its arbitrary member order sorted before comparing.
rbkv_on_redis(integration_set)
