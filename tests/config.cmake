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
