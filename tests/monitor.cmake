# MONITOR, CLIENT PAUSE/UNPAUSE, CLIENT NO-EVICT/NO-TOUCH, CLIENT LIST fields, INFO clients
# (issue #21). include()d from tests/CMakeLists.txt, so relative paths start in tests/.
rbkv_server_test(integration_monitor integration/test_monitor.c 120 integration)
