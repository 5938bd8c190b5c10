# Tests of the ordered keyspace commands (server/commands/cmd_ordered.c, cmd_scan.c, krange.[ch],
# lexrange.[ch]). include()d from tests/CMakeLists.txt after integration.cmake (fragments are
# included in name order), so relative paths start in tests/ and rbkv_harness exists.
# Both executables run the differential test of unit/ordered_diff.[ch]; SEED=<n> in the
# environment replays a run of it.

# In-process, through the dispatcher: one CTest test per part, so a failure names its part.
# ordered_random (250,000 operations) takes about 1 s at -O2 and 6 s under ASan.
add_executable(test_ordered unit/test_ordered.c unit/ordered_diff.c)
target_link_libraries(test_ordered PRIVATE rbkv_server_core PkgConfig::HIREDIS)
foreach(part lexrange spans resp3 cursors random)
  add_test(NAME ordered_${part} COMMAND test_ordered ${part})
  set_tests_properties(ordered_${part} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# End-to-end against the real server: about 3 s, most of it the random part's 3 ms sleeps after
# each expiry; under ASan the random part runs a third of the operations, and the whole about 2 s.
rbkv_server_test(integration_ordered integration/test_ordered.c 120 integration)
target_sources(test_integration_ordered PRIVATE unit/ordered_diff.c)
target_include_directories(test_integration_ordered PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)

# Streamed replies (server/core/stream.c, server/commands/listing.c): 300,000 keys loaded for each
# of its parts; about 10 s, most of it loading.
rbkv_server_test(integration_stream integration/test_stream.c 300 integration)
