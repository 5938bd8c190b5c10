/*
 * xgroup.c - a stream's consumer groups, their consumers and their pending
 * entries lists, in intrusive red-black trees (see xgroup.h).
 */
#include "xgroup.h"

#include <string.h>

#include "mem.h"

/* Byte order, then length: the order of Redis's rax of names. */
static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    if (r)
        return r;
    return alen < blen ? -1 : alen > blen;
}

static struct xg_group *group_of(const struct rb_node *n)
{
    return n ? rb_entry(n, struct xg_group, node) : NULL;
}

static struct xg_consumer *consumer_of(const struct rb_node *n)
{
    return n ? rb_entry(n, struct xg_consumer, node) : NULL;
}

/* A pending entry of a group's PEL (gnode) or of a consumer's (cnode). */
static struct xg_pending *pending_of(const struct rb_node *n, int in_consumer)
{
    if (!n)
        return NULL;
    return in_consumer ? rb_entry(n, struct xg_pending, cnode) : rb_entry(n, struct xg_pending, gnode);
}

/* ---- pending entries ---- */

static void pel_insert(struct rb_root *root, struct xg_pending *p, int in_consumer)
{
    struct rb_node **link = &root->rb_node, *parent = NULL;
    struct rb_node *node = in_consumer ? &p->cnode : &p->gnode;
    while (*link) {
        parent = *link;
        if (xs_id_cmp(&p->id, &pending_of(parent, in_consumer)->id) < 0)
            link = &parent->rb_left;
        else
            link = &parent->rb_right;
    }
    rb_link_node(node, parent, link);
    rb_insert_color(node, root);
}

/* The first entry of root with an ID >= id. */
static struct xg_pending *pel_seek(const struct rb_root *root, const struct xs_id *id,
                                   int in_consumer)
{
    struct rb_node *n = root->rb_node, *best = NULL;
    while (n) {
        if (xs_id_cmp(&pending_of(n, in_consumer)->id, id) >= 0) {
            best = n;
            n = n->rb_left;
        } else {
            n = n->rb_right;
        }
    }
    return pending_of(best, in_consumer);
}

struct xg_pending *xg_pending_find(const struct xg_group *g, const struct xs_id *id)
{
    struct xg_pending *p = pel_seek(&g->pel, id, 0);
    return p && xs_id_cmp(&p->id, id) == 0 ? p : NULL;
}

struct xg_pending *xg_pending_add(struct xg_group *g, struct xg_consumer *c,
                                  const struct xs_id *id, int64_t now)
{
    struct xg_pending *p = xmalloc(sizeof(*p));
    p->id = *id;
    p->delivery_time = now;
    p->delivery_count = 1;
    p->consumer = NULL;
    pel_insert(&g->pel, p, 0);
    g->pel_count++;
    if (c)
        xg_pending_attach(p, c);
    return p;
}

void xg_pending_attach(struct xg_pending *p, struct xg_consumer *c)
{
    p->consumer = c;
    pel_insert(&c->pel, p, 1);
    c->pel_count++;
}

void xg_pending_move(struct xg_pending *p, struct xg_consumer *c)
{
    if (p->consumer == c)
        return;
    rb_erase(&p->cnode, &p->consumer->pel);
    p->consumer->pel_count--;
    p->consumer = c;
    pel_insert(&c->pel, p, 1);
    c->pel_count++;
}

void xg_pending_ack(struct xg_group *g, struct xg_pending *p)
{
    rb_erase(&p->gnode, &g->pel);
    g->pel_count--;
    rb_erase(&p->cnode, &p->consumer->pel);
    p->consumer->pel_count--;
    xfree(p);
}

struct xg_pending *xg_pending_seek(const struct xg_group *g, const struct xg_consumer *c,
                                   const struct xs_id *id)
{
    return c ? pel_seek(&c->pel, id, 1) : pel_seek(&g->pel, id, 0);
}

struct xg_pending *xg_pending_next(const struct xg_pending *p, const struct xg_consumer *c)
{
    return c ? pending_of(rb_next(&p->cnode), 1) : pending_of(rb_next(&p->gnode), 0);
}

struct xg_pending *xg_pending_first(const struct xg_group *g)
{
    return pending_of(rb_first(&g->pel), 0);
}

struct xg_pending *xg_pending_last(const struct xg_group *g)
{
    return pending_of(rb_last(&g->pel), 0);
}

/* ---- consumers ---- */

struct xg_consumer *xg_consumer_find(const struct xg_group *g, const char *name, size_t nlen)
{
    struct rb_node *n = g->consumers.rb_node;
    while (n) {
        struct xg_consumer *c = consumer_of(n);
        int r = name_cmp(name, nlen, c->name, c->nlen);
        if (r == 0)
            return c;
        n = r < 0 ? n->rb_left : n->rb_right;
    }
    return NULL;
}

struct xg_consumer *xg_consumer_create(struct xg_group *g, const char *name, size_t nlen,
                                       int64_t now)
{
    struct rb_node **link = &g->consumers.rb_node, *parent = NULL;
    while (*link) {
        struct xg_consumer *o = consumer_of(*link);
        int r = name_cmp(name, nlen, o->name, o->nlen);
        if (r == 0)
            return NULL;
        parent = *link;
        link = r < 0 ? &parent->rb_left : &parent->rb_right;
    }
    struct xg_consumer *c = xmalloc(sizeof(*c) + nlen);
    c->pel = RB_ROOT;
    c->pel_count = 0;
    c->seen_time = now;
    c->nlen = nlen;
    memcpy(c->name, name, nlen);
    rb_link_node(&c->node, parent, link);
    rb_insert_color(&c->node, &g->consumers);
    g->nconsumers++;
    return c;
}

void xg_consumer_delete(struct xg_group *g, struct xg_consumer *c)
{
    struct xg_pending *p, *next;
    rbtree_postorder_for_each_entry_safe(p, next, &c->pel, cnode)
    {
        rb_erase(&p->gnode, &g->pel);
        g->pel_count--;
        xfree(p);
    }
    rb_erase(&c->node, &g->consumers);
    g->nconsumers--;
    xfree(c);
}

struct xg_consumer *xg_consumer_first(const struct xg_group *g)
{
    return consumer_of(rb_first(&g->consumers));
}

struct xg_consumer *xg_consumer_next(const struct xg_consumer *c)
{
    return consumer_of(rb_next(&c->node));
}

/* ---- groups ---- */

struct xg_group *xg_find(const struct xstream *s, const char *name, size_t nlen)
{
    struct rb_node *n = s->groups.rb_node;
    while (n) {
        struct xg_group *g = group_of(n);
        int r = name_cmp(name, nlen, g->name, g->nlen);
        if (r == 0)
            return g;
        n = r < 0 ? n->rb_left : n->rb_right;
    }
    return NULL;
}

struct xg_group *xg_create(struct xstream *s, const char *name, size_t nlen,
                           const struct xs_id *last_id, int64_t entries_read)
{
    struct rb_node **link = &s->groups.rb_node, *parent = NULL;
    while (*link) {
        struct xg_group *o = group_of(*link);
        int r = name_cmp(name, nlen, o->name, o->nlen);
        if (r == 0)
            return NULL;
        parent = *link;
        link = r < 0 ? &parent->rb_left : &parent->rb_right;
    }
    struct xg_group *g = xmalloc(sizeof(*g) + nlen);
    g->last_id = *last_id;
    g->entries_read = entries_read;
    g->pel = RB_ROOT;
    g->pel_count = 0;
    g->consumers = RB_ROOT;
    g->nconsumers = 0;
    g->nlen = nlen;
    memcpy(g->name, name, nlen);
    rb_link_node(&g->node, parent, link);
    rb_insert_color(&g->node, &s->groups);
    s->ngroups++;
    return g;
}

/* Frees g's consumers and pending entries, not g. */
static void group_clear(struct xg_group *g)
{
    struct xg_pending *p, *pn;
    rbtree_postorder_for_each_entry_safe(p, pn, &g->pel, gnode)
        xfree(p);
    struct xg_consumer *c, *cn;
    rbtree_postorder_for_each_entry_safe(c, cn, &g->consumers, node)
        xfree(c);
}

void xg_destroy(struct xstream *s, struct xg_group *g)
{
    rb_erase(&g->node, &s->groups);
    s->ngroups--;
    group_clear(g);
    xfree(g);
}

void xg_free_all(struct xstream *s)
{
    struct xg_group *g, *n;
    rbtree_postorder_for_each_entry_safe(g, n, &s->groups, node)
    {
        group_clear(g);
        xfree(g);
    }
    s->groups = RB_ROOT;
    s->ngroups = 0;
}

struct xg_group *xg_first(const struct xstream *s)
{
    return group_of(rb_first(&s->groups));
}

struct xg_group *xg_next(const struct xg_group *g)
{
    return group_of(rb_next(&g->node));
}

void xg_clone_all(struct xstream *to, const struct xstream *from)
{
    to->groups = RB_ROOT;
    to->ngroups = 0;
    for (struct xg_group *g = xg_first(from); g; g = xg_next(g)) {
        struct xg_group *ng = xg_create(to, g->name, g->nlen, &g->last_id, g->entries_read);
        for (struct xg_consumer *c = xg_consumer_first(g); c; c = xg_consumer_next(c)) {
            struct xg_consumer *nc = xg_consumer_create(ng, c->name, c->nlen, c->seen_time);
            for (struct xg_pending *p = pending_of(rb_first(&c->pel), 1); p;
                 p = xg_pending_next(p, c)) {
                struct xg_pending *np = xg_pending_add(ng, nc, &p->id, p->delivery_time);
                np->delivery_count = p->delivery_count;
            }
        }
    }
}

size_t xg_memory(const struct xstream *s)
{
    size_t n = 0;
    for (struct xg_group *g = xg_first(s); g; g = xg_next(g)) {
        n += xsize(g);
        for (struct xg_consumer *c = xg_consumer_first(g); c; c = xg_consumer_next(c))
            n += xsize(c);
        n += g->pel_count * sizeof(struct xg_pending);
    }
    return n;
}

int xg_check(const struct xstream *s, const char **why)
{
    size_t ngroups = 0;
    for (struct xg_group *g = xg_first(s); g; g = xg_next(g), ngroups++) {
        size_t in_consumers = 0, nconsumers = 0, in_group = 0;
        for (struct xg_consumer *c = xg_consumer_first(g); c; c = xg_consumer_next(c)) {
            size_t own = 0;
            nconsumers++;
            for (struct xg_pending *p = pending_of(rb_first(&c->pel), 1); p;
                 p = xg_pending_next(p, c), own++) {
                if (p->consumer != c || xg_pending_find(g, &p->id) != p) {
                    *why = "a consumer's pending entry is not its group's";
                    return -1;
                }
            }
            if (own != c->pel_count) {
                *why = "a consumer's pel_count is not its PEL's size";
                return -1;
            }
            in_consumers += own;
        }
        for (struct xg_pending *p = xg_pending_first(g); p; p = xg_pending_next(p, NULL))
            in_group++;
        if (in_group != g->pel_count || in_group != in_consumers || nconsumers != g->nconsumers) {
            *why = "a group's counts do not match its trees";
            return -1;
        }
    }
    if (ngroups != s->ngroups) {
        *why = "ngroups is not the number of groups";
        return -1;
    }
    return 0;
}
