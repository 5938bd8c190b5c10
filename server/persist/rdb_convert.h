/*
 * rdb_convert.h - `rbkv-server --convert-rdb IN OUT`: a Redis RDB file into
 * rbkv's snapshot, or rbkv's snapshot into an RDB file redis-server loads;
 * the direction follows IN's magic. The way data moves between the two
 * offline, and the writer's one caller until a save path writes RDB.
 *
 * Owns: the keyspace it loads into and the function libraries it carries
 * across, for the run.
 */
#ifndef RBKV_RDB_CONVERT_H
#define RBKV_RDB_CONVERT_H

/* argv: IN OUT. Runs once the configuration's defaults are set (the
 * packed thresholds the values are built under) and the value types are
 * registered; takes databases 0 to 1023. Prints what it did; returns the
 * process's exit status (0 done, 1 refused: bad input, a stream for RDB, a
 * write error). */
int rdb_convert_main(int argc, char **argv);

#endif
