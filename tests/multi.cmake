# Transactions (server/multi.c, server/watch.c), end to end. include()d from tests/CMakeLists.txt
# after integration.cmake (fragments are included in name order), so relative paths start in
# tests/ and rbkv_harness exists. About 1 s; the expiry part sleeps.
add_executable(test_integration_multi integration/test_multi.c)
target_link_libraries(test_integration_multi PRIVATE rbkv_harness)
add_test(NAME integration_multi COMMAND test_integration_multi $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_multi PROPERTIES LABELS integration TIMEOUT 60)
