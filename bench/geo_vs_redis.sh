#!/usr/bin/env bash
# Geo against Debian's redis-server 7, in one run: GEOSEARCH BYRADIUS over 1,000,000 points, and
# the memory of those points.
#   bench/geo_vs_redis.sh [--rounds N] [--quick]
#
# The points: members m:<i> (i zero-padded to 12 digits, as redis-benchmark's __rand_int__ is),
# spread evenly at random (awk's srand(1), so both servers get the same ones) over longitudes
# -10..30 and latitudes 35..60, about 4.4 million km2: some 70 points within 10 km of each.
# Loaded by redis-cli --pipe, 1,000 points a GEOADD; the two servers must then agree on GEOPOS
# and on a search's reply.
# redis-benchmark (50 clients, -P 1 and -P 16) runs each search on both servers, alternating for
# --rounds rounds (default 3), from a random member; the best of each is kept and the ratio is
# rbkv / redis:
#   FROMMEMBER R BYRADIUS 10 km ASC                 every point within 10 km (~70), nearest first
#   FROMMEMBER R BYRADIUS 50 km ASC COUNT 10        the nearest 10 of ~1,800
#   FROMMEMBER R BYRADIUS 10 km WITHDIST WITHCOORD  ~70 points with distance and position
#   FROMLONLAT 10 47.5 BYBOX 40 40 km COUNT 5 ANY   any 5 in a box
# Memory: used_memory after the load minus before, in bytes a point; the ratio is rbkv / redis.
# --quick: one round with a tenth of the requests and of the points, for a smoke run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

rounds_args "$@"
ensure_built

POINTS=$((1000000 / SCALE))
gen_points() { # N
  awk -v n="$1" 'BEGIN { srand(1); for (i = 0; i < n; i += 1000) {
      m = (n - i < 1000) ? n - i : 1000
      printf "*%d\r\n$6\r\nGEOADD\r\n$3\r\ngeo\r\n", m * 3 + 2
      for (j = i; j < i + m; j++) {
        lon = sprintf("%.6f", -10 + 40 * rand()); lat = sprintf("%.6f", 35 + 25 * rand())
        name = sprintf("m:%012d", j)
        printf "$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lon), lon, length(lat), lat,
          length(name), name } } }'
}
used() { info_field "$1" used_memory; }

RBKV_PORT=$(free_port); start_rbkv "$RBKV_PORT"
REDIS_PORT=$(free_port); start_redis "$REDIS_PORT"
declare -A MEM
for port in "$RBKV_PORT" "$REDIS_PORT"; do
  before=$(used "$port")
  gen_points "$POINTS" | pipe_load "$port"
  MEM[$port]=$(( ($(used "$port") - before) / POINTS ))
  [ "$(redis-cli -p "$port" zcard geo)" = "$POINTS" ] || { echo "zcard geo on $port" >&2; exit 1; }
done
# The same points, and the same answer to a search, on both.
for q in "GEOPOS geo m:000000000007" "GEOSEARCH geo FROMMEMBER m:000000000042 BYRADIUS 10 km ASC WITHDIST"; do
  # shellcheck disable=SC2086 # the query is a word list on purpose
  [ "$(redis-cli -p "$RBKV_PORT" $q | md5sum)" = "$(redis-cli -p "$REDIS_PORT" $q | md5sum)" ] ||
    { echo "the servers differ on $q" >&2; exit 1; }
done

# label|requests at -P16 (a quarter at -P1)|command
TESTS=(
  "radius 10 km ASC|40000|GEOSEARCH geo FROMMEMBER m:__rand_int__ BYRADIUS 10 km ASC"
  "radius 50 km ASC COUNT 10|4000|GEOSEARCH geo FROMMEMBER m:__rand_int__ BYRADIUS 50 km ASC COUNT 10"
  "radius 10 km WITHDIST WITHCOORD|40000|GEOSEARCH geo FROMMEMBER m:__rand_int__ BYRADIUS 10 km WITHDIST WITHCOORD"
  "box 40x40 km COUNT 5 ANY|40000|GEOSEARCH geo FROMLONLAT 10 47.5 BYBOX 40 40 km COUNT 5 ANY"
)
bench_row_header "GEOSEARCH geo FROMMEMBER R ..."
for t in "${TESTS[@]}"; do
  IFS='|' read -r label requests cmd <<<"$t"
  # shellcheck disable=SC2086 # the command is a word list on purpose
  bench_row "$label" "$requests" "$POINTS" $cmd
done

printf '\n%-36s | %10s %10s %6s\n' "memory, bytes a point" rbkv redis ratio
printf '%-36s | %10s %10s %6s\n' "$POINTS points, 14-byte names" "${MEM[$RBKV_PORT]}" \
  "${MEM[$REDIS_PORT]}" "$(ratio "${MEM[$RBKV_PORT]}" "${MEM[$REDIS_PORT]}")"
