# Hostile and broken clients (issue #10): malformed and oversized requests, bad arguments, clients
# that never read, trickle or stall, and many connections at once, each against the real server
# (tests/integration/test_hostile_*.c). include()d from tests/CMakeLists.txt, so relative paths
# start in tests/. The protocol and argument tests also pass against redis-server 7 (give it as
# the first argument instead of rbkv-server). The load tests get the label `slow` (they load a
# million keys and open a thousand connections), which the ASan run leaves out.
#
# name, TIMEOUT in seconds, extra label ("-" for none)
set(RBKV_HOSTILE_PROGRAMS protocol 120 - args 60 - stall 120 - load 300 slow)
while(RBKV_HOSTILE_PROGRAMS)
  list(POP_FRONT RBKV_HOSTILE_PROGRAMS name timeout extra)
  set(labels integration hostile)
  if(NOT extra STREQUAL "-")
    list(APPEND labels ${extra})
  endif()
  add_executable(test_hostile_${name} integration/test_hostile_${name}.c)
  target_link_libraries(test_hostile_${name} PRIVATE rbkv_harness)
  add_test(NAME hostile_${name} COMMAND test_hostile_${name} $<TARGET_FILE:rbkv-server>)
  set_tests_properties(hostile_${name} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout})
endwhile()
