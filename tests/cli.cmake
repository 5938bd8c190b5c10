# rbkv-cli end to end (tests/integration/test_cli.sh): one server per test, so they run in
# parallel. include()d from tests/CMakeLists.txt, so relative paths start in tests/.
set(RBKV_CLI_TESTS paging 120 binary 60 exit_codes 60 plain 60 formats 60 load_million 300 zsets 60
    maps 60 lists 60 streams 60 convert 120)
while(RBKV_CLI_TESTS)
  list(POP_FRONT RBKV_CLI_TESTS name timeout)
  add_test(NAME cli_${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cli.sh $<TARGET_FILE:rbkv-server>
                   $<TARGET_FILE:rbkv-cli> ${name})
  set_tests_properties(cli_${name} PROPERTIES LABELS integration TIMEOUT ${timeout}
                       SKIP_RETURN_CODE 77)
endwhile()

# make install's rules: the two binaries land in PREFIX/bin (and DESTDIR/PREFIX/bin) and run.
add_test(NAME install COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_install.sh ${CMAKE_BINARY_DIR})
set_tests_properties(install PROPERTIES LABELS integration TIMEOUT 60)

# rbkv-cli -c (client/cluster.c, client/crange.c; issue 35): redirects, and cluster-wide range,
# prefix, count and dump against three rbkv primaries compared with one standalone node.
rbkv_server_test(integration_cli_cluster integration/test_cli_cluster.c 180 integration cluster)
target_compile_definitions(test_integration_cli_cluster PRIVATE
                           RBKV_CLI_BIN="$<TARGET_FILE:rbkv-cli>")
add_dependencies(test_integration_cli_cluster rbkv-cli)
