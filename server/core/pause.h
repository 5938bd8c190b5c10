/*
 * pause.h - CLIENT PAUSE and CLIENT UNPAUSE (prefix pause_).
 *
 * Owns the pauses (a kind and an end for each purpose) and the requests
 * they hold back: each postponed client's one request, copied out of its
 * parser (struct postponed_request, c->postponed), in arrival order.
 *
 * As Redis 7.0's pause purposes (PAUSE_BY_CLIENT_COMMAND,
 * PAUSE_DURING_SHUTDOWN, PAUSE_DURING_FAILOVER), each user pauses and
 * unpauses only its own: CLIENT UNPAUSE does not end a FAILOVER's pause.
 * What holds a request is the strongest kind among the purposes on.
 *
 * Redis 7.0's rules (networking.c pauseClients, server.c processCommand): a
 * WRITE pause holds back commands that write (and EXEC of a queue that
 * does); an ALL pause holds back every command. The dispatcher asks
 * pause_postpones after its other checks; a held client runs nothing more
 * until the pause ends, by CLIENT UNPAUSE or its deadline, and then the held
 * requests run in the order they arrived, each followed by what its client
 * pipelined behind it. While any pause lasts, keys are neither expired nor
 * evicted (pause_stops_writes), so the dataset does not change under it. A
 * replica's link and the primary's link are never held, nor a monitor;
 * Redis holds its primary's link too, which rbkv does not (documented).
 */
#ifndef RBKV_PAUSE_H
#define RBKV_PAUSE_H

#include <stdint.h>

struct client;
struct command;

enum pause_kind { PAUSE_NONE, PAUSE_WRITE, PAUSE_ALL };

/* Who paused: CLIENT PAUSE, a shutdown waiting for its replicas, a
 * failover (FAILOVER, or a cluster primary's manual failover). */
enum pause_purpose { PAUSE_BY_CLIENT, PAUSE_BY_SHUTDOWN, PAUSE_BY_FAILOVER, PAUSE_PURPOSES };

/* At start: the resume handle, and pause_client_gone on the client-closing
 * and client-gone lists (conn.h). */
void pause_init(void);
/* Frees every held request and closes the handle; at shutdown. */
void pause_close(void);

/* Pauses kind for purpose until the wall clock reaches end_ms. A pause of
 * that purpose already on keeps the later deadline; the kind is the new
 * one, as in Redis 7.0's pauseClients. */
void pause_start(enum pause_purpose purpose, enum pause_kind kind, int64_t end_ms);
/* Ends purpose's pause now (CLIENT UNPAUSE: the client command's); what no
 * other pause holds runs from the loop. */
void pause_end(enum pause_purpose purpose);
/* The strongest pause now (those past their deadline ended on the way),
 * PAUSE_NONE when none. */
enum pause_kind pause_current(void);
/* Whether purpose's pause is on (a primary sends its replicas no PING while
 * a failover's is: the offsets must hold still). */
int pause_by(enum pause_purpose purpose);
/* Whether expiry and eviction must wait: any pause is on. */
int pause_stops_writes(void);

/* Whether cmd, requested by c under flags (the row's, or its script's:
 * command_table.h's flags_of), must wait for the pause: if so, c's request
 * is copied and queued and c is marked CLIENT_POSTPONED, and 1 returned. */
int pause_postpones(struct client *c, const struct command *cmd, unsigned flags);
/* c is going: forgets its held request. */
void pause_client_gone(struct client *c);
/* Held clients now (INFO blocked_clients counts them, as Redis does). */
unsigned long pause_postponed_count(void);
/* From the cron: ends a pause whose deadline passed. */
void pause_cron(int64_t now_ms);

#endif
