# Hostile and broken clients (issue #10): malformed and oversized requests, bad arguments, clients
# that never read, trickle or stall, and many connections at once, each against the real server
# (tests/integration/test_hostile_*.c). include()d from tests/CMakeLists.txt, so relative paths
# start in tests/. The protocol and argument tests also pass against redis-server 7 (give it as
# the first argument instead of rbkv-server). The load test shrinks its million keys in sanitizer and
# valgrind builds (H_SLOW), so every run has all four.
#
# name, TIMEOUT in seconds
set(RBKV_HOSTILE_PROGRAMS protocol 120 args 60 stall 120 load 300)
while(RBKV_HOSTILE_PROGRAMS)
  list(POP_FRONT RBKV_HOSTILE_PROGRAMS name timeout)
  rbkv_server_test(hostile_${name} integration/test_hostile_${name}.c ${timeout} integration hostile)
  if(name STREQUAL protocol OR name STREQUAL args)
    rbkv_on_redis(hostile_${name})
  endif()
endwhile()
