/* segtree.h — range-add / range-max segment tree over a fixed number of
 * slots, the structure that keeps FastSA's memory curve and its peak
 * current in O(log T) per interval change (Imanishi et al. 2023, §2.2.1).
 * Lazy tags are never pushed down: a node holds the max of its subtree plus
 * its own pending add, so the global max is always the root's.
 */
#ifndef REMAT_SEGTREE_H
#define REMAT_SEGTREE_H
#include <stdint.h>

/* Level k (0: the leaves) holds cnt[k] nodes from d[off[k]], padded to a
 * multiple of four; node p's children are 4p..4p+3 one level down. d is a
 * node's subtree max including its own tag, lz the tags of internal nodes
 * (from off[1]). */
typedef struct SegTree {
    int n;          /* leaves, a power of two */
    int levels;
    int off[24], cnt[24];
    int64_t *d, *lz;
} SegTree;

/* All n slots zero; n must be a power of two >= 1. Free with segtree_done. */
void segtree_init(SegTree *s, int n);
void segtree_done(SegTree *s);
/* Add v to every slot in [l, r] (inclusive, 0 <= l <= r < n). */
void segtree_add(SegTree *s, int l, int r, int64_t v);
/* The two halves of segtree_add, for several adds that share ancestors
 * (one mutation's): tag the cover of [l, r] only (returns the level of
 * its highest tag), then pull the ancestors of the leaves ps[0..n) (each
 * added range's l and r) whose subtrees changed, each once; top: the
 * highest level add_tags returned. The tree must not be read in between.
 * ps is overwritten. */
int segtree_add_tags(SegTree *s, int l, int r, int64_t v);
void segtree_pull(SegTree *s, int *ps, int n, int top);
/* Max over slots [l, r] (inclusive). O(log n). */
int64_t segtree_max(const SegTree *s, int l, int r);
/* 1 when some slot in [l, r] is above x: the max query that stops at the
 * first subtree wholly within [l, r] and above x, and never enters one
 * whose max is at most x. */
int segtree_exceeds(const SegTree *s, int l, int r, int64_t x);
/* Max over all slots. O(1). */
static inline int64_t segtree_top(const SegTree *s)
{
    return s->d[s->off[s->levels - 1]];
}

/* The smoothed variant of appendix C.2: the same range add, but a node
 * holds logaddexp (log(e^a + e^b)) of its children instead of their max,
 * so the top is a soft peak that every high slot contributes to. Values
 * are doubles in whatever unit the caller scales to. */
typedef struct SegTreeF {
    int n;
    double *d, *lz;
} SegTreeF;

/* All n slots set to `fill` (a large negative value makes empty slots
 * vanish from the soft max); n a power of two >= 1. */
void segtreef_init(SegTreeF *s, int n, double fill);
void segtreef_done(SegTreeF *s);
void segtreef_add(SegTreeF *s, int l, int r, double v);
static inline double segtreef_top(const SegTreeF *s)
{
    return s->d[1];
}
#endif
