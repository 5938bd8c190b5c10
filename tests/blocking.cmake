# Blocking pops (server/blocking.c, BZPOPMIN/BZPOPMAX/BZMPOP/ZMPOP in server/cmd_zset.c), end to
# end. include()d from tests/CMakeLists.txt, so relative paths start in tests/; rbkv_harness comes
# from integration.cmake (a target may be linked before it is defined). About 2 s: the timeout
# tests sleep.
add_executable(test_integration_blocking integration/test_blocking.c)
target_link_libraries(test_integration_blocking PRIVATE rbkv_harness)
add_test(NAME integration_blocking COMMAND test_integration_blocking $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_blocking PROPERTIES LABELS integration TIMEOUT 60)
