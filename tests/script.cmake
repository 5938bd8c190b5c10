# Tests of Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (server/core/script*.c,
# eval.c, server/commands/cmd_script.c). include()d from tests/CMakeLists.txt after
# integration.cmake (fragments are included in name order), so rbkv_server_test exists.

# End-to-end: the conversion table both ways in RESP2 and RESP3, every error path, the sandbox,
# flags and SCRIPT compared byte for byte with redis-server when installed; busy scripts with
# SCRIPT KILL and SHUTDOWN NOSAVE, effects in the log and on a replica, MULTI and WATCH.
rbkv_server_test(integration_script integration/test_script.c 120 integration)
