# Build stage: compile rbkv with the project's own CMake build.
FROM debian:bookworm-slim AS build
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        gcc make cmake pkg-config libc6-dev libuv1-dev libhiredis-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRBKV_BENCH=OFF \
    && cmake --build /build -j "$(nproc)" --target rbkv-server rbkv-cli

# Runtime stage: only the runtime libraries and the two binaries.
FROM debian:bookworm-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libuv1 libhiredis0.14 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home-dir /data --shell /usr/sbin/nologin rbkv \
    && mkdir -p /data && chown rbkv:rbkv /data
COPY --from=build /build/server/rbkv-server /build/client/rbkv-cli /usr/local/bin/
USER rbkv
WORKDIR /data
VOLUME /data
EXPOSE 6379
HEALTHCHECK --interval=10s --timeout=3s CMD ["rbkv-cli", "ping"]
ENTRYPOINT ["rbkv-server", "--bind", "0.0.0.0", "--protected-mode", "no"]
