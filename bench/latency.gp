# Draws bench/latency_vs_redis.sh's results as latency_mixed.png next to them:
#   gnuplot -e "dir='bench/results'" bench/latency.gp
# The slowest request due in each 100 ms of the run (log scale), rbkv against redis-server in the
# first round, with the run's events (from rbkv's run; redis-server's are at the same offsets).
if (!exists("dir")) dir = "bench/results"
set encoding utf8
set datafile separator ","
set datafile columnheaders
info(name) = system(sprintf("sed -n 's/^%s: //p' '%s/latency_machine.txt'", name, dir))

set terminal pngcairo size 900,460 font "sans,9"
set output dir."/latency_mixed.png"
set title sprintf("Slowest request per 100 ms, timed from when it was due (open loop)\n%s; %s\n%s, redis-server %s, commit %s, %s", \
                  info("run"), info("keys"), info("cpu"), info("redis-server"), info("commit"), info("date")) \
          font "sans,9" noenhanced
set xlabel "seconds into the run"
set ylabel "max latency (ms)"
set logscale y
set grid ytics lc rgb "#dddddd"
set key top left
set style textbox opaque noborder
RBKV = "#3b6ea5"
REDIS = "#e6550d"
is(l) = strcol(1) eq l
ev(l) = is(l) ? $2 : NaN
plot dir."/latency_timeline.csv" using 2:(is("rbkv.1") ? $4 / 1000 : NaN) with steps lc rgb RBKV lw 1.2 title "rbkv", \
     dir."/latency_timeline.csv" using 2:(is("redis.1") ? $4 / 1000 : NaN) with steps lc rgb REDIS lw 1.2 title "redis-server 7.0", \
     dir."/latency_events.csv" using (ev("rbkv.1")):(1e-1):3 with labels rotate by 90 left font "sans,7" tc rgb "#555555" notitle
