# Tests of the stream consumer group commands (server/commands/cmd_xgroup.c on
# server/data/xgroup.[ch]). include()d from tests/CMakeLists.txt after integration.cmake.

# End-to-end against the real server with hiredis: replies and errors beside redis-server's in
# RESP2 and RESP3, blocking XREADGROUP, idle times, keyspace events, the snapshot, the log and its
# rewrite, a replica, and a random run against redis-server (SEED=<n> replays it).
rbkv_server_test(integration_xgroup integration/test_xgroup.c 240 integration)
# The parts that claim Redis's behaviour, run against redis-server itself (the persistence and
# replica parts compare rbkv with itself).
rbkv_on_redis(integration_xgroup test_same_as_redis test_idle_times test_blocking
              test_keyspace_events)

# The groups, consumers and PELs against a table model, xs_check (and xg_check) after every
# change; SEED=<n> replays.
add_executable(test_xgroup unit/test_xgroup.c)
target_link_libraries(test_xgroup PRIVATE rbkv_server_core)
add_test(NAME xgroup_random COMMAND test_xgroup)
set_tests_properties(xgroup_random PROPERTIES LABELS unit TIMEOUT 120)
