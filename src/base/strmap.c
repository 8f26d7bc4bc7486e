/* strmap.c — string -> int map with borrowed keys (see strmap.h). */
#include "src/base/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

void strmap_init(StrMap *m)
{
    memset(m, 0, sizeof *m);
}

void strmap_done(StrMap *m)
{
    free(m->key);
    free(m->val);
    strmap_init(m);
}

static int slot_of(const StrMap *m, const char *k)
{
    unsigned mask = (unsigned)m->cap - 1;
    unsigned i = (unsigned)str_hash(k) & mask;
    while (m->key[i] && strcmp(m->key[i], k) != 0)
        i = (i + 1) & mask;
    return (int)i;
}

static void rehash(StrMap *m, int cap)
{
    StrMap old = *m;
    m->cap = cap;
    m->key = xcalloc((size_t)cap, sizeof *m->key);
    m->val = xmallocarray((size_t)cap, sizeof *m->val);
    for (int i = 0; i < old.cap; i++)
        if (old.key[i]) {
            int s = slot_of(m, old.key[i]);
            m->key[s] = old.key[i];
            m->val[s] = old.val[i];
        }
    free(old.key);
    free(old.val);
}

int strmap_put(StrMap *m, const char *k, int v)
{
    if (2 * (m->n + 1) > m->cap)
        rehash(m, m->cap ? 2 * m->cap : 16);
    int s = slot_of(m, k);
    if (m->key[s]) {
        int old = m->val[s];
        m->val[s] = v;
        return old;
    }
    m->key[s] = k;
    m->val[s] = v;
    m->n++;
    return -1;
}

int strmap_get(const StrMap *m, const char *k)
{
    if (!m->cap)
        return -1;
    int s = slot_of(m, k);
    return m->key[s] ? m->val[s] : -1;
}
