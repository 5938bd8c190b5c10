/*
 * script_conv.h - replies to Lua values and back, as Redis 7.0's
 * script_lua.c converts them (script_conv.c, prefix script_conv_).
 *
 * Owns nothing: reads a reply the server wrote (trusted, whole) and pushes
 * Lua values, or pops a Lua value and writes a reply.
 *
 * Reply -> Lua: integer -> number; bulk -> string; null bulk, null array
 * -> false; array -> table; status -> {ok=s}; error -> {err=s} (with
 * ignore_error_stats_update); under RESP3 also null -> nil, boolean ->
 * boolean, double -> {double=d}, map -> {map={...}}, set -> {set={k=true}},
 * big number -> {big_number=s}, verbatim -> {verbatim_string={format=,
 * string=}}; attributes are skipped.
 * Lua -> reply: string -> bulk; number -> integer (truncated); boolean ->
 * 1 / null (RESP2 script) or a boolean (setresp 3); a table with err, ok,
 * double, big_number, verbatim_string, map or set as above; any other
 * table -> array up to its first nil; anything else -> null.
 */
#ifndef RBKV_SCRIPT_CONV_H
#define RBKV_SCRIPT_CONV_H

#include <stddef.h>

#include <lua.h>

struct resp_out;

/* Pushes the value of the reply in p[0..len) (one whole reply). */
void script_conv_push_reply(lua_State *L, const char *p, size_t len);
/* Pops the value on top of L and writes it to o; script_resp is the
 * script's redis.setresp (it decides how booleans go out). */
void script_conv_write_value(lua_State *L, struct resp_out *o, int script_resp);
/* Pushes Redis's error table {err="CODE msg"} from text: "-CODE msg" keeps
 * its code, plain "msg" gets ERR; trailing CR/LF trimmed (luaPushError). */
void script_conv_push_error(lua_State *L, const char *text);
/* Marks the error table on top of L as counted in errorstats already (its
 * command's reply or refusal was), so the script's reply of it is not
 * counted again (Redis's "ignore_error_stats_update" field). */
void script_conv_mark_counted(lua_State *L);
/* Whether the error table on top of L is marked counted. */
int script_conv_is_counted(lua_State *L);

#endif
