/* strmap.h — a string -> int map (open addressing, linear probing) for the
 * loaders' id lookups, so resolving E references among N ids is O(N + E).
 *
 * The map borrows its keys: they must outlive it and not change. Values are
 * non-negative ints (indices); lookups of absent keys return -1.
 */
#ifndef REMAT_STRMAP_H
#define REMAT_STRMAP_H

#include <stdint.h>

typedef struct StrMap {
    const char **key;   /* NULL = empty slot */
    int *val;
    int cap, n;         /* cap is a power of two, kept >= 2n */
} StrMap;

void strmap_init(StrMap *m);
void strmap_done(StrMap *m);
/* Insert or replace; returns the previous value, or -1 when k was new. */
int strmap_put(StrMap *m, const char *k, int v);
int strmap_get(const StrMap *m, const char *k);

/* FNV-1a: the hash every id map of the project uses. */
uint64_t str_hash(const char *s);

#endif
