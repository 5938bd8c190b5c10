# Tests of the append-only log (server/persist/aof.[ch]). include()d from tests/CMakeLists.txt before
# integration.cmake ("aof" sorts first), so the harness target is referenced by name only, which
# CMake resolves at generate time.

# End-to-end: restarts in the same dir, kill -9 under appendfsync always, a cut log trimmed, a
# corrupt one refused and untouched, --check-aof [--fix], MISCONF on a failed write.
rbkv_server_test(integration_aof integration/test_aof.c 120 integration)

# What a replay must see: transactions inside MULTI/EXEC (a cut one dropped whole), pops served
# after an EXEC, expiries logged as DEL with no expiry by the clock during the replay.
rbkv_server_test(integration_aof_replay integration/test_aof_replay.c 120 integration)
