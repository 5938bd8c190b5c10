# Debian's Prometheus exporter for Redis scraping rbkv and redis-server with the same data
# (tests/integration/test_exporter.sh says what it checks). include()d from tests/CMakeLists.txt,
# so relative paths start in tests/. Skips (exit 77) without prometheus-redis-exporter,
# redis-server, redis-cli or curl (scripts/deps.sh test installs them).
add_test(NAME integration_exporter
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_exporter.sh $<TARGET_FILE:rbkv-server>)
set_tests_properties(integration_exporter PROPERTIES LABELS integration TIMEOUT 120
                     SKIP_RETURN_CODE 77)
