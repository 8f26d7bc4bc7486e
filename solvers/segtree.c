/* segtree.c — the range-add / range-max segment tree of segtree.h: bottom-up
 * (non-recursive) updates, since FastSA calls segtree_add several times per
 * mutation and the tree is the inner loop. */
#include "solvers/segtree.h"

#include <stdlib.h>

#include "src/xalloc.h"

void segtree_init(SegTree *s, int n)
{
    s->n = n;
    s->d = xcalloc((size_t)2 * (size_t)n, sizeof *s->d);
    s->lz = xcalloc((size_t)2 * (size_t)n, sizeof *s->lz);
}

void segtree_done(SegTree *s)
{
    free(s->d);
    free(s->lz);
    s->d = s->lz = NULL;
    s->n = 0;
}

static inline void pull(SegTree *s, int i)
{
    int64_t a = s->d[2 * i], b = s->d[2 * i + 1];
    s->d[i] = (a > b ? a : b) + s->lz[i];
}

void segtree_add(SegTree *s, int l, int r, int64_t v)
{
    int lo = l + s->n, hi = r + s->n + 1;
    int a = lo >> 1, b = (hi - 1) >> 1;
    while (lo < hi) {
        if (lo & 1) {
            s->d[lo] += v;
            s->lz[lo] += v;
            lo++;
        }
        if (hi & 1) {
            --hi;
            s->d[hi] += v;
            s->lz[hi] += v;
        }
        lo >>= 1;
        hi >>= 1;
    }
    /* both ends' ancestors, at equal depth until their paths meet */
    while (a != b) {
        pull(s, a);
        pull(s, b);
        a >>= 1;
        b >>= 1;
    }
    for (; a >= 1; a >>= 1)
        pull(s, a);
}

static int64_t query(const SegTree *s, int i, int nl, int nr, int l, int r)
{
    if (l <= nl && nr <= r)
        return s->d[i];
    int mid = (nl + nr) / 2;
    int64_t best = INT64_MIN;
    if (l <= mid) {
        int64_t x = query(s, 2 * i, nl, mid, l, r);
        best = x > best ? x : best;
    }
    if (r > mid) {
        int64_t x = query(s, 2 * i + 1, mid + 1, nr, l, r);
        best = x > best ? x : best;
    }
    return best + s->lz[i];
}

int64_t segtree_max(const SegTree *s, int l, int r)
{
    return query(s, 1, 0, s->n - 1, l, r);
}
