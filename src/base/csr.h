/* csr.h — compressed sparse rows (row r's entries at adj[off[r] ..
 * off[r+1])) built in two passes over the same entries, so a caller writes
 * its enumeration once instead of once to count and again to place:
 *
 *     Csr c;
 *     csr_begin(&c, rows);
 *     do
 *         for (each entry x of row r)
 *             csr_put(&c, r, x);
 *     while (csr_next(&c));
 *
 * The first pass counts each row's entries; csr_next turns the counts into
 * offsets and allocates adj; the second pass stores the entries, each row
 * in the order they come, and csr_next returns 0. The caller owns c.off
 * (rows + 1 ints) and c.adj (at least one int) and frees them. */
#ifndef REMAT_CSR_H
#define REMAT_CSR_H

typedef struct Csr {
    int n;        /* rows */
    int *off;     /* rows + 1 offsets (counts during the first pass) */
    int *adj;     /* the entries; NULL during the first pass */
    int *fill;    /* next free place of each row, during the second pass */
} Csr;

/* Zero counts for n rows; the first pass starts. */
void csr_begin(Csr *c, int n);
/* Count (first pass) or store (second pass) entry x of row r. */
static inline void csr_put(Csr *c, int r, int x)
{
    if (c->adj)
        c->adj[c->fill[r]++] = x;
    else
        c->off[r + 1]++;
}
/* After the first pass: offsets made, adj allocated, returns 1 for the
 * second pass. After the second: returns 0. */
int csr_next(Csr *c);

#endif
