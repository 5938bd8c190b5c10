# Tests of the cluster's hash slot of a key (server/data/keyslot.c). include()d from
# tests/CMakeLists.txt, so relative paths start in tests/.

# key_hash_slot against the slots redis-server 7.0.15 gave.
add_executable(test_keyslot unit/test_keyslot.c)
target_link_libraries(test_keyslot PRIVATE rbkv_data)
add_test(NAME keyslot COMMAND test_keyslot)
set_tests_properties(keyslot PROPERTIES LABELS unit TIMEOUT 60)
