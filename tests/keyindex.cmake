# Tests of the hash index beside the keyspace's tree (server/data/keyindex.[ch]): the hash's reads and
# mixing, a randomized differential test of the index through many resizes, and keyspace operations
# that move and delete entries. include()d from tests/CMakeLists.txt, so relative paths start in
# tests/. SEED=<n> in the environment replays a run.
add_executable(test_keyindex unit/test_keyindex.c)
target_link_libraries(test_keyindex PRIVATE rbkv_server_core)
# One CTest test per part, so a failure names its part.
foreach(part hash index keyspace)
  add_test(NAME keyindex_${part} COMMAND test_keyindex ${part})
  set_tests_properties(keyindex_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()
