# Tests of FUNCTION and FCALL (server/commands/cmd_function.c, server/scripting/functions.c,
# function_lua.c). include()d from tests/CMakeLists.txt after integration.cmake (fragments are
# included in name order), so rbkv_server_test exists.

# End-to-end with hiredis: every subcommand and error compared with redis-server when installed,
# FCALL/FCALL_RO with flags, DUMP/RESTORE, DEBUG RELOAD, restarts from the snapshot and the log.
rbkv_server_test(integration_function integration/test_function.c 120 integration)
