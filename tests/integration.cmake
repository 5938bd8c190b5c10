# End-to-end tests (tests/integration/): each starts the real rbkv-server on a free loopback port,
# in a temp dir of its own, so they run in parallel. include()d from tests/CMakeLists.txt, so
# relative paths start in tests/. Every test gets the server binary as its first argument; the
# script tests skip (exit 77) when redis-cli or redis-benchmark is missing.
add_library(rbkv_harness STATIC integration/harness.c integration/harness_blocking.c
            integration/harness_dataset.c integration/harness_cluster.c)
# unit/ for rng.h (and lua_random_value.h): the random streams unit and integration tests share.
target_include_directories(rbkv_harness PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/integration
                                               ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_link_libraries(rbkv_harness PUBLIC PkgConfig::HIREDIS)

# name and TIMEOUT in seconds: generous, because under ASan on a busy 2-core box the server is
# several times slower than the usual few seconds each takes.
set(RBKV_INTEGRATION_PROGRAMS connection 120 strings 60 bitmap 120 keys 60 expiry 90 expiry_reads 120
    debug 60 notify 60
    command_info 60 hll 180 geo 180 sort 180 tracking 180 swapdb 60
    divergences 90)
while(RBKV_INTEGRATION_PROGRAMS)
  list(POP_FRONT RBKV_INTEGRATION_PROGRAMS name timeout)
  rbkv_server_test(integration_${name} integration/test_${name}.c ${timeout} integration)
endwhile()
# These pass against redis-server itself (their rbkv-only parts skip themselves there).
rbkv_on_redis(integration_bitmap)
rbkv_on_redis(integration_notify)
rbkv_on_redis(integration_hll)
rbkv_on_redis(integration_geo)
rbkv_on_redis(integration_sort)
rbkv_on_redis(integration_tracking)
rbkv_on_redis(integration_swapdb)

add_test(NAME integration_transcript
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/transcript.sh $<TARGET_FILE:rbkv-server>
                 ${CMAKE_CURRENT_SOURCE_DIR}/integration/transcripts)
add_test(NAME integration_benchmark_smoke
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/benchmark_smoke.sh
                 $<TARGET_FILE:rbkv-server>)
add_test(NAME integration_command_docs
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/command_docs_server.sh
                 $<TARGET_FILE:rbkv-server>)
# The start-up check that only rbkv's own commands carry docs in their rows
# (command_docs_misplaced): the shipped tables pass, a misplaced row is caught by its name.
add_executable(test_command_docs_table unit/test_command_docs_table.c)
target_link_libraries(test_command_docs_table PRIVATE rbkv_server_core)
add_test(NAME command_docs_table COMMAND test_command_docs_table)
set_tests_properties(command_docs_table PROPERTIES LABELS unit TIMEOUT 60)
# One redis-cli process per transcript line: a minute and more on a loaded machine.
set_tests_properties(integration_transcript integration_command_docs PROPERTIES
                     LABELS integration TIMEOUT 180 SKIP_RETURN_CODE 77)
# The transcripts' expected output is Redis 7.0's: printed again by redis-server itself.
rbkv_script_on_redis(integration_transcript ${CMAKE_CURRENT_SOURCE_DIR}/integration/transcript.sh
                     ${CMAKE_CURRENT_SOURCE_DIR}/integration/transcripts)
set_tests_properties(integration_benchmark_smoke PROPERTIES
                     LABELS integration TIMEOUT 300 SKIP_RETURN_CODE 77)

# Replication (server/replication/repl*.c): primaries, replicas, chains and failovers as real processes.
rbkv_server_test(integration_replication integration/test_replication.c 900 integration)
# Role changes (server/replication/repl_replica.c, server/core/blocking.c): what clients blocked,
# in MULTI, subscribed, monitoring or held by CLIENT PAUSE get when their server becomes a replica
# or a primary, and its own replicas; Redis 7.0.15's expectations, proved by the twin.
rbkv_server_test(integration_role_change integration/test_role_change.c 300 integration)
rbkv_on_redis(integration_role_change)
# FAILOVER (server/replication/repl_failover.c): the coordinated switch-over, its waits, TIMEOUT,
# FORCE, ABORT and errors; Redis 7.0.15's expectations, proved by the twin.
rbkv_server_test(integration_failover_cmd integration/test_failover_cmd.c 180 integration)
rbkv_on_redis(integration_failover_cmd)

# Publish/subscribe (server/core/pubsub.c, server/commands/cmd_pubsub.c).
rbkv_server_test(integration_pubsub integration/test_pubsub.c 180 integration)
rbkv_on_redis(integration_pubsub)

# Replication under random role switches among five servers (issue 34), with redis-server as its
# twin: the same seed, the same expectations. bench/repl_stress.sh runs it for longer.
rbkv_server_test(integration_repl_stress integration/test_repl_stress.c 120 integration)
rbkv_on_redis(integration_repl_stress)

# Chained replicas across topology changes, partial resync after a restart (issue 34), with
# redis-server as its twin.
rbkv_server_test(integration_repl_chain integration/test_repl_chain.c 180 integration)
rbkv_on_redis(integration_repl_chain)

# What a replica serves while it loads its primary's snapshot, by repl-diskless-load
# (server/replication/repl_replica.c, server/core/command.c), with redis-server as its twin.
rbkv_server_test(integration_diskless_load integration/test_diskless_load.c 120 integration)
rbkv_on_redis(integration_diskless_load)
