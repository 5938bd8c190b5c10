/*
 * range_opts.c - the range commands' options (range_opts.h).
 */
#include "range_opts.h"

#include "args.h"
#include "command.h"
#include "krange.h"
#include "resp_writer.h"

int range_opts_or_reply(struct client *c, int first, unsigned allowed, struct range_opts *o)
{
    *o = (struct range_opts){.count = -1, .type = RANGE_TYPE_ANY};
    for (int j = first; j < c->argc; j++) {
        const struct resp_slice *a = &c->argv[j];
        int left = c->argc - j - 1;
        if ((allowed & RANGE_BYLEX) && arg_is(a, "BYLEX")) {
            o->flags |= RANGE_BYLEX;
        } else if ((allowed & RANGE_REV) && arg_is(a, "REV")) {
            o->flags |= RANGE_REV;
        } else if ((allowed & RANGE_WITHVALUES) && arg_is(a, "WITHVALUES")) {
            o->flags |= RANGE_WITHVALUES;
        } else if ((allowed & RANGE_LIMIT) && arg_is(a, "LIMIT") && left >= 2) {
            if (arg_ll_or_reply(c, &c->argv[j + 1], &o->offset) < 0 ||
                arg_ll_or_reply(c, &c->argv[j + 2], &o->count) < 0)
                return -1;
            o->flags |= RANGE_LIMIT;
            j += 2;
        } else if ((allowed & RANGE_TYPE) && arg_is(a, "TYPE") && left >= 1) {
            o->type = kr_type_by_name(c->argv[j + 1].ptr, c->argv[j + 1].len);
            o->flags |= RANGE_TYPE;
            j++;
        } else {
            resp_add_error(&c->out, ERR_SYNTAX);
            return -1;
        }
    }
    if ((o->flags & RANGE_LIMIT) && (allowed & RANGE_BYLEX) && !(o->flags & RANGE_BYLEX)) {
        resp_add_error(&c->out, ERR_LIMIT_BYLEX);
        return -1;
    }
    return 0;
}
