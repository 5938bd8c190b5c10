# maxmemory eviction: every policy against a model, the hot set, pipelined writes at the cap,
# the log, events and WATCH, OBJECT IDLETIME/FREQ against redis-server.
rbkv_server_test(integration_evict integration/test_evict.c 120 integration)
