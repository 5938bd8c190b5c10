# Tests of the geo commands' geometry (server/base/geohash.c) against values redis-server 7.0
# gives. include()d from tests/CMakeLists.txt, so relative paths start in tests/. The commands
# themselves are compared with redis-server in integration/test_geo.c.
add_executable(test_geohash unit/test_geohash.c)
target_link_libraries(test_geohash PRIVATE rbkv_base)
add_test(NAME geohash COMMAND test_geohash)
set_tests_properties(geohash PROPERTIES LABELS unit TIMEOUT 60)
