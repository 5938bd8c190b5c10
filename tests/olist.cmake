# Tests of the list sequence (server/data/olist.[ch]). include()d from tests/CMakeLists.txt
# (fragments are included in name order), so relative paths start in tests/.

# The sequence against an array model, ol_check() after every change; SEED=<n> replays.
add_executable(test_olist unit/test_olist.c)
target_link_libraries(test_olist PRIVATE rbkv_server_core)
foreach(part random_bytes random_count ints big clone)
  add_test(NAME olist_${part} COMMAND test_olist ${part})
  set_tests_properties(olist_${part} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# Lists through snapshots (restart, DEBUG RELOAD), the log's rewrite, lazy freeing, and MEMORY
# USAGE and DEBUG DIGEST-VALUE beside redis-server.
rbkv_server_test(integration_list_persist integration/test_list_persist.c 180 integration)
