# Draws bench/run's CSV files as PNGs next to them: gnuplot -e "dir='bench/results'" bench/plot.gp
# Small pictures on purpose (bench/README.md embeds them and git keeps every version). Each one says
# what it shows, the run's settings and the machine (from machine.txt), so it reads on its own.
if (!exists("dir")) dir = "bench/results"
set encoding utf8
set datafile separator ","
set datafile columnheaders  # every CSV starts with a header row

# machine.txt's "name: value" lines; "" when a line is missing.
info(name) = system(sprintf("sed -n 's/^%s: //p' '%s/machine.txt'", name, dir))
# 1234567 -> "1,234,567"
commas(n) = n < 1000 ? sprintf("%d", n) : commas(int(n / 1000)) . sprintf(",%03d", int(n) % 1000)
# 454986 -> "455k": the throughput bars' labels.
kilo(x) = x >= 1e6 ? sprintf("%.2fM", x / 1e6) : x >= 1e4 ? sprintf("%.0fk", x / 1e3) : \
          sprintf("%.1fk", x / 1e3)

kind = strstrt(info("run"), "--quick") ? "quick run" : "full run"
keys = commas(real(info("keys")))." keys"
redis = info("redis-server")
redis = redis[1:2] eq "v=" ? redis[3:] : redis
machine = sprintf("%s, %s RAM; redis-server %s, rbkv %s; %s", info("cpu"), info("memory"), \
                  redis, info("rbkv"), info("date"))
workload_setup = sprintf("%s, %s connections x pipeline %s, %s s per workload and server (%s)", \
                         keys, info("connections"), info("pipeline"), \
                         info("workload_seconds"), kind)
# What the workloads' short names stand for, under the pictures that use them.
workload_names = "rangeN: the N keys from a random one on, rbkv KRANGE against redis-server " . \
                 "ZRANGEBYLEX on a sorted set of the same keys\n" . \
                 "count: KCOUNT / ZLEXCOUNT between random bounds;  rank: KRANK / ZRANK;  " . \
                 "mset10: MSET of 10 keys;  mixed90/10: 90% GET, 10% SET"
scan_setup = sprintf("one connection, no pipelining, %s s per point (%s)", \
                     info("scan_seconds"), kind)

# Every picture's header: its title, its settings and its machine, one line each, placed in pixels
# from the top so pictures of any height look alike (eval place(HEIGHT)). Labels rather than a
# title so the throughput picture's two panels share one; noenhanced, as a CPU's name may hold @.
# Label 4, at the bottom, explains the workloads' names where they appear.
labels = 'set label 1 "" center font "sans,10" noenhanced; ' . \
         'set label 2 "" center font "sans,8" noenhanced; ' . \
         'set label 3 machine center font "sans,8" noenhanced tc rgb "#555555"; ' . \
         'set label 4 workload_names center font "sans,7" noenhanced'
eval labels
place(h) = sprintf("set label 1 at screen 0.5, screen %g; set label 2 at screen 0.5, screen %g; \
                    set label 3 at screen 0.5, screen %g; set tmargin at screen %g; \
                    set label 4 at screen 0.5, screen %g", \
                   1 - 14.0 / h, 1 - 30.0 / h, 1 - 44.0 / h, 1 - 58.0 / h, 18.0 / h)

set grid ytics lc rgb "#dddddd"
set style fill solid 0.85 noborder
set lmargin at screen 0.1
set rmargin at screen 0.96
RBKV = "#3b6ea5"
REDIS = "#e6550d"
# Headroom above the tallest bar for its label and the key.
stats dir."/summary.csv" using 2 nooutput
workloads = STATS_records
ops_max = STATS_max
stats dir."/summary.csv" using 3 nooutput
ops_max = STATS_max > ops_max ? STATS_max : ops_max
stats dir."/summary.csv" using 4 nooutput
ratio_max = STATS_max

# Throughput: each server's requests per second per workload, and below it their ratio.
set terminal pngcairo size 760,560 font "sans,9"
set output dir."/throughput_ratio.png"
set label 1 "Throughput per workload: rbkv-server and redis-server, same keys and requests"
set label 2 workload_setup
eval place(560)
set multiplot
set xrange [-0.6:workloads - 0.4]
# Top panel: the absolute figures, labelled on the bars.
set bmargin at screen 0.42
unset xtics
set yrange [0:1.2 * ops_max]
set ylabel "requests per second"
set format y "%.0s%c"
set key top left horizontal
set boxwidth 0.34
plot dir."/summary.csv" using ($0 - 0.17):2 with boxes title "rbkv-server" lc rgb RBKV, \
     "" using ($0 + 0.17):3 with boxes title "redis-server" lc rgb REDIS, \
     "" using ($0 - 0.17):2:(kilo($2)) with labels offset 0, 0.5 font "sans,7" notitle, \
     "" using ($0 + 0.17):3:(kilo($3)) with labels offset 0, 0.5 font "sans,7" notitle
# Bottom panel: the ratio, which the README's tables quote.
unset label 1
unset label 2
unset label 3
unset label 4
set tmargin at screen 0.4
set bmargin at screen 90.0 / 560
set xtics rotate by -30 scale 0
set format y "%.1f"
set yrange [0:1.2 * ratio_max]
set ylabel "rbkv / redis\n(above 1: rbkv faster)"
set boxwidth 0.6
plot dir."/summary.csv" using 0:4:xtic(1) with boxes notitle lc rgb RBKV, \
     "" using 0:4:(sprintf("%.2f×", $4)) with labels offset 0, 0.5 font "sans,7" notitle, \
     1 with lines dt 2 lc rgb "#aa0000" notitle
unset multiplot
eval labels
set bmargin

# Latency percentiles: one cluster per workload, rbkv and redis-server side by side.
set terminal pngcairo size 760,420 font "sans,9"
set output dir."/latency.png"
set label 1 "Latency per request, from sending it to its reply: p50, p99 and p99.9 (log scale)"
set label 2 workload_setup
eval place(420)
set bmargin at screen 90.0 / 420
set style data histogram
set style histogram clustered gap 1
set boxwidth 0.9 relative
set logscale y
set yrange [99.9:1e6]  # [100: would drop the 100 µs tick, on the edge
set ytics ("100 µs" 100, "1 ms" 1000, "10 ms" 10000, "100 ms" 100000, "1 s" 1e6)
set mytics 10
set format y "%g"
set ylabel "time per request"
set key top left horizontal font "sans,8"
plot dir."/summary.csv" using 5:xtic(1) title "rbkv p50" lc rgb "#9ecae1", \
     "" using 6 title "redis p50" lc rgb "#fdae6b", \
     "" using 7 title "rbkv p99" lc rgb "#4292c6", \
     "" using 8 title "redis p99" lc rgb "#f16913", \
     "" using 9 title "rbkv p99.9" lc rgb "#08519c", \
     "" using 10 title "redis p99.9" lc rgb "#a63603"

# Scan cost against range length: the m of O(log n + m), on both servers.
set output dir."/scan_range.png"
unset label 4
set bmargin
set label 1 sprintf("Range scan against range length m, %s in the tree (log-log)", keys)
set label 2 scan_setup
set style data linespoints
set logscale xy
set xtics norotate scale 1
set xrange [*:*]
set yrange [*:*]
set ytics auto
set mytics default
set format x "%.0s%c"
set format y "%g"
set xlabel "keys returned per scan (m)"
set ylabel "µs per scan"
set key top left vertical maxrows -1 font "sans,9"
plot dir."/scan_range.csv" using 1:2 title "rbkv KRANGE, p50 at the client" lc rgb RBKV pt 7, \
     "" using 1:3 title "redis ZRANGEBYLEX, p50 at the client" lc rgb REDIS pt 7, \
     "" using 1:4 title "rbkv, inside the server (INFO commandstats)" lc rgb RBKV dt 2 pt 6, \
     "" using 1:5 title "redis, inside the server (INFO commandstats)" lc rgb REDIS dt 2 pt 6

# Scan cost against tree size: the log n of O(log n + m), m = 100.
set output dir."/scan_size.png"
set label 1 "rbkv KRANGE of 100 keys against the number of keys in the tree n (log x)"
unset logscale y
set yrange [0:*]
set xlabel "keys in the tree (n)"
set autoscale xfix
plot dir."/scan_size.csv" using 1:2 title "p50 at the client" lc rgb RBKV pt 7, \
     "" using 1:3 title "inside the server (INFO commandstats)" lc rgb RBKV dt 2 pt 6

# Range-scan throughput against the range length m (range_length.csv) and against the keyspace size
# n (range_size.csv), both absent after --no-range-series: each server at both settings, the points
# the median of the rounds and the bars lowest to highest; below, rbkv / redis of the medians.
series_setup = sprintf("%s connections x pipeline %s, and %s connections x pipeline 1; " . \
                       "%s s x %s rounds per server and point (%s)", info("connections"), \
                       info("pipeline"), info("p1_connections"), info("series_seconds"), \
                       info("series_rounds"), kind)
p16 = sprintf("-c %s -P %s", info("connections"), info("pipeline"))
p1 = sprintf("-c %s -P 1", info("p1_connections"))
series_names(m) = sprintf("rbkv KRANGE [key + BYLEX LIMIT 0 %s against redis-server ZRANGEBYLEX zkeys " . \
                          "[key + LIMIT 0 %s (a sorted set of the same keys,\nscore 0), from a random key; " . \
                          "points: median of the rounds, bars: lowest to highest round; " . \
                          "the servers take turns going first", m, m)
set terminal pngcairo size 760,600 font "sans,9"
do for [i = 1:2] {
  sfile = dir . (i == 1 ? "/range_length.csv" : "/range_size.csv")
  if (system(sprintf("test -s '%s' && echo y", sfile)) eq "y") {
    set output dir . (i == 1 ? "/range_length.png" : "/range_size.png")
    set multiplot
    eval labels
    if (i == 1) {
      set label 1 sprintf("Range-scan throughput against range length m: rbkv-server and redis-server, %s", keys)
      set xlabel "keys returned per scan (m)"
    } else {
      set label 1 "Range-scan throughput (100 keys) against keyspace size n: rbkv-server and redis-server"
      set xlabel "keys in the keyspace (n; rbkv: string keys, redis-server: members of one sorted set)"
    }
    set label 2 series_setup
    set label 4 series_names(i == 1 ? "m" : "100")
    eval place(600)
    # Top panel: requests per second, log-log.
    set bmargin at screen 0.45
    set logscale xy
    set autoscale xfix
    set offsets graph 0.04, graph 0.04, 0, 0
    set yrange [*:*]
    set format x ""
    set format y "%.0s%c"
    set xtics scale 1 norotate
    set mytics default
    set ylabel "requests per second (log)"
    unset xlabel
    set key top right vertical maxrows 2 font "sans,8"
    plot sfile using 1:2:3:4 with yerrorlines title "rbkv ".p16 lc rgb RBKV pt 7 ps 0.7, \
         "" using 1:5:6:7 with yerrorlines title "redis ".p16 lc rgb REDIS pt 7 ps 0.7, \
         "" using 1:9:10:11 with yerrorlines title "rbkv ".p1 lc rgb RBKV dt 2 pt 6 ps 0.7, \
         "" using 1:12:13:14 with yerrorlines title "redis ".p1 lc rgb REDIS dt 2 pt 6 ps 0.7
    # Bottom panel: the ratio of the medians.
    unset label 1
    unset label 2
    unset label 3
    unset label 4
    set tmargin at screen 0.43
    set bmargin at screen 100.0 / 600
    unset logscale y
    set format x "%.0s%c"
    set format y "%.2f"
    stats sfile using 8 nooutput
    rmax = STATS_max
    stats sfile using 15 nooutput
    rmax = STATS_max > rmax ? STATS_max : rmax
    set yrange [0:1.2 * rmax]
    set ylabel "rbkv / redis\n(above 1: rbkv faster)"
    if (i == 1) { set xlabel "keys returned per scan (m)" } else { set xlabel "keys in the keyspace (n)" }
    set key top left horizontal font "sans,8"
    plot sfile using 1:8 with linespoints title p16 lc rgb RBKV pt 7, \
         "" using 1:8:(sprintf("%.2f", $8)) with labels offset 0, 0.8 font "sans,7" notitle, \
         "" using 1:15 with linespoints title p1 lc rgb "#6baed6" dt 2 pt 6, \
         "" using 1:15:(sprintf("%.2f", $15)) with labels offset 0, -0.8 font "sans,7" notitle, \
         1 with lines dt 2 lc rgb "#aa0000" notitle
    unset multiplot
    set offsets 0, 0, 0, 0
  }
}
