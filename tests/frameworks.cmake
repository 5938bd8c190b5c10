# Job-queue frameworks running real jobs (issue #22): BullMQ (npm, pinned by
# tests/frameworks/bullmq/package-lock.json), Sidekiq and Celery (Debian's ruby-sidekiq and
# python3-celery), each through its runner tests/frameworks/NAME/run.sh SERVER_BIN. include()d
# from tests/CMakeLists.txt. The runners skip (exit 77) when a package they need is missing;
# scripts/deps.sh test installs them.
#
# framework_<name>_redis: the control, against redis-server itself, proving the tests right. It
# runs no rbkv code, so sanitizer and valgrind builds leave it out.
# framework_<name>_rbkv: the same test against rbkv-server, also under the sanitizers.
set(rbkv_frameworks bullmq sidekiq celery)

foreach(framework ${rbkv_frameworks})
  set(runner ${CMAKE_CURRENT_SOURCE_DIR}/frameworks/${framework}/run.sh)
  if(NOT RBKV_SANITIZE AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
    add_test(NAME framework_${framework}_redis COMMAND ${runner} redis-server)
    # npm ci on BullMQ's first run downloads the pinned packages: the TIMEOUT leaves room for that.
    set_tests_properties(framework_${framework}_redis PROPERTIES LABELS "integration;frameworks"
                         TIMEOUT 300 SKIP_RETURN_CODE 77)
  endif()
  add_test(NAME framework_${framework}_rbkv COMMAND ${runner} $<TARGET_FILE:rbkv-server>)
  set_tests_properties(framework_${framework}_rbkv PROPERTIES LABELS "integration;frameworks"
                       TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
