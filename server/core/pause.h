/*
 * pause.h - CLIENT PAUSE and CLIENT UNPAUSE (prefix pause_).
 *
 * Owns the pause (its kind and end) and the requests it holds back: each
 * postponed client's one request, copied out of its parser
 * (struct postponed_request, c->postponed), in arrival order.
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

/* At start: the resume handle, and pause_client_gone on the client-closing
 * and client-gone lists (conn.h). */
void pause_init(void);
/* Frees every held request and closes the handle; at shutdown. */
void pause_close(void);

/* CLIENT PAUSE: pauses kind until the wall clock reaches end_ms. A pause
 * already on keeps the later deadline; the kind is the new one, as in Redis
 * 7.0 (one pause purpose, the client command's). */
void pause_start(enum pause_kind kind, int64_t end_ms);
/* CLIENT UNPAUSE: ends the pause now; held requests run from the loop. */
void pause_end(void);
/* The pause now (ended by its deadline on the way), PAUSE_NONE when none. */
enum pause_kind pause_current(void);
/* Whether expiry and eviction must wait: any pause is on. */
int pause_stops_writes(void);

/* Whether cmd, requested by c, must wait for the pause: if so, c's request
 * is copied and queued and c is marked CLIENT_POSTPONED, and 1 returned. */
int pause_postpones(struct client *c, const struct command *cmd);
/* c is going: forgets its held request. */
void pause_client_gone(struct client *c);
/* Held clients now (INFO blocked_clients counts them, as Redis does). */
unsigned long pause_postponed_count(void);
/* From the cron: ends a pause whose deadline passed. */
void pause_cron(int64_t now_ms);

#endif
