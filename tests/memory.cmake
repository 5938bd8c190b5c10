# MEMORY, DEBUG RELOAD/OBJECT, enable-debug-command, INFO's memory, stats and persistence
# figures and CONFIG RESETSTAT (issue #21): tests/integration/test_memory.c.
rbkv_server_test(integration_memory integration/test_memory.c 120 integration)
