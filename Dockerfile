# rbkv in a container (issue #9). Two stages, both on debian:bookworm-slim:
#   build    the build packages, the project's own CMake build, then its unit tests (a failing test
#            fails the image build); the integration tests stay with `make test`, on the host.
#   runtime  libuv, hiredis, mimalloc, libssl3 and Lua 5.1 with cjson and bit, the two binaries, the entrypoint and healthcheck scripts (docker/).
# Build and run (docs/operations.md, "Run in a container"):
#   docker build -t rbkv .
#   docker run -d -p 127.0.0.1:6379:6379 -v rbkv-data:/data rbkv --requirepass "$RBKV_PASSWORD" --appendonly yes
# With podman, build with `--format docker`: the OCI image format has no HEALTHCHECK.
# tests/container/test_container.sh (`make test-container`) builds this file and checks all of it.

FROM debian:bookworm-slim AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        gcc libc6-dev make cmake pkg-config libuv1-dev libhiredis-dev libmimalloc-dev libssl-dev \
        liblua5.1-0-dev lua-cjson-dev lua-bitop-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only what the build reads, so that editing the docs, the compose file or docker/ keeps this
# stage's cache (.dockerignore leaves out build trees, node_modules and the container test).
COPY CMakeLists.txt ./
COPY proto proto
COPY server server
COPY client client
COPY tests tests
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBKV_BENCH=OFF >/dev/null \
    && cmake --build /build -j "$(nproc)" \
    && ctest --test-dir /build --output-on-failure -j "$(nproc)" -L unit \
    && strip --strip-debug /build/server/rbkv-server /build/client/rbkv-cli

FROM debian:bookworm-slim
# apt's caches go too (80 MB; Docker Hub's debian images drop them by an apt hook, a base image built
# with debootstrap does not). uid/gid 999 as in the redis image, so a host directory mounted on /data can be chowned to match.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libuv1 libhiredis0.14 libmimalloc2.0 libssl3 \
        liblua5.1-0 lua-cjson lua-bitop \
    && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
    && groupadd --system --gid 999 rbkv \
    && useradd --system --uid 999 --gid rbkv --home-dir /data --no-create-home --shell /usr/sbin/nologin rbkv \
    && mkdir /data && chown rbkv:rbkv /data
COPY --from=build /build/server/rbkv-server /build/client/rbkv-cli /usr/local/bin/
COPY docker/entrypoint.sh /usr/local/bin/rbkv-entrypoint
COPY docker/healthcheck.sh /usr/local/bin/rbkv-healthcheck
USER rbkv
# The server's `dir` defaults to its working directory: snapshots and the append-only log land here.
WORKDIR /data
VOLUME /data
EXPOSE 6379
# The server saves (when persistence is on) and exits 0 on SIGTERM; it is PID 1 (the entrypoint execs it).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["rbkv-healthcheck"]
ENTRYPOINT ["rbkv-entrypoint"]
CMD ["rbkv-server"]
