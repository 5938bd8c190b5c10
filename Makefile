# The two commands of README.md, and a few more for developers.
#   make run      build the server only and start it on 127.0.0.1:6379, empty: it runs in
#                 $(BUILD)/run, emptied first, so no dump.rbkv or appendonly.aof of an earlier run (or
#                 of the repository's root) is loaded. ARGS="--port 7000" passes flags; a config file
#                 comes first (ARGS="rbkv.conf --port 7000"), and other relative paths in ARGS are
#                 relative to $(BUILD)/run.
#   make test     build everything and run every test
#                 (RBKV_REQUIRE_REFERENCE=1 there and in test-asan and test-valgrind: a test that
#                 compares with redis-server fails when none is installed, rather than skipping)
#   make install  build rbkv-server and rbkv-cli and copy them to $(DESTDIR)$(PREFIX)/bin
BUILD ?= build
ASAN_BUILD ?= build-asan
VALGRIND_BUILD ?= build-valgrind
LINT_BUILD ?= build-lint
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
PREFIX ?= /usr/local
DESTDIR ?=

# cmake --build runs make inside this one, which would then say Entering/Leaving directory twice
# for every target it visits.
MAKEFLAGS += --no-print-directory

.PHONY: deps build run test install test-asan test-valgrind lint fuzz clean

# One flag set for $(BUILD), whichever target configures it: were -Werror on for `make test` only,
# each switch between `make run` and `make test` would recompile every object. The code is kept
# free of warnings by CI on the compiler scripts/deps.sh installs; on another one, a new warning
# stops the build until fixed, or CMAKE_ARGS=-DRBKV_WERROR=OFF (then used by every target).
BUILD_CONFIG = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBKV_WERROR=ON

# $(call configure,SETS): the Debian packages of scripts/deps.sh's SETS (build always), then
# $(BUILD) configured with BUILD_CONFIG. Configuring again with the same flags rebuilds nothing.
define configure
	@scripts/deps.sh build $(1)
	@cmake -S . -B $(BUILD) $(BUILD_CONFIG) $(CMAKE_ARGS) >/dev/null
endef

build:
	$(call configure)
	@cmake --build $(BUILD) -j $(JOBS)

# rbkv-server reads a config file only as its first argument: when ARGS starts with one, it stays
# first, made absolute since the server starts in RUN_DIR.
RUN_DIR = $(BUILD)/run
RUN_CONF = $(filter-out -%,$(firstword $(ARGS)))
RUN_ARGS = $(if $(RUN_CONF),$(abspath $(RUN_CONF)) $(wordlist 2,$(words $(ARGS)),$(ARGS)),$(ARGS))
run:
	$(call configure)
	@cmake --build $(BUILD) -j $(JOBS) --target rbkv-server
	@rm -rf $(RUN_DIR) && mkdir -p $(RUN_DIR)
	cd $(RUN_DIR) && exec $(abspath $(BUILD))/server/rbkv-server $(RUN_ARGS)

test:
	$(call configure,test)
	@cmake --build $(BUILD) -j $(JOBS)
	RBKV_REQUIRE_REFERENCE=1 ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE 'container|fuzz'

# The install rules are CMake's (CMakeLists.txt); PREFIX is given at install time, so changing it
# recompiles nothing. DESTDIR (packaging) is put in front of PREFIX, as cmake --install does.
install:
	$(call configure)
	@cmake --build $(BUILD) -j $(JOBS) --target rbkv-server rbkv-cli
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer. The tests scale their own
# deadlines by 3 there (H_SLOW, harness.h), and CTest's TIMEOUTs by as much.
test-asan:
	@scripts/deps.sh build test
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRBKV_WERROR=ON -DRBKV_SANITIZE=ON -DRBKV_BENCH=OFF -DRBKV_TEST_TIMEOUT_SCALE=3 $(CMAKE_ARGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	RBKV_REQUIRE_REFERENCE=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE 'container|fuzz'

# The whole suite again under valgrind's memcheck, on a Debug build without sanitizers: every test
# program runs under $(VALGRIND) (CMake's CROSSCOMPILING_EMULATOR prefixes each add_test of a built
# executable), and every rbkv-server the tests start runs under $(VALGRIND_SERVER)
# (RBKV_SERVER_WRAPPER, read by tests/integration/harness.c and server.sh). A memory error makes the
# process exit 99, which fails its test. A test program's leaks count as errors too; a server's do
# not (its BGSAVE and BGREWRITEAOF children leave with _exit, their heap unfreed by design), so its
# log goes to valgrind.<pid>.log in its dir and the harness fails the stop when the main process
# lost memory. Deadlines inside the tests scale by RBKV_TEST_SLOW, CTest's TIMEOUTs by
# RBKV_TEST_TIMEOUT_SCALE. Not run: fuzz and container labels (as in test-asan), the servers that
# test_aof.c and test_persistence.c exec themselves (expected to exit at start), and the test
# functions in VALGRIND_SKIP:
#   test_incrbyfloat  valgrind computes long double in double precision, so INCRBYFLOAT's digits
#   test_bad_floats   differ and "inf" is not seen as infinite (transcript.sh's INCRBYFLOAT lines
#   test_hincr        likewise: VALGRIND_SKIP_TESTS), and HINCRBYFLOAT's the same way
#   test_hincrbyfloat_replay
#   test_attacker     its flood of 80,000 wrong passwords, each hashed with SHA-256, takes far past
#                     RBKV_TEST_SLOW under valgrind; the flood runs under ASan in CI
# About an hour with -j 2 on the 2-core machine (63 minutes on 2026-12-06, shared with builds); not
# part of .ci/run, which stays under 30.
VALGRIND_COMMON = valgrind --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
	--num-callers=30 --suppressions=$(CURDIR)/scripts/valgrind.supp
VALGRIND ?= $(VALGRIND_COMMON) --errors-for-leak-kinds=definite,indirect,possible -q
VALGRIND_SERVER ?= $(VALGRIND_COMMON) --errors-for-leak-kinds=none --log-file=valgrind.%p.log
VALGRIND_SLOW ?= 10
VALGRIND_SKIP ?= test_incrbyfloat test_bad_floats test_hincr test_hincrbyfloat_replay test_attacker
VALGRIND_SKIP_TESTS ?= integration_transcript
VALGRIND_JOBS ?= 2
empty :=
space := $(empty) $(empty)
test-valgrind:
	@scripts/deps.sh build test
	cmake -S . -B $(VALGRIND_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRBKV_WERROR=ON -DRBKV_SANITIZE=OFF -DRBKV_BENCH=OFF -DRBKV_MALLOC=libc \
	  "-DCMAKE_CROSSCOMPILING_EMULATOR=$(subst $(space),;,$(strip $(VALGRIND)))" \
	  -DRBKV_TEST_TIMEOUT_SCALE=$(VALGRIND_SLOW) $(CMAKE_ARGS) >/dev/null
	cmake --build $(VALGRIND_BUILD) -j $(JOBS)
	RBKV_REQUIRE_REFERENCE=1 RBKV_SERVER_WRAPPER="$(strip $(VALGRIND_SERVER))" RBKV_TEST_SLOW=$(VALGRIND_SLOW) \
	  RBKV_TEST_SKIP="$(VALGRIND_SKIP)" ctest --test-dir $(VALGRIND_BUILD) --output-on-failure \
	  -j $(VALGRIND_JOBS) -LE 'container|fuzz' -E '^($(subst $(space),|,$(strip $(VALGRIND_SKIP_TESTS))))$$'

# cppcheck and clang-tidy over server/, proto/ and client/ (checks: .clang-tidy, scripts/lint.sh).
lint:
	@scripts/deps.sh build lint
	scripts/lint.sh $(LINT_BUILD)

# libFuzzer targets (clang), each run for FUZZ_SECONDS on its seed corpus, FUZZ_JOBS at a time (the cores);
# FUZZ_TARGETS="commands aof" runs only those (default: every fuzz_* target).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz:
	@scripts/deps.sh build fuzz
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBKV_FUZZ=ON -DRBKV_BENCH=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build build-fuzz -j $(JOBS)
	scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The container test (tests/container/test_container.sh): builds the Dockerfile's image with podman,
# set up by ../shared/container-env.sh, and checks it from the host through redis-cli. 3 to 5 minutes
# on two quiet cores when the build stage has to run (it runs the unit tests), about a minute cached.
.PHONY: test-container
test-container:
	$(call configure,test)
	ctest --test-dir $(BUILD) --output-on-failure -L container

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(VALGRIND_BUILD) $(LINT_BUILD) build-fuzz
