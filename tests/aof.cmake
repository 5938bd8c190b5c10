# Tests of the append-only log (server/aof.[ch]). include()d from tests/CMakeLists.txt after
# integration.cmake (fragments are included in name order... "aof" sorts first, so the harness
# target is referenced by name only, which CMake resolves at generate time).

# End-to-end: restarts in the same dir, kill -9 under appendfsync always, a cut log trimmed, a
# corrupt one refused and untouched, --check-aof [--fix], MISCONF on a failed write.
add_executable(test_integration_aof integration/test_aof.c)
target_link_libraries(test_integration_aof PRIVATE rbkv_harness)
add_test(NAME integration_aof COMMAND test_integration_aof $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_aof PROPERTIES LABELS integration TIMEOUT 120)

# What a replay must see: transactions inside MULTI/EXEC (a cut one dropped whole), pops served
# after an EXEC, expiries logged as DEL with no expiry by the clock during the replay.
add_executable(test_integration_aof_replay integration/test_aof_replay.c)
target_link_libraries(test_integration_aof_replay PRIVATE rbkv_harness)
add_test(NAME integration_aof_replay COMMAND test_integration_aof_replay $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_aof_replay PROPERTIES LABELS integration TIMEOUT 120)
