# Issue 34's parity checks of the replication stream (GETSET as SET, GETDEL as DEL, FLUSHDB and
# FLUSHALL as called), SLOWLOG's redaction, FLUSHALL's save and the expire-cycle latency event,
# each compared with redis-server (tests/integration/test_parity.c). include()d from
# tests/CMakeLists.txt.
rbkv_server_test(integration_parity integration/test_parity.c 120 integration)
rbkv_on_redis(integration_parity)
