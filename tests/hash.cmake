# Tests of the hash commands (server/commands/cmd_hash.c, on server/data/omap.[ch], whose own
# tests are in omap.cmake). include()d from tests/CMakeLists.txt after integration.cmake
# (fragments are included in name order), so relative paths start in tests/ and rbkv_harness
# exists.

# End-to-end against the real server with hiredis: every command, its errors, keyspace events,
# writes counted, the log's replay, RESP3 shapes, and a random differential run against a model
# and, where a redis-server is installed, against it side by side (SEED=<n> replays a run).
rbkv_server_test(integration_hash integration/test_hash.c 180 integration)
# Against redis-server itself, but for the rbkv-only checks, which skip themselves there.
rbkv_on_redis(integration_hash)
