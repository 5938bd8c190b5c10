# Security defaults (issue #10): protected mode, the start-up warning, rename-command.
# include()d from tests/CMakeLists.txt (after config.cmake and integration.cmake, in name order).

# rename-command's parsing and its effect on the command table: a part of test_config.
add_test(NAME config_rename COMMAND test_config rename)
set_tests_properties(config_rename PROPERTIES LABELS unit TIMEOUT 60)

# End-to-end. The remote part connects from non-loopback addresses it puts in a network namespace
# of its own (needs root); without one it exits 77, which CTest reports as skipped, not passed.
rbkv_server_test(integration_security integration/test_security.c 120 integration)
add_test(NAME integration_security_remote
         COMMAND test_integration_security $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_security PROPERTIES ENVIRONMENT RBKV_SECURITY_PART=local)
set_tests_properties(integration_security_remote PROPERTIES LABELS integration TIMEOUT 120
                     ENVIRONMENT RBKV_SECURITY_PART=remote SKIP_RETURN_CODE 77)
