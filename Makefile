# The two commands of README.md, and a few more for developers.
#   make run    build and start the server on 127.0.0.1:6379 (ARGS="--port 7000" to pass flags)
#   make test   build with -Werror and run every test
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

.PHONY: deps build run test test-asan fuzz clean

build:
	@scripts/deps.sh build
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/server/rbkv-server $(ARGS)

test:
	@scripts/deps.sh build test
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBKV_WERROR=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE 'container|fuzz'

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	@scripts/deps.sh build test
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRBKV_WERROR=ON -DRBKV_SANITIZE=ON -DRBKV_BENCH=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE 'container|fuzz|slow'

# libFuzzer targets (clang), each run for FUZZ_SECONDS on its seed corpus.
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/deps.sh build fuzz
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBKV_FUZZ=ON -DRBKV_BENCH=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build build-fuzz -j $(JOBS)
	scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

# The container test (tests/container/test_container.sh): builds the Dockerfile's image with podman,
# set up by ../shared/container-env.sh, and checks it from the host through redis-cli. 3 to 5 minutes
# on two quiet cores when the build stage has to run (it runs the unit tests), about a minute cached.
.PHONY: test-container
test-container:
	@scripts/deps.sh build test
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
	ctest --test-dir $(BUILD) --output-on-failure -L container

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
