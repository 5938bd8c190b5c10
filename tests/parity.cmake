# Issue 34's parity checks of the replication stream (GETSET as SET, GETDEL as DEL, FLUSHDB and
# FLUSHALL as called, the commands that rewrite themselves: SET EX as SET PXAT, EXPIRE as
# PEXPIREAT, INCRBYFLOAT as SET KEEPTTL, SPOP as SREM, blocking pops as pops...), SLOWLOG's
# redaction and its entries for blocking calls, FLUSHALL's save and the expire-cycle latency event,
# each compared with redis-server (tests/integration/test_parity.c). include()d from
# tests/CMakeLists.txt.
rbkv_server_test(integration_parity integration/test_parity.c 120 integration)
rbkv_on_redis(integration_parity)
