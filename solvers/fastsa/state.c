/* state.c — FastSA's slotted sequence and its incremental memory curve
 * (see state.h). A mutation changes the life intervals of the values its
 * unit reads and produces in one of four ways (§2.2.1: none, extend/shrink,
 * split, merge); each is a range add on the segment tree. The same add and
 * remove build the initial state, so there is one code path for intervals.
 */
#include "solvers/fastsa/state.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"
#include "src/plan/sim.h"

/* ---- sorted int sets ------------------------------------------------- */

/* index of the first element >= x: most sets hold a few slots (a value's
 * productions, its readers), scanned in order; long ones are searched */
static inline int iset_lower(const ISet *s, int x)
{
    if (s->n <= 8) {
        int i = 0;
        while (i < s->n && s->a[i] < x)
            i++;
        return i;
    }
    /* without a branch on the comparison (a conditional move): the
     * long sets are the slots reading a value many steps read, and a
     * mispredicted branch per level had been most of the search */
    const int *b = s->a;
    int len = s->n;
    while (len > 1) {
        int half = len >> 1;
        b = b[half - 1] < x ? b + half : b;
        len -= half;
    }
    return (int)(b - s->a) + (*b < x);
}

static void iset_insert(ISet *s, int x)
{
    int i = iset_lower(s, x);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->a = xreallocarray(s->a, (size_t)s->cap, sizeof *s->a);
    }
    memmove(s->a + i + 1, s->a + i, (size_t)(s->n - i) * sizeof *s->a);
    s->a[i] = x;
    s->n++;
}

static void iset_erase(ISet *s, int x)
{
    int i = iset_lower(s, x);
    memmove(s->a + i, s->a + i + 1, (size_t)(s->n - i - 1) * sizeof *s->a);
    s->n--;
}

/* ---- units ----------------------------------------------------------- */

void units_plain(Units *U, const Graph *g)
{
    memset(U, 0, sizeof *U);
    U->g = g;
    U->u = xcalloc((size_t)g->n + 1, sizeof *U->u);
    U->unit_of = xmallocarray((size_t)g->n + 1, sizeof *U->unit_of);
    U->vsize = xmallocarray((size_t)g->n + 1, sizeof *U->vsize);
    U->is_out = g->is_output;
    for (int v = 0; v < g->n; v++) {
        U->vsize[v] = g->nodes[v].size;
        U->unit_of[v] = -1;
        if (g->nodes[v].phase == PHASE_INPUT)
            continue;
        Unit *x = &U->u[U->n_units];
        U->unit_of[v] = U->n_units++;
        int deg = g->in_off[v + 1] - g->in_off[v];
        x->in = xmallocarray((size_t)deg + 1, sizeof *x->in);
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (g->nodes[g->in_idx[k]].phase != PHASE_INPUT)
                x->in[x->n_in++] = g->in_idx[k];
        x->out = xmalloc(sizeof *x->out);
        x->out[0] = v;
        x->n_out = 1;
        x->mem = xmalloc(sizeof *x->mem);
        x->mem[0] = v;
        x->n_mem = 1;
        x->cost = g->nodes[v].cost;
        x->ws = g->nodes[v].workspace;
    }
}

void units_done(Units *U)
{
    for (int i = 0; U->u && i < U->n_units; i++) {
        free(U->u[i].in);
        free(U->u[i].out);
        free(U->u[i].mem);
    }
    free(U->u);
    free(U->unit_of);
    free(U->vsize);
    memset(U, 0, sizeof *U);
}

/* ---- the state ------------------------------------------------------- */

/* A nop slot sits this far below everything in the smoothed curve, so it
 * adds nothing to the soft peak (appendix C.2); placing a unit lifts it. */
#define LAE_LIFT 1e6

/* The range adds of one add, remove or move tag the tree at once and
 * pull the ancestors of their ends together when it is done (flush): its
 * ranges share ends and neighbourhoods (a move's are all near its two
 * slots), so most of the ancestors are pulled once instead of once per
 * range. */
static inline void flush(State *S)
{
    segtree_pull(&S->st, S->dirty, S->nd, S->dtop);
    S->nd = 0;
    S->dtop = 0;
}

static inline void mem_add(State *S, int l, int r, int64_t v)
{
    if (S->nd + 2 > DIRTY_MAX)
        flush(S);
    int top = segtree_add_tags(&S->st, l, r, v);
    S->dtop = top > S->dtop ? top : S->dtop;
    S->dirty[S->nd++] = l;
    S->dirty[S->nd++] = r;
    if (S->lae)
        segtreef_add(&S->sf, l, r, (double)v / S->scale);
}

/* Last slot the copy of v produced at p is held (spec §3) when v's next
 * production is at `next` (S->T: none). */
static inline int end_before(const State *S, int v, int p, int next)
{
    /* an output's last copy is held to the end even when read after it
     * (a joint graph's parameter gradients are): the reads do not end it */
    if (next == S->T && S->U->is_out[v])
        return S->T - 1;
    const ISet *R = &S->R[v];
    int j = iset_lower(R, next) - 1;
    if (j >= 0 && R->a[j] > p)
        return R->a[j];
    return p;
}

int state_prod_before(const State *S, int v, int t)
{
    const ISet *P = &S->P[v];
    int i = iset_lower(P, t) - 1;
    return i >= 0 ? P->a[i] : -1;
}

int state_can_add(const State *S, int u, int t)
{
    const Unit *x = &S->U->u[u];
    for (int k = 0; k < x->n_in; k++) {
        const ISet *P = &S->P[x->in[k]];
        if (P->n == 0 || P->a[0] >= t)
            return 0;
    }
    return 1;
}

int state_can_remove(const State *S, int t)
{
    const Unit *x = &S->U->u[S->seq[t]];
    for (int k = 0; k < x->n_out; k++) {
        int v = x->out[k];
        const ISet *P = &S->P[v];
        if (P->a[0] < t)
            continue;           /* an earlier production serves its readers */
        if (P->n == 1 && S->U->is_out[v])
            return 0;           /* the output would never be produced */
        int next = P->n > 1 ? P->a[1] : S->T;
        const ISet *R = &S->R[v];
        int j = iset_lower(R, t + 1);
        if (j < R->n && R->a[j] < next)
            return 0;           /* a reader would lose its value */
    }
    return 1;
}

/* Note slot t in the journal (state.h). */
static inline void journal(State *S, int t)
{
    if (S->jmark[t] || S->jover)
        return;
    if (S->jn == S->jcap) {
        S->jover = 1;
        return;
    }
    S->jmark[t] = 1;
    S->jr[S->jn++] = t;
}

void state_journal_apply(State *S, int *copy)
{
    if (S->jover) {
        memcpy(copy, S->seq, (size_t)S->T * sizeof *copy);
        memset(S->jmark, 0, (size_t)S->T);
    } else {
        for (int i = 0; i < S->jn; i++) {
            int t = S->jr[i];
            copy[t] = S->seq[t];
            S->jmark[t] = 0;
        }
    }
    S->jn = 0;
    S->jover = 0;
}

/* ---- what an add or a remove changes ----------------------------------
 * Both are computed from the sets as they are, before anything changes,
 * so a mutation can be judged without being made (state_delta_fits) and,
 * when made, is made from the same list: one account of the intervals. */

static void delta_pieces(Delta *d, int T);

static inline void delta_push(Delta *d, int l, int r, int64_t v)
{
    if (l > r || !v)
        return;
    d->l[d->n] = l;
    d->r[d->n] = r;
    d->v[d->n] = v;
    d->n++;
}

void state_add_delta(const State *S, int u, int t, Delta *d)
{
    const Unit *x = &S->U->u[u];
    const int64_t *sz = S->U->vsize;
    d->n = 0;
    for (int k = 0; k < x->n_out; k++) {
        /* the copy before t now ends by t; the new one holds to the reads
         * before the next production */
        int v = x->out[k];
        const ISet *P = &S->P[v];
        int i = iset_lower(P, t);
        int a = i > 0 ? P->a[i - 1] : -1, next = i < P->n ? P->a[i] : S->T;
        if (a >= 0)
            delta_push(d, end_before(S, v, a, t) + 1, end_before(S, v, a, next), -sz[v]);
        delta_push(d, t, end_before(S, v, t, next), sz[v]);
    }
    for (int k = 0; k < x->n_in; k++) {
        /* a read at t inside a's interval can only stretch it to t */
        int w = x->in[k];
        const ISet *P = &S->P[w];
        int i = iset_lower(P, t);
        int e0 = end_before(S, w, P->a[i - 1], i < P->n ? P->a[i] : S->T);
        delta_push(d, e0 + 1, t, sz[w]);
    }
    delta_push(d, t, t, x->ws);
    delta_pieces(d, S->T);
}

void state_remove_delta(const State *S, int t, Delta *d)
{
    const Unit *x = &S->U->u[S->seq[t]];
    const int64_t *sz = S->U->vsize;
    d->n = 0;
    for (int k = 0; k < x->n_in; k++) {
        /* dropping the read at t shortens a's interval only if it ended
         * there, back to the read before (or a itself) */
        int w = x->in[k];
        const ISet *P = &S->P[w], *R = &S->R[w];
        int i = iset_lower(P, t);
        int a = P->a[i - 1], next = i < P->n ? P->a[i] : S->T;
        if (end_before(S, w, a, next) != t || (next == S->T && S->U->is_out[w]))
            continue;
        int j = iset_lower(R, t) - 1;
        int e1 = j >= 0 && R->a[j] > a ? R->a[j] : a;
        delta_push(d, e1 + 1, t, -sz[w]);
    }
    for (int k = 0; k < x->n_out; k++) {
        /* the copy at t goes; the one before holds until the next */
        int v = x->out[k];
        const ISet *P = &S->P[v];
        int i = iset_lower(P, t);
        int a = i > 0 ? P->a[i - 1] : -1, next = i + 1 < P->n ? P->a[i + 1] : S->T;
        delta_push(d, t, end_before(S, v, t, next), -sz[v]);
        if (a >= 0)
            delta_push(d, end_before(S, v, a, t) + 1, end_before(S, v, a, next), sz[v]);
    }
    delta_push(d, t, t, -x->ws);
    delta_pieces(d, S->T);
}

/* Make d's ranges disjoint pieces of constant nonzero change, in slot
 * order, neighbours with the same change merged: an add's new copy and the
 * shortened one before it often end at the same read, and then the two
 * ranges are one (what the recomputation frees before t), so the tree
 * takes fewer range adds and state_delta_fits fewer queries. */
/* Sort ev[0..n) by position: insertion for the few ends of an ordinary
 * unit, else two passes of a radix sort through tmp (a unit that reads
 * hundreds of values, such as a loss over every output, has that many
 * ranges; qsort had been a tenth of a run's instructions for it alone). */
static void events_sort(DeltaEvent *ev, DeltaEvent *tmp, int n, int T)
{
    if (n <= 32) {
        for (int i = 1; i < n; i++) {
            DeltaEvent x = ev[i];
            int j = i;
            for (; j > 0 && ev[j - 1].pos > x.pos; j--)
                ev[j] = ev[j - 1];
            ev[j] = x;
        }
        return;
    }
    /* positions are at most T: two digits of half its bits each */
    int bits = 1;
    while ((1 << bits) <= T)
        bits++;
    int lo = (bits + 1) / 2, mask = (1 << lo) - 1;
    int *cnt = xcalloc((size_t)1 << lo, sizeof *cnt);
    for (int pass = 0; pass < 2; pass++) {
        int sh = pass * lo;
        memset(cnt, 0, ((size_t)1 << lo) * sizeof *cnt);
        for (int i = 0; i < n; i++)
            cnt[(ev[i].pos >> sh) & mask]++;
        for (int b = 0, sum = 0; b <= mask; b++) {
            int c = cnt[b];
            cnt[b] = sum;
            sum += c;
        }
        for (int i = 0; i < n; i++)
            tmp[cnt[(ev[i].pos >> sh) & mask]++] = ev[i];
        memcpy(ev, tmp, (size_t)n * sizeof *ev);
    }
    free(cnt);
}

static void delta_pieces(Delta *d, int T)
{
    if (d->n <= 1)
        return;
    /* a sweep over the ends: +v where a range starts, -v past its end */
    DeltaEvent *ev = d->ev;
    int ne = 0;
    for (int i = 0; i < d->n; i++) {
        ev[ne++] = (DeltaEvent){d->l[i], d->v[i]};
        ev[ne++] = (DeltaEvent){d->r[i] + 1, -d->v[i]};
    }
    events_sort(ev, ev + ne, ne, T);
    int m = 0;
    int64_t cur = 0;
    for (int i = 0; i < ne;) {
        int p = ev[i].pos;
        for (; i < ne && ev[i].pos == p; i++)
            cur += ev[i].v;
        if (i == ne || !cur)
            continue;
        int r = ev[i].pos - 1;
        if (m && d->r[m - 1] == p - 1 && d->v[m - 1] == cur) {
            d->r[m - 1] = r;
            continue;
        }
        d->l[m] = p;
        d->r[m] = r;
        d->v[m] = cur;
        m++;
    }
    d->n = m;
}

int state_delta_fits(const State *S, const Delta *d, int64_t limit)
{
    int64_t lim = limit - S->U->g->input_bytes;
    if (lim < 0)
        return 0;
    /* a piece that rises can overtake the limit; when the curve is over
     * it now, every slot must end below it, those the change does not
     * touch included (the gaps between pieces) */
    const SegTree *st = &S->st;
    if (segtree_top(st) <= lim) {
        for (int i = 0; i < d->n; i++)
            if (d->v[i] > 0 && segtree_exceeds(st, d->l[i], d->r[i], lim - d->v[i]))
                return 0;
        return 1;
    }
    /* over it now: a gap (the curve unchanged) fails the soonest */
    int prev = 0;
    for (int i = 0; i <= d->n; i++) {
        int l = prev, r = i < d->n ? d->l[i] - 1 : S->T - 1;
        if (l <= r && segtree_exceeds(st, l, r, lim))
            return 0;
        if (i < d->n)
            prev = d->r[i] + 1;
    }
    for (int i = 0; i < d->n; i++)
        if (segtree_exceeds(st, d->l[i], d->r[i], lim - d->v[i]))
            return 0;
    return 1;
}

static void delta_apply(State *S, const Delta *d)
{
    for (int i = 0; i < d->n; i++)
        mem_add(S, d->l[i], d->r[i], d->v[i]);
    flush(S);
}

void state_add_with(State *S, int u, int t, const Delta *d)
{
    const Unit *x = &S->U->u[u];
    delta_apply(S, d);
    for (int k = 0; k < x->n_out; k++)
        iset_insert(&S->P[x->out[k]], t);
    for (int k = 0; k < x->n_in; k++)
        iset_insert(&S->R[x->in[k]], t);
    if (S->lae)
        segtreef_add(&S->sf, t, t, LAE_LIFT);
    S->seq[t] = u;
    journal(S, t);
    S->cost += x->cost;
    S->occ_at[t] = S->count;
    S->occ[S->count++] = t;
}

void state_add(State *S, int u, int t)
{
    state_add_delta(S, u, t, &S->scratch);
    state_add_with(S, u, t, &S->scratch);
}

void state_remove_with(State *S, int t, const Delta *d)
{
    int u = S->seq[t];
    const Unit *x = &S->U->u[u];
    delta_apply(S, d);
    for (int k = 0; k < x->n_in; k++)
        iset_erase(&S->R[x->in[k]], t);
    for (int k = 0; k < x->n_out; k++)
        iset_erase(&S->P[x->out[k]], t);
    if (S->lae)
        segtreef_add(&S->sf, t, t, -LAE_LIFT);
    S->seq[t] = -1;
    journal(S, t);
    S->cost -= x->cost;
    int i = S->occ_at[t], last = S->occ[--S->count];
    S->occ[i] = last;
    S->occ_at[last] = i;
}

void state_remove(State *S, int t)
{
    state_remove_delta(S, t, &S->scratch);
    state_remove_with(S, t, &S->scratch);
}

/* A copy held over [l1, r1] is now held over [l2, r2]: add and take away
 * the difference (two ranges at most when they overlap). */
static void move_interval(Delta *d, int l1, int r1, int l2, int r2, int64_t sz)
{
    if (r1 < l2 || r2 < l1) {
        delta_push(d, l1, r1, -sz);
        delta_push(d, l2, r2, sz);
        return;
    }
    if (l2 < l1)
        delta_push(d, l2, l1 - 1, sz);
    else if (l2 > l1)
        delta_push(d, l1, l2 - 1, -sz);
    if (r2 > r1)
        delta_push(d, r1 + 1, r2, sz);
    else if (r2 < r1)
        delta_push(d, r2 + 1, r1, -sz);
}

/* Index of x in s, where x is known to be there. */
static inline int iset_find(const ISet *s, int x)
{
    return iset_lower(s, x);
}

/* 1 when s has an element strictly between lo and hi other than skip. */
static inline int iset_any_between(const ISet *s, int lo, int hi, int skip)
{
    int i = iset_lower(s, lo + 1);
    for (; i < s->n && s->a[i] < hi; i++)
        if (s->a[i] != skip)
            return 1;
    return 0;
}

int state_move_local(const State *S, int t1, int t2)
{
    const Unit *x = &S->U->u[S->seq[t1]];
    int lo = t1 < t2 ? t1 : t2, hi = t1 < t2 ? t2 : t1;
    /* local: nothing else happens to the values involved between the two
     * slots, and the inputs are made before both */
    for (int k = 0; k < x->n_out; k++) {
        int v = x->out[k];
        if (iset_any_between(&S->P[v], lo, hi, t1) || iset_any_between(&S->R[v], lo - 1, hi + 1, -1))
            return 0;
    }
    for (int k = 0; k < x->n_in; k++) {
        int w = x->in[k];
        const ISet *P = &S->P[w];
        if (P->n == 0 || P->a[0] >= lo || iset_any_between(P, lo - 1, hi + 1, -1) ||
            iset_any_between(&S->R[w], lo, hi, t1))
            return 0;
    }
    return 1;
}

void state_move_delta(const State *S, int t1, int t2, Delta *d)
{
    const Unit *x = &S->U->u[S->seq[t1]];
    const int64_t *sz = S->U->vsize;
    d->n = 0;
    /* outputs: the copy made at t1 is made at t2 instead; its end follows
     * from the same reads (none lies between the slots) and the same next
     * production */
    for (int k = 0; k < x->n_out; k++) {
        int v = x->out[k];
        const ISet *P = &S->P[v];
        int i = iset_find(P, t1), next = i + 1 < P->n ? P->a[i + 1] : S->T;
        move_interval(d, t1, end_before(S, v, t1, next), t2, end_before(S, v, t2, next), sz[v]);
    }
    /* inputs: the read moves; the copy's end moves with it when it was its
     * last read (no other read lies between the slots), unless the copy is
     * an output's last, held to the end anyway */
    for (int k = 0; k < x->n_in; k++) {
        int w = x->in[k];
        const ISet *P = &S->P[w];
        int i = iset_lower(P, t1 < t2 ? t1 : t2), next = i < P->n ? P->a[i] : S->T;
        if (end_before(S, w, P->a[i - 1], next) != t1 || (next == S->T && S->U->is_out[w]))
            continue;
        if (t2 > t1)
            delta_push(d, t1 + 1, t2, sz[w]);
        else
            delta_push(d, t2 + 1, t1, -sz[w]);
    }
    delta_push(d, t1, t1, -x->ws);
    delta_push(d, t2, t2, x->ws);
    delta_pieces(d, S->T);
}

void state_move_with(State *S, int t1, int t2, const Delta *d)
{
    int u = S->seq[t1];
    const Unit *x = &S->U->u[u];
    delta_apply(S, d);
    for (int k = 0; k < x->n_out; k++) {
        ISet *P = &S->P[x->out[k]];
        P->a[iset_find(P, t1)] = t2;    /* nothing between: the order holds */
    }
    for (int k = 0; k < x->n_in; k++) {
        ISet *R = &S->R[x->in[k]];
        R->a[iset_find(R, t1)] = t2;
    }
    if (S->lae) {
        segtreef_add(&S->sf, t1, t1, -LAE_LIFT);
        segtreef_add(&S->sf, t2, t2, LAE_LIFT);
    }
    S->seq[t1] = -1;
    S->seq[t2] = u;
    journal(S, t1);
    journal(S, t2);
    int i = S->occ_at[t1];
    S->occ[i] = t2;
    S->occ_at[t2] = i;
}

int state_move(State *S, int t1, int t2)
{
    if (!state_move_local(S, t1, t2))
        return 0;
    state_move_delta(S, t1, t2, &S->scratch);
    state_move_with(S, t1, t2, &S->scratch);
    return 1;
}

void state_init(State *S, const Units *U, int T)
{
    memset(S, 0, sizeof *S);
    S->U = U;
    S->T = T;
    S->seq = xmallocarray((size_t)T, sizeof *S->seq);
    for (int t = 0; t < T; t++)
        S->seq[t] = -1;
    S->occ = xmallocarray((size_t)T, sizeof *S->occ);
    S->occ_at = xmallocarray((size_t)T, sizeof *S->occ_at);
    /* past T/16 changed slots a whole copy is as quick */
    S->jcap = T / 16 > 16 ? T / 16 : 16;
    S->jr = xmallocarray((size_t)S->jcap, sizeof *S->jr);
    S->jmark = xcalloc((size_t)T, 1);
    S->jover = 1;   /* no copy is in step yet */
    S->P = xcalloc((size_t)U->g->n + 1, sizeof *S->P);
    S->R = xcalloc((size_t)U->g->n + 1, sizeof *S->R);
    segtree_init(&S->st, T);
    int cap = 1;
    for (int u = 0; u < U->n_units; u++) {
        int c = 2 * U->u[u].n_out + U->u[u].n_in + 1;
        cap = c > cap ? c : cap;
    }
    /* n ranges make at most 2n - 1 pieces */
    Delta *d = &S->scratch;
    d->l = xmallocarray((size_t)cap * 2, sizeof *d->l);
    d->r = xmallocarray((size_t)cap * 2, sizeof *d->r);
    d->v = xmallocarray((size_t)cap * 2, sizeof *d->v);
    d->ev = xmallocarray((size_t)cap * 4, sizeof *d->ev);     /* and the sort's room */
}

void state_done(State *S)
{
    for (int v = 0; S->P && v < S->U->g->n; v++) {
        free(S->P[v].a);
        free(S->R[v].a);
    }
    free(S->P);
    free(S->R);
    free(S->seq);
    free(S->occ);
    free(S->occ_at);
    free(S->jr);
    free(S->jmark);
    segtree_done(&S->st);
    free(S->scratch.l);
    free(S->scratch.r);
    free(S->scratch.v);
    free(S->scratch.ev);
    if (S->lae)
        segtreef_done(&S->sf);
}

void state_smooth(State *S, double scale)
{
    S->lae = 1;
    S->scale = scale > 0 ? scale : 1;
    segtreef_init(&S->sf, S->T, -LAE_LIFT);
}

void state_load(State *S, const int *units, int L)
{
    for (int i = 0; i < L; i++)
        state_add(S, units[i], (int)(((int64_t)i * S->T) / L));
}

void state_init_baseline(State *S, const Units *U, int slack)
{
    int L;
    int *order = sim_baseline_order(U->g, &L);
    for (int i = 0; i < L; i++)
        order[i] = U->unit_of[order[i]];
    state_init(S, U, state_slots_for(L, slack));
    state_load(S, order, L);
    free(order);
}

int state_slots_for(int L, int slack)
{
    int64_t want = (int64_t)(L > 0 ? L : 1) * slack;
    int T = 1;
    while (T < want)
        T <<= 1;
    return T;
}

int64_t state_peak(const State *S)
{
    int64_t m = segtree_top(&S->st);
    return (m > 0 ? m : 0) + S->U->g->input_bytes;
}

int64_t state_obj_peak(const State *S)
{
    if (!S->lae)
        return state_peak(S);
    double m = segtreef_top(&S->sf) * S->scale;
    return (m > 0 ? (int64_t)m : 0) + S->U->g->input_bytes;
}

int64_t state_mem_at(const State *S, int t)
{
    return segtree_max(&S->st, t, t) + S->U->g->input_bytes;
}

int *state_decode(const State *S, const int *seq, int *L)
{
    int n = 0;
    for (int t = 0; t < S->T; t++)
        if (seq[t] >= 0)
            n += S->U->u[seq[t]].n_mem;
    int *out = xmallocarray((size_t)n + 1, sizeof *out);
    n = 0;
    for (int t = 0; t < S->T; t++)
        if (seq[t] >= 0)
            for (int k = 0; k < S->U->u[seq[t]].n_mem; k++)
                out[n++] = S->U->u[seq[t]].mem[k];
    *L = n;
    return out;
}
