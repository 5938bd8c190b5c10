/*
 * group_commit.h - the append-only log's group commit (group_commit.c):
 * under `appendfsync always`, one write and fdatasync at the end of the
 * loop turn covers every batch of requests that fed the log during it, as
 * Redis does before it sleeps; under the other policies a batch's commands
 * are written before its replies go.
 *
 * persist/ knows no connection: the transport asks these functions through
 * conn.h's struct conn_log (filled by the start-up wiring), holds the
 * replies of a batch told to wait, and lets them go when the turn's sync
 * calls it back. The guarantee: a reply acknowledging a write is never sent
 * before that write is on disk, and a failed sync closes its clients
 * unanswered.
 */
#ifndef RBKV_GROUP_COMMIT_H
#define RBKV_GROUP_COMMIT_H

/* The transport's part, called after the turn's sync with failed = 1 when
 * the log could not be made durable. */
typedef void group_commit_synced_fn(int failed);

/* At start, on the server's loop: synced_fn is called at the end of each turn
 * in which a batch was told to wait. */
void group_commit_init(group_commit_synced_fn *synced_fn);
/* At shutdown, after the last sync: closes the turn-end handles. */
void group_commit_close(void);
/* Before a batch of requests: a mark to pass to group_commit_after. */
unsigned long long group_commit_mark(void);
/* After the batch that began at mark: 0 when its replies may go now (what
 * it fed is written), 1 when they wait for the turn's sync, -1 when its
 * commands could not be written (its client is closed unanswered). */
int group_commit_after(unsigned long long mark);
/* Now, not at the turn's end (shutdown): writes and syncs what was fed;
 * 0, or -1 when it could not be made durable. */
int group_commit_sync(void);

#endif
