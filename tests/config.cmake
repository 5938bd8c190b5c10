# Unit tests of the settings module (server/core/config*.c: defaults, config files, --flags,
# CONFIG SET/GET texts, CONFIG REWRITE) and the glob matcher (server/base/glob.c).
# include()d from tests/CMakeLists.txt, so relative paths start in tests/.

add_executable(test_config unit/test_config.c)
target_link_libraries(test_config PRIVATE rbkv_server_core)
# One CTest test per part, so a failure names its part. All of them take well under a
# second; the timeout catches a glob matcher that went back to exponential backtracking.
foreach(part defaults memory set round_trip set_many file flags rewrite glob users)
  add_test(NAME config_${part} COMMAND test_config ${part})
  set_tests_properties(config_${part} PROPERTIES LABELS unit TIMEOUT 60)
endforeach()

# Every Redis 7.0 configuration name, alias and value grammar against redis-server 7.0.15 side by
# side, and the settings that act on the process (pidfile, supervised systemd, shutdown-on-sigterm,
# tcp-backlog); about 2 s. Its parts that start their own servers run on redis-server too.
rbkv_server_test(integration_config_names integration/test_config_names.c 60 integration)
rbkv_on_redis(integration_config_names test_alias_file test_process test_bind_source_addr)
