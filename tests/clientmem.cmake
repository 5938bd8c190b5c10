# Clients in the memory accounting (issue 34): omem, the output limits, replies counted toward
# maxmemory, maxmemory-clients, the idle query buffer; each compared with redis-server.
rbkv_server_test(integration_clientmem integration/test_clientmem.c 180 integration)
rbkv_on_redis(integration_clientmem)
