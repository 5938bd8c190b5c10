/*
 * cmd_command.c - COMMAND: introspection of the command table (COUNT, LIST,
 * INFO, DOCS, GETKEYS, GETKEYSANDFLAGS, HELP), in Redis 7's reply shapes.
 *
 * Owns no state and keeps nothing between calls. Everything it reports is
 * derived on each request from the struct command entries of every module
 * (command_count/command_at); it must not know any command's internals:
 *   - COMMAND INFO flags and ACL categories come from the flags and group
 *     fields, the way Redis 7 adds its implicit categories; key specs and
 *     the keys of GETKEYS from keyspec.h, as the ACL check reads them;
 *   - COMMAND DOCS of a command Redis 7.0 has is Redis's own, byte for
 *     byte (redis_docs.c, generated from redis-server 7.0.15); of rbkv's
 *     own commands, from their rows' docs (struct command_docs, which
 *     only their rows carry: command_docs_misplaced), the "arguments"
 *     parsed from its `args` syntax string into a small tree on the stack
 *     (grammar below).
 *
 * Invariant clients rely on: every argument map has a name and a type, the
 * types are only those redis-cli 7 knows, flags are simple strings, nested
 * arguments are arrays, and every docs map has summary, since, group and
 * complexity. redis-cli asserts on these shapes when it builds its hints from
 * COMMAND DOCS at start, so a malformed reply would abort the user's client
 * instead of just looking wrong. A syntax string the parser rejects is sent
 * as one plain string argument (and logged), so the hint still shows it.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "acl_rules.h"
#include "args.h"
#include "client.h"
#include "cmd_command.h"
#include "glob.h"
#include "keyspec.h"
#include "log.h"
#include "redis_docs.h"
#include "resp_parser.h"
#include "resp_writer.h"
#include "server.h"

/* ---- Argument syntax -> COMMAND DOCS "arguments" ----
 *
 *   args   := choice END
 *   choice := seq ('|' seq)*          two or more seqs make a "oneof"
 *   seq    := item*                   two or more items inside one node make a "block"
 *   item   := '[' choice ['...'] ']'  "optional"; with "...", also "multiple"
 *           | TOKEN operand*          a keyword and what it introduces
 *           | chain | word
 *   operand := chain | word
 *   chain  := word ('|' word)+        all TOKENs or all words, not followed by a word
 *
 * TOKENs are ALL-CAPS keywords; words are lower-case placeholders. '|'
 * separates whole sequences ("EX seconds|PX milliseconds" is two choices of
 * two words each), except in a chain of like single words, which binds
 * tighter, so "AGGREGATE SUM|MIN|MAX" is AGGREGATE taking one of three tokens
 * and "SKIPME yes|no" SKIPME taking yes or no, as Redis reads them.
 *
 * A TOKEN alone is a "pure-token"; with one operand it is that operand
 * carrying the token ("EX seconds"); with several, a block carrying it
 * ("LIMIT offset count"). "x [x ...]", a bracket that repeats the items just
 * before it, folds into x flagged "multiple" (and "multiple_token" when the
 * repeat includes the token, as in "GET pattern [GET pattern ...]"), which
 * redis-cli prints back as "x [x ...]". Compound names join their parts with
 * '_', as Redis names its blocks ("score_member").
 */

/* Enough for the longest syntax string in Redis's own table (nodes dropped by
 * folding still count); a longer one fails to parse and falls back. */
#define ARGS_MAX_NODES 128
#define ARGS_NAME_BYTES 1024

enum arg_type {
    ARG_KEY,
    ARG_STRING,
    ARG_INTEGER,
    ARG_DOUBLE,
    ARG_PATTERN,
    ARG_UNIX_TIME,
    ARG_PURE_TOKEN,
    ARG_ONEOF,
    ARG_BLOCK,
};

static const char *const arg_type_names[] = {
    [ARG_KEY] = "key",
    [ARG_STRING] = "string",
    [ARG_INTEGER] = "integer",
    [ARG_DOUBLE] = "double",
    [ARG_PATTERN] = "pattern",
    [ARG_UNIX_TIME] = "unix-time",
    [ARG_PURE_TOKEN] = "pure-token",
    [ARG_ONEOF] = "oneof",
    [ARG_BLOCK] = "block",
};

#define ARGF_OPTIONAL (1u << 0)
#define ARGF_MULTIPLE (1u << 1)
#define ARGF_MULTIPLE_TOKEN (1u << 2)

static const struct {
    unsigned flag;
    const char *name;
} arg_flag_names[] = {
    {ARGF_OPTIONAL, "optional"},
    {ARGF_MULTIPLE, "multiple"},
    {ARGF_MULTIPLE_TOKEN, "multiple_token"},
};

/* Names and tokens point into the syntax string or into the parser's names
 * buffer, so the tree lives exactly as long as both. */
struct arg_node {
    const char *name, *token; /* token NULL when none */
    size_t name_len, token_len;
    enum arg_type type;
    unsigned flags;
    int child, next; /* node indices; -1 for none */
};

/* A sibling chain of nodes. */
struct arg_list {
    int head, tail, n;
};

enum lex_kind { LEX_END, LEX_OPEN, LEX_CLOSE, LEX_BAR, LEX_ELLIPSIS, LEX_WORD };

/* Small enough to copy, which is how the parser looks further ahead. */
struct lexer {
    const char *cur;  /* first unread byte of the syntax string */
    enum lex_kind kind; /* the lookahead lexeme */
    const char *word; /* its text when kind is LEX_WORD */
    size_t word_len;
};

struct args_parser {
    struct lexer lex;
    int failed;       /* sticky: bad syntax or out of nodes or names */
    int count;        /* nodes used */
    size_t names_used;
    struct arg_node nodes[ARGS_MAX_NODES];
    char names[ARGS_NAME_BYTES];
};

static const struct arg_list empty_list = {-1, -1, 0};

static void lex_advance(struct lexer *l)
{
    while (*l->cur == ' ')
        l->cur++;
    l->word = l->cur;
    switch (*l->cur) {
    case '\0':
        l->kind = LEX_END;
        return;
    case '[':
        l->kind = LEX_OPEN;
        l->cur++;
        return;
    case ']':
        l->kind = LEX_CLOSE;
        l->cur++;
        return;
    case '|':
        l->kind = LEX_BAR;
        l->cur++;
        return;
    }
    l->word_len = strcspn(l->cur, " []|");
    l->cur += l->word_len;
    l->kind = l->word_len == 3 && memcmp(l->word, "...", 3) == 0 ? LEX_ELLIPSIS : LEX_WORD;
}

static int slice_eq(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static int slice_in(const char *w, size_t len, const char *const *words, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (slice_eq(w, len, words[i], strlen(words[i])))
            return 1;
    }
    return 0;
}

/* Tokens are literal keywords, written in capitals: "NX", "AUTH2", "WITHSCORES". */
static int is_token(const char *w, size_t len)
{
    int upper = 0;
    for (size_t i = 0; i < len; i++) {
        if (w[i] >= 'a' && w[i] <= 'z')
            return 0;
        upper |= w[i] >= 'A' && w[i] <= 'Z';
    }
    return upper;
}

static int lex_is_token(const struct lexer *l)
{
    return l->kind == LEX_WORD && is_token(l->word, l->word_len);
}

/* The docs type of a placeholder, guessed from its name the way Redis's own
 * command files name them. */
static enum arg_type word_type(const char *w, size_t len)
{
    static const char *const keys[] = {"key", "source", "destination", "newkey", "destkey",
                                       "sourcekey"};
    static const char *const integers[] = {
        "seconds", "milliseconds", "count", "offset", "index", "index1", "index2", "timeout",
        "numkeys", "db", "destination-db", "start", "end", "stop", "cursor", "protover", "ttl", "port", "rank",
        "slot", "start-slot", "end-slot", "config-epoch", "client-id", "version",
    };
    static const char *const doubles[] = {"score"};
    static const char unix_time[] = "unix-time";

    if (slice_in(w, len, keys, sizeof(keys) / sizeof(keys[0])))
        return ARG_KEY;
    if (slice_in(w, len, integers, sizeof(integers) / sizeof(integers[0])))
        return ARG_INTEGER;
    if (slice_in(w, len, doubles, sizeof(doubles) / sizeof(doubles[0])))
        return ARG_DOUBLE;
    if (slice_eq(w, len, "pattern", strlen("pattern")))
        return ARG_PATTERN;
    if (len >= sizeof(unix_time) - 1 && memcmp(w, unix_time, sizeof(unix_time) - 1) == 0)
        return ARG_UNIX_TIME;
    return ARG_STRING;
}

/* Returns the new node's index, or -1 (and marks p failed) when out of nodes. */
static int node_new(struct args_parser *p, enum arg_type type, const char *name, size_t len)
{
    if (p->count == ARGS_MAX_NODES) {
        p->failed = 1;
        return -1;
    }
    p->nodes[p->count] = (struct arg_node){
        .name = name, .name_len = len, .type = type, .child = -1, .next = -1};
    return p->count++;
}

/* Appends node i, whose next must be -1; a failed node (-1) is dropped, the
 * parser already being marked failed. */
static void list_append(struct args_parser *p, struct arg_list *l, int i)
{
    if (i < 0)
        return;
    if (l->tail >= 0)
        p->nodes[l->tail].next = i;
    else
        l->head = i;
    l->tail = i;
    l->n++;
}

/* Room for len bytes in the names buffer, or NULL (and p failed). */
static char *names_reserve(struct args_parser *p, size_t len)
{
    if (len > sizeof(p->names) - p->names_used) {
        p->failed = 1;
        return NULL;
    }
    char *at = p->names + p->names_used;
    p->names_used += len;
    return at;
}

/* A node named after its children: "score" and "member" make "score_member". */
static int node_named_after(struct args_parser *p, enum arg_type type, int head)
{
    size_t len = 0;
    for (int i = head; i >= 0; i = p->nodes[i].next)
        len += p->nodes[i].name_len + (i != head);
    char *name = names_reserve(p, len);
    if (!name)
        return -1;
    size_t at = 0;
    for (int i = head; i >= 0; i = p->nodes[i].next) {
        if (i != head)
            name[at++] = '_';
        memcpy(name + at, p->nodes[i].name, p->nodes[i].name_len);
        at += p->nodes[i].name_len;
    }
    int n = node_new(p, type, name, len);
    if (n >= 0)
        p->nodes[n].child = head;
    return n;
}

/* A keyword on its own: named in lower case, as Redis names "nx". */
static int pure_token_node(struct args_parser *p, const char *token, size_t len)
{
    char *name = names_reserve(p, len);
    if (!name)
        return -1;
    for (size_t i = 0; i < len; i++)
        name[i] = token[i] >= 'A' && token[i] <= 'Z' ? (char)(token[i] - 'A' + 'a') : token[i];
    int n = node_new(p, ARG_PURE_TOKEN, name, len);
    if (n >= 0) {
        p->nodes[n].token = token;
        p->nodes[n].token_len = len;
    }
    return n;
}

/* The word at the lookahead as a node of its own (a pure token or a
 * placeholder); consumes it. */
static int word_node(struct args_parser *p)
{
    const struct lexer *l = &p->lex;
    int n = is_token(l->word, l->word_len)
                ? pure_token_node(p, l->word, l->word_len)
                : node_new(p, word_type(l->word, l->word_len), l->word, l->word_len);
    lex_advance(&p->lex);
    return n;
}

/* One node standing for a whole sequence: its item when alone, else a block. */
static int seq_node(struct args_parser *p, struct arg_list seq)
{
    if (seq.n == 0) {
        p->failed = 1; /* "[]" or "a||b" */
        return -1;
    }
    return seq.n == 1 ? seq.head : node_named_after(p, ARG_BLOCK, seq.head);
}

/* How many words a chain (see the grammar) at the lookahead has, or 0 when
 * there is none. Consumes nothing. */
static int chain_length(const struct args_parser *p)
{
    struct lexer l = p->lex;
    if (l.kind != LEX_WORD)
        return 0;
    int token = is_token(l.word, l.word_len), n = 1;
    for (lex_advance(&l); l.kind == LEX_BAR; lex_advance(&l), n++) {
        lex_advance(&l);
        if (l.kind != LEX_WORD || is_token(l.word, l.word_len) != token)
            return 0;
    }
    return n >= 2 && l.kind != LEX_WORD && l.kind != LEX_ELLIPSIS ? n : 0;
}

/* Consumes a chain of n words as one oneof. */
static int parse_chain(struct args_parser *p, int n)
{
    struct arg_list alts = empty_list;
    for (int i = 0; i < n && !p->failed; i++) {
        if (i > 0)
            lex_advance(&p->lex); /* the '|' */
        list_append(p, &alts, word_node(p));
    }
    return p->failed ? -1 : node_named_after(p, ARG_ONEOF, alts.head);
}

static int node_equal(const struct args_parser *p, int a, int b, int with_token);

static int lists_equal(const struct args_parser *p, int a, int b)
{
    for (; a >= 0 && b >= 0; a = p->nodes[a].next, b = p->nodes[b].next) {
        if (!node_equal(p, a, b, 1))
            return 0;
    }
    return a < 0 && b < 0;
}

static int node_equal(const struct args_parser *p, int a, int b, int with_token)
{
    const struct arg_node *x = &p->nodes[a], *y = &p->nodes[b];
    return x->type == y->type && x->flags == y->flags &&
           slice_eq(x->name, x->name_len, y->name, y->name_len) &&
           (!with_token || slice_eq(x->token, x->token_len, y->token, y->token_len)) &&
           lists_equal(p, x->child, y->child);
}

/*
 * "x y [x y ...]": when the items of a repeating bracket equal the last items
 * of seq, those become one item flagged multiple. A single item may carry a
 * token the repeat leaves out ("WEIGHTS weight [weight ...]"); when the repeat
 * has it too, the token repeats ("GET pattern [GET pattern ...]"). Returns 1
 * when folded, 0 when the bracket is not such a repeat.
 */
static int fold_repeat(struct args_parser *p, struct arg_list *seq, struct arg_list inner)
{
    if (inner.n == 0 || inner.n > seq->n)
        return 0;
    int before = -1, start = seq->head;
    for (int i = 0; i < seq->n - inner.n; i++) {
        before = start;
        start = p->nodes[start].next;
    }
    if (inner.n == 1) {
        struct arg_node *x = &p->nodes[start];
        const struct arg_node *y = &p->nodes[inner.head];
        if (!node_equal(p, start, inner.head, 0) ||
            (y->token && !slice_eq(x->token, x->token_len, y->token, y->token_len)))
            return 0;
        x->flags |= ARGF_MULTIPLE | (y->token ? ARGF_MULTIPLE_TOKEN : 0);
        return 1;
    }
    if (!lists_equal(p, start, inner.head))
        return 0;
    int block = node_named_after(p, ARG_BLOCK, start);
    if (block < 0)
        return 1; /* p failed; nothing more is read */
    p->nodes[block].flags |= ARGF_MULTIPLE;
    if (before >= 0)
        p->nodes[before].next = -1;
    else
        seq->head = -1;
    seq->tail = before;
    seq->n -= inner.n;
    list_append(p, seq, block);
    return 1;
}

static struct arg_list parse_choice(struct args_parser *p, int *repeat);

/* After '[': the bracket becomes one optional item of seq, or folds into the
 * items before it (fold_repeat). */
static void parse_bracket(struct args_parser *p, struct arg_list *seq)
{
    int repeat = 0;
    struct arg_list inner = parse_choice(p, &repeat);
    if (p->failed)
        return;
    if (p->lex.kind != LEX_CLOSE) {
        p->failed = 1;
        return;
    }
    lex_advance(&p->lex);
    if (repeat && fold_repeat(p, seq, inner))
        return;
    int n = seq_node(p, inner);
    if (n < 0)
        return;
    p->nodes[n].flags |= ARGF_OPTIONAL;
    /* "[x ...]" repeats all of x, its token too: without multiple_token a
     * repeated pure token would print as "[NX [ ...]]". */
    if (repeat)
        p->nodes[n].flags |= ARGF_MULTIPLE | (p->nodes[n].token ? ARGF_MULTIPLE_TOKEN : 0);
    list_append(p, seq, n);
}

/* At a TOKEN: it and the operands that follow it make one item. */
static int parse_token_item(struct args_parser *p)
{
    const char *token = p->lex.word;
    size_t token_len = p->lex.word_len;
    struct arg_list operands = empty_list;

    lex_advance(&p->lex);
    while (!p->failed) {
        int chain = chain_length(p);
        if (chain)
            list_append(p, &operands, parse_chain(p, chain));
        else if (p->lex.kind == LEX_WORD && !lex_is_token(&p->lex))
            list_append(p, &operands, word_node(p));
        else
            break;
    }
    if (operands.n == 0)
        return pure_token_node(p, token, token_len);
    int n = seq_node(p, operands);
    if (n >= 0) {
        p->nodes[n].token = token;
        p->nodes[n].token_len = token_len;
    }
    return n;
}

/* Items up to ']', '|' or the end. Sets *repeat at a "..." that ends a bracket. */
static struct arg_list parse_seq(struct args_parser *p, int *repeat)
{
    struct arg_list seq = empty_list;
    while (!p->failed) {
        int chain;
        switch (p->lex.kind) {
        case LEX_END:
        case LEX_CLOSE:
        case LEX_BAR:
            return seq;
        case LEX_ELLIPSIS:
            lex_advance(&p->lex);
            *repeat = 1;
            if (p->lex.kind != LEX_CLOSE)
                p->failed = 1; /* "..." must end its bracket, or what repeats is unclear */
            return seq;
        case LEX_OPEN:
            lex_advance(&p->lex);
            parse_bracket(p, &seq);
            break;
        case LEX_WORD:
            if ((chain = chain_length(p)))
                list_append(p, &seq, parse_chain(p, chain));
            else if (lex_is_token(&p->lex))
                list_append(p, &seq, parse_token_item(p));
            else
                list_append(p, &seq, word_node(p));
            break;
        }
    }
    return seq;
}

/* One sequence as is, or several '|'-separated ones as a list of one oneof. */
static struct arg_list parse_choice(struct args_parser *p, int *repeat)
{
    struct arg_list seq = parse_seq(p, repeat);
    if (p->failed || p->lex.kind != LEX_BAR)
        return seq;

    struct arg_list alts = empty_list;
    list_append(p, &alts, seq_node(p, seq));
    while (!p->failed && p->lex.kind == LEX_BAR) {
        int alt_repeat = 0;
        lex_advance(&p->lex);
        seq = parse_seq(p, &alt_repeat);
        if (alt_repeat)
            p->failed = 1; /* "[a|b c ...]": what repeats is unclear */
        list_append(p, &alts, seq_node(p, seq));
    }
    struct arg_list out = empty_list;
    if (!p->failed)
        list_append(p, &out, node_named_after(p, ARG_ONEOF, alts.head));
    return out;
}

/* Parses a syntax string (NUL-terminated, borrowed while the tree is used).
 * Returns the top-level arguments; p->failed says whether they are valid. */
static struct arg_list args_parse(struct args_parser *p, const char *syntax)
{
    int repeat = 0;
    p->lex.cur = syntax;
    p->failed = 0;
    p->count = 0;
    p->names_used = 0;
    lex_advance(&p->lex);
    struct arg_list top = parse_choice(p, &repeat);
    if (p->lex.kind != LEX_END || repeat)
        p->failed = 1;
    return top;
}

static void add_arg_list(struct resp_out *o, const struct args_parser *p, int head, int has_keys);

/* One argument map, in Redis's field order. key_spec_index is 0 because a
 * command here has at most one key spec. */
static void add_arg(struct resp_out *o, const struct args_parser *p, int i, int has_keys)
{
    const struct arg_node *n = &p->nodes[i];
    size_t nflags = 0;
    for (size_t f = 0; f < sizeof(arg_flag_names) / sizeof(arg_flag_names[0]); f++)
        nflags += (n->flags & arg_flag_names[f].flag) != 0;
    int key_spec = n->type == ARG_KEY && has_keys;

    resp_add_map_len(o, 2 + (size_t)key_spec + (n->token != NULL) + (nflags > 0) + (n->child >= 0));
    resp_add_bulk_cstr(o, "name");
    resp_add_bulk(o, n->name, n->name_len);
    resp_add_bulk_cstr(o, "type");
    resp_add_bulk_cstr(o, arg_type_names[n->type]);
    if (key_spec) {
        resp_add_bulk_cstr(o, "key_spec_index");
        resp_add_int(o, 0);
    }
    if (n->token) {
        resp_add_bulk_cstr(o, "token");
        resp_add_bulk(o, n->token, n->token_len);
    }
    if (nflags) {
        resp_add_bulk_cstr(o, "flags");
        resp_add_set_len(o, nflags);
        for (size_t f = 0; f < sizeof(arg_flag_names) / sizeof(arg_flag_names[0]); f++) {
            if (n->flags & arg_flag_names[f].flag)
                resp_add_simple(o, arg_flag_names[f].name);
        }
    }
    if (n->child >= 0) {
        resp_add_bulk_cstr(o, "arguments");
        add_arg_list(o, p, n->child, has_keys);
    }
}

static void add_arg_list(struct resp_out *o, const struct args_parser *p, int head, int has_keys)
{
    size_t n = 0;
    for (int i = head; i >= 0; i = p->nodes[i].next)
        n++;
    resp_add_array_len(o, n);
    for (int i = head; i >= 0; i = p->nodes[i].next)
        add_arg(o, p, i, has_keys);
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static size_t subcommand_count(const struct command *cmd)
{
    size_t n = 0;
    for (const struct command *sub = cmd->subcommands; sub && sub->name; sub++)
        n++;
    return n;
}

/* ---- COMMAND DOCS of Redis's own commands: redis_docs.c ---- */

static int doc_cmp(const void *name, const void *doc)
{
    return strcmp(name, ((const struct redis_doc *)doc)->name);
}

static const struct redis_doc *redis_doc_of(const char *name)
{
    return bsearch(name, redis_docs, redis_docs_count, sizeof(redis_docs[0]), doc_cmp);
}

/* The count after a RESP3 type byte at *p; *p moves past its line. */
static long long stored_count(const char **p)
{
    char *end;
    long long n = strtoll(*p + 1, &end, 10);
    *p = end + 2;
    return n;
}

/* Re-emits the RESP3 value at p, redis_docs.c's (so well formed), in o's
 * protocol: maps and sets become arrays under RESP2 as rbkv's own replies
 * do. Returns the byte after it. */
static const char *add_stored(struct resp_out *o, const char *p)
{
    char kind = *p;
    if (kind == '+') {
        char status[64];
        size_t len = strcspn(p + 1, "\r");
        snprintf(status, sizeof(status), "%.*s", (int)len, p + 1);
        resp_add_simple(o, status);
        return p + 1 + len + 2;
    }
    long long n = stored_count(&p);
    switch (kind) {
    case '$':
        resp_add_bulk(o, p, (size_t)n);
        return p + n + 2;
    case ':':
        resp_add_int(o, n);
        return p;
    case '%':
        resp_add_map_len(o, (size_t)n);
        n *= 2;
        break;
    case '~':
        resp_add_set_len(o, (size_t)n);
        break;
    default:
        resp_add_array_len(o, (size_t)n);
        break;
    }
    while (n-- > 0)
        p = add_stored(o, p);
    return p;
}

static void add_subcommand_docs(struct resp_out *o, const struct command *cmd,
                                struct args_parser *p);

const char *command_docs_misplaced(const struct command *table)
{
    for (const struct command *cmd = table; cmd && cmd->name; cmd++) {
        if ((redis_doc_of(cmd->name) != NULL) == (cmd->docs != NULL))
            return cmd->name;
        const char *bad = command_docs_misplaced(cmd->subcommands);
        if (bad)
            return bad;
    }
    return NULL;
}

/* name, then its docs map. p is scratch space, reused across commands.
 * A command Redis has answers Redis's docs; rbkv's own, its row's docs. */
static void add_command_docs(struct resp_out *o, const struct command *cmd, struct args_parser *p)
{
    const struct redis_doc *doc = redis_doc_of(cmd->name);
    if (doc) {
        const char *at = doc->resp3;
        long long fields = stored_count(&at);
        resp_add_bulk_cstr(o, cmd->name);
        resp_add_map_len(o, (size_t)fields + (cmd->subcommands != NULL));
        for (long long i = 0; i < 2 * fields; i++)
            at = add_stored(o, at);
        add_subcommand_docs(o, cmd, p);
        return;
    }
    /* A row with no docs at all is refused at start (commands_register). */
    static const struct command_docs none;
    const struct command_docs *docs = cmd->docs ? cmd->docs : &none;
    const char *syntax = or_empty(docs->args);
    struct arg_list top = args_parse(p, syntax);
    if (p->failed)
        log_warning("COMMAND DOCS: cannot parse the argument syntax of '%s': %s", cmd->name,
                    syntax);

    resp_add_bulk_cstr(o, cmd->name);
    resp_add_map_len(o, 4 + (size_t)(p->failed || top.n > 0) + (cmd->subcommands != NULL));
    resp_add_bulk_cstr(o, "summary");
    resp_add_bulk_cstr(o, or_empty(docs->summary));
    resp_add_bulk_cstr(o, "since");
    resp_add_bulk_cstr(o, or_empty(docs->since));
    resp_add_bulk_cstr(o, "group");
    resp_add_bulk_cstr(o, or_empty(cmd->group));
    resp_add_bulk_cstr(o, "complexity");
    resp_add_bulk_cstr(o, or_empty(docs->complexity));
    if (p->failed) {
        resp_add_bulk_cstr(o, "arguments");
        resp_add_array_len(o, 1);
        resp_add_map_len(o, 2);
        resp_add_bulk_cstr(o, "name");
        resp_add_bulk_cstr(o, syntax);
        resp_add_bulk_cstr(o, "type");
        resp_add_bulk_cstr(o, arg_type_names[ARG_STRING]);
    } else if (top.n > 0) {
        resp_add_bulk_cstr(o, "arguments");
        add_arg_list(o, p, top.head, cmd->first_key > 0);
    }
    add_subcommand_docs(o, cmd, p);
}

/* The "subcommands" field, when cmd has any: the ones rbkv has. */
static void add_subcommand_docs(struct resp_out *o, const struct command *cmd,
                                struct args_parser *p)
{
    if (!cmd->subcommands)
        return;
    resp_add_bulk_cstr(o, "subcommands");
    resp_add_map_len(o, subcommand_count(cmd));
    for (const struct command *sub = cmd->subcommands; sub->name; sub++)
        add_command_docs(o, sub, p);
}

/* ---- COMMAND INFO: flags, ACL categories, key specs ---- */

/* In Redis's order and spelling. */
static const struct {
    unsigned flag;
    const char *name;
} command_flag_names[] = {
    {CMD_WRITE, "write"},
    {CMD_READONLY, "readonly"},
    {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},
    {CMD_PUBSUB, "pubsub"},
    {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"},
    {CMD_LOADING, "loading"},
    {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"},
    {CMD_SKIP_SLOWLOG, "skip_slowlog"},
    {CMD_ASKING, "asking"},
    {CMD_FAST, "fast"},
    {CMD_NOAUTH, "no_auth"},
    {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"},
    {CMD_NO_ASYNC_LOADING, "no_async_loading"},
    {CMD_NO_MULTI, "no_multi"},
    {CMD_MOVABLE_KEYS, "movablekeys"},
    {CMD_ALLOW_BUSY, "allow_busy"},
};

static void add_command_flags(struct resp_out *o, const struct command *cmd)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof(command_flag_names) / sizeof(command_flag_names[0]); i++)
        n += (cmd->flags & command_flag_names[i].flag) != 0;
    resp_add_set_len(o, n);
    for (size_t i = 0; i < sizeof(command_flag_names) / sizeof(command_flag_names[0]); i++) {
        if (cmd->flags & command_flag_names[i].flag)
            resp_add_simple(o, command_flag_names[i].name);
    }
}

static void add_acl_categories(struct resp_out *o, unsigned cats)
{
    resp_add_set_len(o, (size_t)__builtin_popcount(cats));
    for (int i = 0; i < ACL_CATEGORY_COUNT; i++) {
        char name[32];
        if (!(cats & 1u << i))
            continue;
        snprintf(name, sizeof(name), "@%s", acl_category_names[i]);
        resp_add_simple(o, name);
    }
}

/* Key spec flags by name, in the order Redis prints them. */
static const struct {
    unsigned flag;
    const char *name;
} key_flag_names[] = {
    {KEY_RO, "RO"},          {KEY_RW, "RW"},         {KEY_OW, "OW"},
    {KEY_RM, "RM"},          {KEY_ACCESS, "access"}, {KEY_UPDATE, "update"},
    {KEY_INSERT, "insert"},  {KEY_DELETE, "delete"}, {KEY_NOT_KEY, "not_key"},
    {KEY_INCOMPLETE, "incomplete"}, {KEY_VARIABLE_FLAGS, "variable_flags"},
};

static void add_key_flags(struct resp_out *o, unsigned flags)
{
    size_t n = sizeof(key_flag_names) / sizeof(key_flag_names[0]);
    resp_add_set_len(o, (size_t)__builtin_popcount(flags));
    for (size_t i = 0; i < n; i++) {
        if (flags & key_flag_names[i].flag)
            resp_add_simple(o, key_flag_names[i].name);
    }
}

/* A {name: integer} pair of a spec's map. */
static void add_int_field(struct resp_out *o, const char *name, long long v)
{
    resp_add_bulk_cstr(o, name);
    resp_add_int(o, v);
}

/* An unknown spec's begin_search or find_keys, as Redis: an empty spec. */
static void add_unknown_search(struct resp_out *o, const char *name)
{
    resp_add_bulk_cstr(o, name);
    resp_add_map_len(o, 2);
    resp_add_bulk_cstr(o, "type");
    resp_add_bulk_cstr(o, "unknown");
    resp_add_bulk_cstr(o, "spec");
    resp_add_map_len(o, 0);
}

static void add_key_spec(struct resp_out *o, const struct key_spec *k)
{
    resp_add_map_len(o, k->notes ? 4 : 3);
    if (k->notes) {
        resp_add_bulk_cstr(o, "notes");
        resp_add_bulk_cstr(o, k->notes);
    }
    resp_add_bulk_cstr(o, "flags");
    add_key_flags(o, k->flags);
    if (k->unknown) {
        add_unknown_search(o, "begin_search");
        add_unknown_search(o, "find_keys");
        return;
    }
    resp_add_bulk_cstr(o, "begin_search");
    resp_add_map_len(o, 2);
    resp_add_bulk_cstr(o, "type");
    resp_add_bulk_cstr(o, k->keyword ? "keyword" : "index");
    resp_add_bulk_cstr(o, "spec");
    resp_add_map_len(o, k->keyword ? 2 : 1);
    if (k->keyword) {
        resp_add_bulk_cstr(o, "keyword");
        resp_add_bulk_cstr(o, k->keyword);
        add_int_field(o, "startfrom", k->index);
    } else {
        add_int_field(o, "index", k->index);
    }
    resp_add_bulk_cstr(o, "find_keys");
    resp_add_map_len(o, 2);
    resp_add_bulk_cstr(o, "type");
    resp_add_bulk_cstr(o, k->keynum ? "keynum" : "range");
    resp_add_bulk_cstr(o, "spec");
    resp_add_map_len(o, 3);
    if (k->keynum) {
        add_int_field(o, "keynumidx", k->keynumidx);
        add_int_field(o, "firstkey", k->firstkey);
    } else {
        add_int_field(o, "lastkey", k->lastkey);
    }
    add_int_field(o, "keystep", k->keystep);
    if (!k->keynum)
        add_int_field(o, "limit", k->limit);
}

/* The command's own key specs (a container has none: its subcommands do). */
static void add_key_specs(struct resp_out *o, const struct command *cmd)
{
    const struct command_key_specs *specs = keyspec_of(cmd);
    int n = specs ? specs->count : 0;
    resp_add_set_len(o, (size_t)n);
    for (int j = 0; j < n; j++)
        add_key_spec(o, &specs->specs[j]);
}

/* Redis 7's ten-element entry: tips are empty; a container's last element
 * holds each subcommand's own entry. */
static void add_command_info(struct resp_out *o, const struct command *cmd)
{
    resp_add_array_len(o, 10);
    resp_add_bulk_cstr(o, cmd->name);
    resp_add_int(o, cmd->arity);
    add_command_flags(o, cmd);
    resp_add_int(o, cmd->first_key);
    resp_add_int(o, cmd->last_key);
    resp_add_int(o, cmd->key_step);
    add_acl_categories(o, acl_command_categories(cmd));
    resp_add_set_len(o, 0);
    add_key_specs(o, cmd);
    resp_add_array_len(o, subcommand_count(cmd));
    for (const struct command *sub = cmd->subcommands; sub && sub->name; sub++)
        add_command_info(o, sub);
}

/* ---- Subcommands ---- */

static void command_all_info(struct client *c)
{
    resp_add_array_len(&c->out, command_count());
    for (size_t i = 0; i < command_count(); i++)
        add_command_info(&c->out, command_at(i));
}

static void command_count_proc(struct client *c)
{
    resp_add_int(&c->out, (long long)command_count());
}

/* COMMAND INFO [name ...]: nil for a name that is not a command; a
 * subcommand is named "container|sub". */
static void command_info(struct client *c)
{
    if (c->argc == 2) {
        command_all_info(c);
        return;
    }
    resp_add_array_len(&c->out, (size_t)(c->argc - 2));
    for (int i = 2; i < c->argc; i++) {
        const struct command *cmd = command_lookup_fullname(c->argv[i].ptr, c->argv[i].len);
        if (cmd)
            add_command_info(&c->out, cmd);
        else
            resp_add_null(&c->out);
    }
}

/* COMMAND DOCS [name ...]: a map that leaves unknown names out. */
static void command_docs(struct client *c)
{
    struct args_parser parser;

    if (c->argc == 2) {
        resp_add_map_len(&c->out, command_count());
        for (size_t i = 0; i < command_count(); i++)
            add_command_docs(&c->out, command_at(i), &parser);
        return;
    }
    size_t found = 0;
    for (int i = 2; i < c->argc; i++)
        found += command_lookup_fullname(c->argv[i].ptr, c->argv[i].len) != NULL;
    resp_add_map_len(&c->out, found);
    for (int i = 2; i < c->argc; i++) {
        const struct command *cmd = command_lookup_fullname(c->argv[i].ptr, c->argv[i].len);
        if (cmd)
            add_command_docs(&c->out, cmd, &parser);
    }
}

/* COMMAND LIST [FILTERBY MODULE m|ACLCAT c|PATTERN p]. No modules exist, so
 * MODULE matches nothing; PATTERN is a case-insensitive glob, as in Redis. */
static void command_list(struct client *c)
{
    const struct resp_slice *kind = NULL, *arg = NULL;
    int category = -1;

    if (c->argc == 5 && arg_is(&c->argv[2], "FILTERBY")) {
        kind = &c->argv[3];
        arg = &c->argv[4];
        if (!arg_is(kind, "MODULE") && !arg_is(kind, "ACLCAT") && !arg_is(kind, "PATTERN")) {
            resp_add_error(&c->out, ERR_SYNTAX);
            return;
        }
        category = acl_category_lookup(arg->ptr, arg->len);
    } else if (c->argc != 2) {
        resp_add_error(&c->out, ERR_SYNTAX);
        return;
    }

    struct resp_deferred len;
    size_t n = 0;
    resp_add_deferred(&c->out, &len);
    /* Subcommands are listed after their container, as Redis 7.0 does. */
    for (size_t i = 0; i < command_row_count(); i++) {
        const struct command *cmd = command_row_at(i);
        int match;
        if (!kind)
            match = 1;
        else if (arg_is(kind, "PATTERN"))
            match = glob_match(arg->ptr, arg->len, cmd->name, strlen(cmd->name), 1);
        else if (arg_is(kind, "ACLCAT"))
            match = category >= 0 && (acl_command_categories(cmd) & 1u << category);
        else
            match = 0;
        if (match) {
            resp_add_bulk_cstr(&c->out, cmd->name);
            n++;
        }
    }
    resp_set_deferred_array(&c->out, &len, n);
}

struct getkeys_reply {
    struct resp_out *o;
    const struct resp_slice *argv;
    int with_flags;
};

static int count_key_cb(void *ctx, int pos, unsigned flags)
{
    (void)ctx, (void)pos, (void)flags;
    return 0;
}

static int add_key_cb(void *ctx, int pos, unsigned flags)
{
    struct getkeys_reply *r = ctx;
    if (r->with_flags)
        resp_add_array_len(r->o, 2);
    resp_add_bulk(r->o, r->argv[pos].ptr, r->argv[pos].len);
    if (r->with_flags)
        add_key_flags(r->o, flags);
    return 0;
}

/*
 * COMMAND GETKEYS|GETKEYSANDFLAGS cmd arg...: the keys the command's key
 * specs find in that request (keyspec_visit, as the ACL check reads them),
 * with Redis's errors in its order: unknown command, no keys, wrong
 * argument count (a subcommand's own), then no key found.
 */
static void command_getkeys_generic(struct client *c, int with_flags)
{
    const struct resp_slice *argv = c->argv + 2;
    int argc = c->argc - 2;
    const struct command *cmd = command_resolve(argc, argv);

    if (!cmd) {
        resp_add_error(&c->out, "ERR Invalid command specified");
        return;
    }
    const struct command_key_specs *specs = keyspec_of(cmd);
    if (!keyspec_has_keys(specs)) {
        resp_add_error(&c->out, "ERR The command has no key arguments");
        return;
    }
    int arity = cmd->arity;
    if ((arity > 0 && arity != argc) || argc < -arity) {
        resp_add_error(&c->out, "ERR Invalid number of arguments specified for command");
        return;
    }
    int keys = keyspec_visit(specs, argc, argv, count_key_cb, NULL);
    if (keys == 0 && !(cmd->flags & CMD_NO_MANDATORY_KEYS)) {
        resp_add_error(&c->out, "ERR Invalid arguments specified for command");
        return;
    }
    struct getkeys_reply r = {&c->out, argv, with_flags};
    resp_add_array_len(&c->out, (size_t)keys);
    keyspec_visit(specs, argc, argv, add_key_cb, &r);
}

static void command_getkeys(struct client *c)
{
    command_getkeys_generic(c, 0);
}

static void command_getkeysandflags(struct client *c)
{
    command_getkeys_generic(c, 1);
}

static void command_help(struct client *c)
{
    static const char *const help[] = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
    };
    reply_help(c, help, sizeof(help) / sizeof(help[0]));
}

static const struct command command_subcommands[] = {
    {.name = "command|count", .proc = command_count_proc, .arity = 2,
     .flags = CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "command|list", .proc = command_list, .arity = -2,
     .flags = CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "command|info", .proc = command_info, .arity = -2,
     .flags = CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "command|docs", .proc = command_docs, .arity = -2,
     .flags = CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "command|getkeys", .proc = command_getkeys, .arity = -4,
     .flags = CMD_LOADING | CMD_STALE, .group = "server"},
    {.name = "command|getkeysandflags", .proc = command_getkeysandflags, .arity = -4,
     .flags = CMD_LOADING | CMD_STALE, .group = "server"},
    SUBCOMMAND_HELP("command|help", command_help, "server"),
    {0},
};

const struct command command_commands[] = {
    {.name = "command", .proc = command_all_info, .arity = -1,
     .flags = CMD_LOADING | CMD_STALE,
     .group = "server", .subcommands = command_subcommands},
    {0},
};
