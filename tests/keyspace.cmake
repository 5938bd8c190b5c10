# Tests of the keyspace (server/data/keyspace.[ch]): directed edge cases and a randomized differential
# test against a sorted-array model. include()d from tests/CMakeLists.txt, so relative paths start
# in tests/. SEED=<n> in the environment replays a run of the random part.
add_executable(test_keyspace unit/test_keyspace.c)
target_link_libraries(test_keyspace PRIVATE rbkv_server_core)
# One CTest test per part, so a failure names its part. keyspace_random (250,000 operations, each
# followed by ks_check) takes about 1 s at -O2 and 10 s under ASan.
foreach(part edge random)
  add_test(NAME keyspace_${part} COMMAND test_keyspace ${part})
  set_tests_properties(keyspace_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()
