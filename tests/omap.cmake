# Tests of the ordered map behind hashes and sets (server/data/omap.[ch]). include()d from
# tests/CMakeLists.txt (fragments are included in name order), so relative paths start in tests/.

# The map against a sorted-array model, om_check() after every change; SEED=<n> replays.
add_executable(test_omap unit/test_omap.c)
target_link_libraries(test_omap PRIVATE rbkv_server_core)
foreach(part hash set big clone append cut)
  add_test(NAME omap_${part} COMMAND test_omap ${part})
  set_tests_properties(omap_${part} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# The ordered hash and set commands (server/commands/cmd_collrange.c) end to end, differential
# against the server's own ZRANGE family on a sorted set holding the same names.
rbkv_server_test(integration_collrange integration/test_collrange.c 120 integration)
