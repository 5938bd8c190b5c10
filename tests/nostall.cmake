# Big deletions that must not hold the loop (issue 38): KDELRANGE over a million keys cut at once
# and freed in slices, and a mass expiry, each with a concurrent PING probe whose worst wait is
# bounded (not in slow builds); the data against a model, WATCH, and the log's replay of a cut.
rbkv_server_test(integration_nostall integration/test_nostall.c 300 integration)
