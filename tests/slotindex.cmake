# Tests of the per-slot key index (server/data/slotindex.[ch]) through the keyspace that feeds it,
# against a model. include()d from tests/CMakeLists.txt, so relative paths start in tests/.
# SEED=<n> in the environment replays a run of the random parts.
add_executable(test_slotindex unit/test_slotindex.c)
target_link_libraries(test_slotindex PRIVATE rbkv_server_core)
# One CTest test per part, so a failure names its part; each is its own process because the
# index's switch is for the process (slotindex_off never turns it on).
foreach(part off random edge cut)
  add_test(NAME slotindex_${part} COMMAND test_slotindex ${part})
  set_tests_properties(slotindex_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()
