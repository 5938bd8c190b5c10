# Tests of Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (server/scripting/script*.c,
# eval.c, server/commands/cmd_script.c). include()d from tests/CMakeLists.txt after
# integration.cmake (fragments are included in name order), so rbkv_server_test exists.

# End-to-end: the conversion table both ways in RESP2 and RESP3, every error path, the sandbox,
# flags and SCRIPT compared byte for byte with redis-server when installed; busy scripts with
# SCRIPT KILL and SHUTDOWN NOSAVE, effects in the log and on a replica, MULTI and WATCH.
rbkv_server_test(integration_script integration/test_script.c 120 integration)

# A script's flags before it runs (server/commands/cmd_script.c's and cmd_function.c's flags_of,
# server/core/command.c, server/scripting/script.c): NOREPLICAS, OOM, READONLY, MASTERDOWN and
# pauses by the shebang's or the function's flags, compared byte for byte with redis-server.
rbkv_server_test(integration_script_flags integration/test_script_flags.c 120 integration)

# cmsgpack and struct (server/scripting/lua_cmsgpack.c, lua_struct.c) in a bare Lua state: Redis's exact
# bytes and errors, random values round tripped, random bytes unpacked; SEED=<n> replays.
add_executable(test_lua_libs unit/test_lua_libs.c)
target_link_libraries(test_lua_libs PRIVATE rbkv_server_core)
foreach(part pack unpack struct random)
  add_test(NAME lua_libs_${part} COMMAND test_lua_libs ${part})
  set_tests_properties(lua_libs_${part} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# The libraries besides redis (cmsgpack, struct, cjson, bit) through EVAL, compared byte for byte
# with redis-server when installed: fixed cases, errors, random values packed and bytes unpacked.
rbkv_server_test(integration_script_libs integration/test_script_libs.c 120 integration)
