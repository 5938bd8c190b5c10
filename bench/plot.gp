# Draws bench/run's CSV files as PNGs next to them: gnuplot -e "dir='bench/results'" bench/plot.gp
# Small pictures on purpose (bench/README.md embeds them and git keeps every version).
if (!exists("dir")) dir = "bench/results"
set datafile separator ","
set datafile columnheaders  # every CSV starts with a header row
set terminal pngcairo size 760,380 font "sans,9"
set grid ytics lc rgb "#dddddd"
set key top left

# Throughput ratio per workload: above 1 rbkv serves more requests per second than redis-server.
set output dir."/throughput_ratio.png"
set title "Throughput, rbkv / redis-server (same run, same keys; > 1 favours rbkv)"
set style data histogram
set style fill solid 0.8 noborder
set boxwidth 0.7
set yrange [0:*]
set xtics rotate by -30
set xrange [-0.6:*]  # histograms otherwise leave an empty slot before the first cluster
plot dir."/summary.csv" using 4:xtic(1) title "ratio" lc rgb "#3b6ea5", \
     1 with lines dt 2 lc rgb "#aa0000" notitle

# Latency percentiles: one cluster per workload, rbkv and redis-server side by side.
set output dir."/latency.png"
set title "Latency per call, 32 connections x pipeline 16 (us, log scale)"
set style histogram clustered gap 1
set logscale y
set yrange [*:*]
set key top left horizontal
plot dir."/summary.csv" using 5:xtic(1) title "rbkv p50" lc rgb "#9ecae1", \
     "" using 6 title "redis p50" lc rgb "#fdae6b", \
     "" using 7 title "rbkv p99" lc rgb "#4292c6", \
     "" using 8 title "redis p99" lc rgb "#f16913", \
     "" using 9 title "rbkv p99.9" lc rgb "#08519c", \
     "" using 10 title "redis p99.9" lc rgb "#a63603"

# Scan cost against range length: the m of O(log n + m), on both servers.
set output dir."/scan_range.png"
set title "Range scan against range length m (one client, no pipelining; log-log)"
set style data linespoints
set logscale xy
set xtics norotate
set xrange [*:*]
set xlabel "keys returned (m)"
set ylabel "us per call"
set key top left vertical
plot dir."/scan_range.csv" using 1:2 title "rbkv KRANGE, p50 at the client" lc rgb "#3b6ea5" pt 7, \
     "" using 1:3 title "redis ZRANGEBYLEX, p50 at the client" lc rgb "#e6550d" pt 7, \
     "" using 1:4 title "rbkv, in-command" lc rgb "#3b6ea5" dt 2 pt 6, \
     "" using 1:5 title "redis, in-command" lc rgb "#e6550d" dt 2 pt 6

# Scan cost against tree size: the log n of O(log n + m), m = 100.
set output dir."/scan_size.png"
set title "rbkv KRANGE of 100 keys against tree size n (log x)"
unset logscale y
set yrange [0:*]
set xlabel "keys in the tree (n)"
set autoscale xfix
plot dir."/scan_size.csv" using 1:2 title "p50 at the client" lc rgb "#3b6ea5" pt 7, \
     "" using 1:3 title "in-command" lc rgb "#3b6ea5" dt 2 pt 6
