/* segtree.c — the range-add / range-max segment tree of segtree.h: bottom-up
 * (non-recursive) updates, since FastSA calls segtree_add several times per
 * mutation and the tree is the inner loop. */
#include "solvers/fastsa/segtree.h"

#include <math.h>
#include <stdlib.h>

#include "src/base/xalloc.h"

void segtree_init(SegTree *s, int n)
{
    s->n = n;
    s->t = xcalloc((size_t)2 * (size_t)n, sizeof *s->t);
}

void segtree_done(SegTree *s)
{
    free(s->t);
    s->t = NULL;
    s->n = 0;
}

static inline void pull(SegNode *t, int i)
{
    int64_t a = t[2 * i].d, b = t[2 * i + 1].d;
    t[i].d = (a > b ? a : b) + t[i].lz;
}

void segtree_add(SegTree *s, int l, int r, int64_t v)
{
    SegNode *t = s->t;
    int lo = l + s->n, hi = r + s->n + 1;
    int a = lo >> 1, b = (hi - 1) >> 1;
    while (lo < hi) {
        if (lo & 1) {
            t[lo].d += v;
            t[lo].lz += v;
            lo++;
        }
        if (hi & 1) {
            --hi;
            t[hi].d += v;
            t[hi].lz += v;
        }
        lo >>= 1;
        hi >>= 1;
    }
    /* both ends' ancestors, at equal depth until their paths meet */
    while (a != b) {
        pull(t, a);
        pull(t, b);
        a >>= 1;
        b >>= 1;
    }
    for (; a >= 1; a >>= 1)
        pull(t, a);
}

static int64_t query(const SegTree *s, int i, int nl, int nr, int l, int r)
{
    if (l <= nl && nr <= r)
        return s->t[i].d;
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
    return best + s->t[i].lz;
}

int64_t segtree_max(const SegTree *s, int l, int r)
{
    return query(s, 1, 0, s->n - 1, l, r);
}

void segtreef_init(SegTreeF *s, int n, double fill)
{
    s->n = n;
    s->d = xcalloc((size_t)2 * (size_t)n, sizeof *s->d);
    s->lz = xcalloc((size_t)2 * (size_t)n, sizeof *s->lz);
    for (int i = 0; i < n; i++)
        s->d[n + i] = fill;
    for (int i = n - 1; i >= 1; i--) {
        double a = s->d[2 * i], b = s->d[2 * i + 1];
        double m = a > b ? a : b;
        s->d[i] = m + log1p(exp(-fabs(a - b)));
    }
}

void segtreef_done(SegTreeF *s)
{
    free(s->d);
    free(s->lz);
    s->d = s->lz = NULL;
    s->n = 0;
}

static inline void pullf(SegTreeF *s, int i)
{
    double a = s->d[2 * i], b = s->d[2 * i + 1];
    double m = a > b ? a : b;
    /* stable logaddexp: never exponentiates a large number */
    s->d[i] = m + log1p(exp(-fabs(a - b))) + s->lz[i];
}

void segtreef_add(SegTreeF *s, int l, int r, double v)
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
    while (a != b) {
        pullf(s, a);
        pullf(s, b);
        a >>= 1;
        b >>= 1;
    }
    for (; a >= 1; a >>= 1)
        pullf(s, a);
}
