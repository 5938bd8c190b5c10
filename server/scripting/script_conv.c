/*
 * script_conv.c - replies to Lua values and back (script_conv.h).
 *
 * The reply side reads what the server's own writer produced for the
 * script client, whole and well formed, so it checks nothing but the Lua
 * stack's room (the reply of one command can nest only as deep as the
 * server writes it).
 */
#include "script_conv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "errorstats.h"
#include "mem.h"
#include "resp_writer.h"

struct reader {
    const char *p, *end;
};

/* The line after the type byte, up to CRLF; advances past it. */
static const char *read_line(struct reader *r, size_t *len)
{
    const char *start = r->p + 1;
    const char *cr = memchr(start, '\r', (size_t)(r->end - start));
    if (!cr)
        cr = r->end;
    *len = (size_t)(cr - start);
    r->p = cr + 2 <= r->end ? cr + 2 : r->end;
    return start;
}

static long long line_ll(const char *s, size_t len)
{
    char buf[32];
    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return strtoll(buf, NULL, 10);
}

static void room(lua_State *L, int n)
{
    if (!lua_checkstack(L, n))
        luaL_error(L, "reached lua stack limit");
}

static void push_field_table(lua_State *L, const char *field, const char *s, size_t len)
{
    lua_newtable(L);
    lua_pushstring(L, field);
    lua_pushlstring(L, s, len);
    lua_settable(L, -3);
}

/* One value; a NULL L skips it (an attribute's). */
static void read_value(lua_State *L, struct reader *r)
{
    size_t len;
    char type = *r->p;
    const char *s = read_line(r, &len);
    long long n;

    if (L)
        room(L, 5);
    switch (type) {
    case ':':
        if (L)
            lua_pushnumber(L, (lua_Number)line_ll(s, len));
        return;
    case '$':
    case '=':
        n = line_ll(s, len);
        if (n < 0) {
            if (L)
                lua_pushboolean(L, 0);
            return;
        }
        if (L && type == '$') {
            lua_pushlstring(L, r->p, (size_t)n);
        } else if (L) {
            lua_newtable(L);
            lua_pushstring(L, "verbatim_string");
            lua_newtable(L);
            lua_pushstring(L, "string");
            lua_pushlstring(L, r->p + 4, (size_t)n >= 4 ? (size_t)n - 4 : 0);
            lua_settable(L, -3);
            lua_pushstring(L, "format");
            lua_pushlstring(L, r->p, 3);
            lua_settable(L, -3);
            lua_settable(L, -3);
        }
        r->p += n + 2;
        return;
    case '+':
        if (L)
            push_field_table(L, "ok", s, len);
        return;
    case '-':
        if (L) {
            char *text = xmalloc(len + 2);
            text[0] = '-';
            memcpy(text + 1, s, len);
            text[len + 1] = '\0';
            script_conv_push_error(L, text);
            xfree(text);
            /* The command's own call already counted this error. */
            script_conv_mark_counted(L);
        }
        return;
    case '_':
        if (L)
            lua_pushnil(L);
        return;
    case '#':
        if (L)
            lua_pushboolean(L, len && s[0] == 't');
        return;
    case ',':
        if (L) {
            char buf[64];
            size_t k = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
            memcpy(buf, s, k);
            buf[k] = '\0';
            lua_newtable(L);
            lua_pushstring(L, "double");
            lua_pushnumber(L, strtod(buf, NULL));
            lua_settable(L, -3);
        }
        return;
    case '(':
        if (L)
            push_field_table(L, "big_number", s, len);
        return;
    case '*':
    case '>':
        n = line_ll(s, len);
        if (n < 0) {
            if (L)
                lua_pushboolean(L, 0);
            return;
        }
        if (L)
            lua_newtable(L);
        for (long long i = 0; i < n; i++) {
            if (L)
                lua_pushnumber(L, (lua_Number)(i + 1));
            read_value(L, r);
            if (L)
                lua_settable(L, -3);
        }
        return;
    case '%':
    case '~':
        n = line_ll(s, len);
        if (L) {
            lua_newtable(L);
            lua_pushstring(L, type == '%' ? "map" : "set");
            lua_newtable(L);
        }
        for (long long i = 0; i < n; i++) {
            read_value(L, r);
            if (type == '%')
                read_value(L, r);
            else if (L)
                lua_pushboolean(L, 1);
            if (L)
                lua_settable(L, -3);
        }
        if (L)
            lua_settable(L, -3);
        return;
    case '|':
        /* Attributes are not shown to scripts: skip them, then the value. */
        n = line_ll(s, len);
        for (long long i = 0; i < 2 * n; i++)
            read_value(NULL, r);
        read_value(L, r);
        return;
    default:
        if (L)
            lua_pushnil(L);
        return;
    }
}

void script_conv_push_reply(lua_State *L, const char *p, size_t len)
{
    struct reader r = {p, p + len};
    if (len == 0) {
        lua_pushnil(L);
        return;
    }
    read_value(L, &r);
}

#define COUNTED_FIELD "ignore_error_stats_update"

void script_conv_mark_counted(lua_State *L)
{
    lua_pushstring(L, COUNTED_FIELD);
    lua_pushboolean(L, 1);
    lua_settable(L, -3);
}

int script_conv_is_counted(lua_State *L)
{
    lua_getfield(L, -1, COUNTED_FIELD);
    int counted = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return counted;
}

void script_conv_push_error(lua_State *L, const char *text)
{
    const char *code = "ERR", *msg = text;
    size_t code_len = 3;
    if (text[0] == '-') {
        const char *sp = strchr(text, ' ');
        if (sp) {
            code = text + 1;
            code_len = (size_t)(sp - code);
            msg = sp + 1;
        } else {
            msg = text + 1;
        }
    }
    size_t msg_len = strlen(msg);
    while (msg_len && (msg[msg_len - 1] == '\r' || msg[msg_len - 1] == '\n'))
        msg_len--;
    while (msg_len && (msg[0] == '\r' || msg[0] == '\n')) {
        msg++;
        msg_len--;
    }
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushlstring(L, code, code_len);
    lua_pushliteral(L, " ");
    lua_pushlstring(L, msg, msg_len);
    lua_concat(L, 3);
    lua_settable(L, -3);
}

/* Redis 7.0's addReplyDouble: %.17g, inf spelled out. */
static void write_double(struct resp_out *o, double d)
{
    char buf[64];
    int n = isinf(d) ? snprintf(buf, sizeof(buf), "%s", d > 0 ? "inf" : "-inf")
                     : snprintf(buf, sizeof(buf), "%.17g", d);
    if (o->proto == 3) {
        resp_add_raw(o, ",", 1);
        resp_add_raw(o, buf, (size_t)n);
        resp_add_raw(o, "\r\n", 2);
    } else {
        resp_add_bulk(o, buf, (size_t)n);
    }
}

/* The C cast of an out-of-range double is undefined; x86's answer, which
 * Redis gives, is LLONG_MIN. */
static long long truncate_number(lua_Number d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return (long long)-9223372036854775807LL - 1;
    return (long long)d;
}

/* The string field name of the table on top, or NULL; pushes nothing. */
static const char *string_field(lua_State *L, const char *name, size_t *len)
{
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, len) : NULL;
    lua_pop(L, 1); /* the string stays alive: the table holds it */
    return s;
}

static int write_special_table(lua_State *L, struct resp_out *o, int script_resp);

static void write_table(lua_State *L, struct resp_out *o, int script_resp)
{
    struct resp_deferred d;
    if (write_special_table(L, o, script_resp))
        return;
    size_t n = 0;
    resp_add_deferred(o, &d);
    for (int j = 1;; j++) {
        lua_pushnumber(L, j);
        lua_rawget(L, -2);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        script_conv_write_value(L, o, script_resp);
        n++;
    }
    resp_set_deferred_array(o, &d, n);
}

/* {map={k=v...}} as a map, {set={k=true...}} as a set (field "map" or
 * "set"); returns 1 when the table on top was one. */
static int write_aggregate(lua_State *L, struct resp_out *o, int script_resp, const char *field)
{
    int map = field[0] == 'm';
    struct resp_deferred d;
    size_t n = 0;
    lua_pushstring(L, field);
    lua_rawget(L, -2);
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    resp_add_deferred(o, &d);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (!map)
            lua_pop(L, 1); /* a set's true */
        lua_pushvalue(L, -1 - map);
        script_conv_write_value(L, o, script_resp); /* the key */
        if (map)
            script_conv_write_value(L, o, script_resp); /* the value */
        n++;
    }
    if (map)
        resp_set_deferred_map(o, &d, n);
    else
        resp_set_deferred_set(o, &d, n);
    lua_pop(L, 1);
    return 1;
}

/* The tables that stand for one reply type; returns 1 when it wrote one. */
static int write_special_table(lua_State *L, struct resp_out *o, int script_resp)
{
    size_t len;
    const char *s;

    if ((s = string_field(L, "err", &len))) {
        if (script_conv_is_counted(L))
            errorstats_skip_next(o);
        resp_add_error(o, s);
        return 1;
    }
    if ((s = string_field(L, "ok", &len))) {
        char *status = xmalloc(len + 1);
        for (size_t i = 0; i < len; i++)
            status[i] = s[i] == '\r' || s[i] == '\n' ? ' ' : s[i];
        status[len] = '\0';
        /* As Redis: up to an embedded NUL, CR and LF made spaces. */
        resp_add_raw(o, "+", 1);
        resp_add_raw(o, status, strlen(status));
        resp_add_raw(o, "\r\n", 2);
        xfree(status);
        return 1;
    }
    lua_pushstring(L, "double");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TNUMBER) {
        write_double(o, lua_tonumber(L, -1));
        lua_pop(L, 1);
        return 1;
    }
    lua_pop(L, 1);
    if ((s = string_field(L, "big_number", &len))) {
        char *digits = xmalloc(len + 1);
        for (size_t i = 0; i < len; i++)
            digits[i] = s[i] == '\r' || s[i] == '\n' ? ' ' : s[i];
        resp_add_bignum(o, digits, len);
        xfree(digits);
        return 1;
    }
    lua_pushstring(L, "verbatim_string");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TTABLE) {
        size_t flen, slen;
        const char *fmt = string_field(L, "format", &flen);
        const char *str = string_field(L, "string", &slen);
        if (fmt && str) {
            char f[3] = {' ', ' ', ' '};
            memcpy(f, fmt, flen < 3 ? flen : 3);
            resp_add_verbatim(o, f, str, slen);
            lua_pop(L, 1);
            return 1;
        }
    }
    lua_pop(L, 1);
    return write_aggregate(L, o, script_resp, "map") || write_aggregate(L, o, script_resp, "set");
}

void script_conv_write_value(lua_State *L, struct resp_out *o, int script_resp)
{
    if (!lua_checkstack(L, 4)) {
        resp_add_error(o, "ERR reached lua stack limit");
        lua_pop(L, 1);
        return;
    }
    size_t len;
    const char *s;
    switch (lua_type(L, -1)) {
    case LUA_TSTRING:
        s = lua_tolstring(L, -1, &len);
        resp_add_bulk(o, s, len);
        break;
    case LUA_TBOOLEAN:
        if (script_resp == 2) {
            if (lua_toboolean(L, -1))
                resp_add_int(o, 1);
            else
                resp_add_null(o);
        } else {
            resp_add_bool(o, lua_toboolean(L, -1));
        }
        break;
    case LUA_TNUMBER:
        resp_add_int(o, truncate_number(lua_tonumber(L, -1)));
        break;
    case LUA_TTABLE:
        write_table(L, o, script_resp);
        break;
    default:
        resp_add_null(o);
    }
    lua_pop(L, 1);
}
