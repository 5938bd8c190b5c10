/*
 * config_doc.h - the list of every setting, with its default and what it does
 * in rbkv, as docs/operations.md shows it (config_doc.c).
 */
#ifndef RBKV_CONFIG_DOC_H
#define RBKV_CONFIG_DOC_H

/* The Markdown list (a table, then the hidden test hooks), generated from
 * config.c's table: what `rbkv-server --list-config-md` prints and
 * tests/docs/check_config_doc.sh compares with docs/operations.md.
 * Returns an xmalloc'd string. */
char *config_doc_markdown(void);

#endif
