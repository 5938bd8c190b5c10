/*
 * test_rbtree_example.c - compiles and runs the two usage examples from the
 * top comment of server/rbtree/rbtree.h, so the documented pattern is known to work.
 *
 * Owns: nothing beyond its own items. The code between each BEGIN EXAMPLE and
 * END EXAMPLE line must equal the header's block of the same name; the CTest
 * rbtree_example_sync compares them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rbtree.h"

/* BEGIN EXAMPLE int-key */
struct int_item {
    struct rb_node node;
    int key;
};

// Returns the item holding `key`, or NULL.
static struct int_item *int_search(const struct rb_root *root, int key)
{
    const struct rb_node *n = root->rb_node;

    while (n) {
        struct int_item *item = rb_entry(n, struct int_item, node);

        if (key < item->key)
            n = n->rb_left;
        else if (key > item->key)
            n = n->rb_right;
        else
            return item;
    }
    return NULL;
}

// Links `item` and returns NULL, or, when its key is taken, leaves the
// tree alone and returns the item that holds it.
static struct int_item *int_insert(struct rb_root *root, struct int_item *item)
{
    struct rb_node **link = &root->rb_node, *parent = NULL;

    while (*link) {
        struct int_item *cur = rb_entry(*link, struct int_item, node);

        parent = *link;
        if (item->key < cur->key)
            link = &parent->rb_left;
        else if (item->key > cur->key)
            link = &parent->rb_right;
        else
            return cur;
    }
    rb_link_node(&item->node, parent, link);
    rb_insert_color(&item->node, root);
    return NULL;
}
/* END EXAMPLE int-key */

/* BEGIN EXAMPLE string-key */
struct str_item {
    struct rb_node node;
    const char *key; // NUL-terminated, owned by whoever owns the item
};

static struct str_item *str_search(const struct rb_root *root, const char *key)
{
    const struct rb_node *n = root->rb_node;

    while (n) {
        struct str_item *item = rb_entry(n, struct str_item, node);
        int cmp = strcmp(key, item->key);

        if (cmp < 0)
            n = n->rb_left;
        else if (cmp > 0)
            n = n->rb_right;
        else
            return item;
    }
    return NULL;
}

static struct str_item *str_insert(struct rb_root *root, struct str_item *item)
{
    struct rb_node **link = &root->rb_node, *parent = NULL;

    while (*link) {
        struct str_item *cur = rb_entry(*link, struct str_item, node);
        int cmp = strcmp(item->key, cur->key);

        parent = *link;
        if (cmp < 0)
            link = &parent->rb_left;
        else if (cmp > 0)
            link = &parent->rb_right;
        else
            return cur;
    }
    rb_link_node(&item->node, parent, link);
    rb_insert_color(&item->node, root);
    return NULL;
}
/* END EXAMPLE string-key */

static void test_int_keys(void)
{
    enum { N = 1000 };
    struct rb_root root = RB_ROOT;
    struct int_item *pos, *next;
    int expect = 0, freed = 0;

    /* 7 is coprime with N, so k * 7 % N visits every key once, out of order. */
    for (int k = 0; k < N; k++) {
        struct int_item *item = malloc(sizeof(*item));

        CHECK(item != NULL);
        item->key = k * 7 % N;
        CHECK(int_insert(&root, item) == NULL);
    }
    for (int k = 0; k < N; k++) {
        struct int_item dup = { .key = k };

        CHECK(int_search(&root, k) != NULL && int_search(&root, k)->key == k);
        CHECK(int_insert(&root, &dup) == int_search(&root, k));
    }
    CHECK(int_search(&root, -1) == NULL && int_search(&root, N) == NULL);
    CHECK(rb_check(&root, NULL) == N);
    for (struct rb_node *n = rb_first(&root); n; n = rb_next(n))
        CHECK(rb_entry(n, struct int_item, node)->key == expect++);
    CHECK(expect == N);

    rbtree_postorder_for_each_entry_safe(pos, next, &root, node) {
        free(pos);
        freed++;
    }
    root = RB_ROOT;
    CHECK(freed == N && RB_EMPTY_ROOT(&root));
}

static void test_string_keys(void)
{
    static const char *const words[] = { "pear", "apple", "fig", "kiwi", "banana", "cherry", "date" };
    static const char *const sorted[] = { "apple", "banana", "cherry", "date", "fig", "kiwi", "pear" };
    enum { N = sizeof(words) / sizeof(words[0]) };
    struct str_item items[N], dup = { .key = "fig" };
    struct rb_root root = RB_ROOT;
    size_t i = 0;

    for (size_t k = 0; k < N; k++) {
        items[k].key = words[k];
        CHECK(str_insert(&root, &items[k]) == NULL);
    }
    CHECK(str_insert(&root, &dup) == &items[2]);
    CHECK(str_search(&root, "kiwi") == &items[3]);
    CHECK(str_search(&root, "grape") == NULL);
    CHECK(rb_check(&root, NULL) == N);
    for (struct rb_node *n = rb_first(&root); n; n = rb_next(n))
        CHECK(strcmp(rb_entry(n, struct str_item, node)->key, sorted[i++]) == 0);
    CHECK(i == N);
}

int main(void)
{
    test_int_keys();
    test_string_keys();
    printf("ok example\n");
    return 0;
}
