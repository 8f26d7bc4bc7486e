/* csr.c — the two-pass CSR builder (see csr.h). */
#include "src/base/csr.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

void csr_begin(Csr *c, int n)
{
    c->n = n;
    c->off = xcalloc((size_t)n + 1, sizeof *c->off);
    c->adj = NULL;
    c->fill = NULL;
}

int csr_next(Csr *c)
{
    if (c->adj) {
        free(c->fill);
        c->fill = NULL;
        return 0;
    }
    for (int r = 0; r < c->n; r++)
        c->off[r + 1] += c->off[r];
    c->adj = xmallocarray((size_t)c->off[c->n] + 1, sizeof *c->adj);
    c->fill = xmallocarray((size_t)c->n + 1, sizeof *c->fill);
    memcpy(c->fill, c->off, (size_t)c->n * sizeof *c->fill);
    return 1;
}
