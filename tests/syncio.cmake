# MIGRATE's bounded blocking connection (server/base/syncio.c) over a socketpair. include()d from
# tests/CMakeLists.txt.
add_executable(test_syncio unit/test_syncio.c)
target_link_libraries(test_syncio PRIVATE rbkv_base)
add_test(NAME syncio COMMAND test_syncio)
set_tests_properties(syncio PROPERTIES LABELS unit TIMEOUT 60)
