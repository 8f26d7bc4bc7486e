/* cascade.c — the cover bound (cover.c) made stronger by what a rerun
 * needs.
 *
 * The cover's row for the step where t first runs says: each value i that
 * ran before it and is read after it (A(t)) is held across the step or run
 * again after it, and it charges that rerun i's own cost alone. But a run
 * of i after the step needs i's inputs then: each was held across the step
 * too, or runs again after it, needing its own inputs in turn. An input
 * still read after t in the order (in A(t)) or read by t itself needs
 * nothing here: it is held or rerun anyway, or present at the step. The
 * others, E(t), are values whose reads in the order all came before t: a
 * rerun is their only reason to exist after t, and holding one across the
 * step is memory the cover never counted. Per step, with y(v) = 1 when v
 * runs again after the step (so y(v) <= x(v), "v runs again somewhere",
 * whose cost the objective counts once) and h(j) = 1 when j's copy is
 * held across it:
 *     sum over A(t) of size(i) (1 - y(i)) + sum over E(t) of size(j) h(j)
 *         <= budget - fixed(t)
 *     h(j) + y(j) >= y(v)     for each input j in E(t) of v (in A(t) or E(t))
 * Leaving rows out keeps a bound valid, so the chains stop at
 * CASCADE_DEPTH and the model at CASCADE_MAX_COLS columns (later steps get
 * the cover's own row). Where a value is cheap to drop only by the cover's
 * count — a softmax whose rerun needs its masked scores, the scores their
 * sum, the sum its product — this charges the chain whole.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/cover_rows.h"
#include "src/base/clock.h"
#include "src/base/xalloc.h"

/* How far up a chain of reruns the rows follow. */
#define CASCADE_DEPTH 16

/* Past this many columns, steps get the cover's own row: CLP takes 20-30 s
 * on about this size (llama_7b, opt_6_7b at 25 %), and on llama_8k the
 * model without the cap took 1.5 GB (346 MB with it). */
#define CASCADE_MAX_COLS 300000

/* Steps ahead a step's implication is looked for, and steps added a round:
 * few, since each round's LP grows with them and one step near the peak
 * often settles the rest (opt_6_7b at 25 %, unit costs: 16 a round, two
 * rounds, 5.2 s; 64 a round, two rounds, 41.9 s; swin_t at 25 %, FLOP
 * costs: 4.5 s against 14.8 s; mobilenet_v3_large at 50 %, FLOP: 36.6 s,
 * and 8 a round 60 s). */
#define CASCADE_WINDOW 64
#define CASCADE_ADD 16

typedef struct {
    const Graph *g;
    const int *order, *pos, *last;
    Rows *R;
    int stamp;              /* t + 1 for the step being built */
    int *ymark, *ycol, *hcol;   /* per position: stamp when it has a y at this step; its columns */
    int *queue, *depth, nq;
    int n, ncols;
    int *idx, cap;          /* one row's entries */
    double *val;
} Casc;

/* Is position j in E(t): a running value with memory, every read before t? */
static int in_e(const Casc *c, int j, int t)
{
    return j >= 0 && c->last[j] < t && c->g->nodes[c->order[j]].size > 0;
}

static void row2(Rows *R, int a, double va, int b, double vb)
{
    int idx[2] = {a, b};
    double val[2] = {va, vb};
    rows_add(R, idx, val, 2, 0);
}

static void row3(Rows *R, int a, int b, int c)
{
    int idx[3] = {a, b, c};
    double val[3] = {1, 1, -1};
    rows_add(R, idx, val, 3, 0);
}

/* The y column of position i at this step, made (y <= x) on first use. */
static int y_of(Casc *c, int i)
{
    if (c->ymark[i] != c->stamp) {
        c->ymark[i] = c->stamp;
        c->ycol[i] = c->ncols++;
        c->hcol[i] = -1;
        row2(c->R, i, 1, c->ycol[i], -1);
    }
    return c->ycol[i];
}

/* Position j of E(t) at this step: its y and h columns, queued on first use. */
static void e_of(Casc *c, int j, int d)
{
    if (c->ymark[j] == c->stamp)
        return;
    y_of(c, j);
    c->hcol[j] = c->ncols++;
    c->queue[c->nq] = j;
    c->depth[c->nq++] = d;
}

/* The inputs of position v in E(t): each held or rerun when v is rerun. */
static void chain_inputs(Casc *c, int v, int t, int d)
{
    const Graph *g = c->g;
    int node = c->order[v];
    for (int q = g->in_off[node]; q < g->in_off[node + 1]; q++) {
        int j = c->pos[g->in_idx[q]];
        if (!in_e(c, j, t))
            continue;
        e_of(c, j, d);
        row3(c->R, c->hcol[j], c->ycol[j], y_of(c, v));
    }
}

/* Is step a implied by a later step b: everything a holds (but values of
 * at most `small`, a relaxation) held at b too, in no more room? b's rows
 * then hold a's for the same y and h (E(a) is within E(b): a value last
 * read before a is last read before b). */
static int implied(const Step *a, const Step *b, const int *held, const Graph *g, const int *order, double small)
{
    if (b->room > a->room)
        return 0;
    const int *x = held + a->off, *y = held + b->off;
    for (int i = 0, j = 0; i < a->k; i++) {
        if ((double)g->nodes[order[x[i]]].size <= small)
            continue;
        while (j < b->k && y[j] < x[i])
            j++;
        if (j == b->k || y[j] != x[i])
            return 0;
    }
    return 1;
}

/* The rows of the steps st[a] with in[a] into R (emptied first), the
 * cascade's columns after the n positions; returns the column count. */
static int build_rows(Casc *c, const Step *st, int ns, const unsigned char *in, const int *held, Rows *R)
{
    const Graph *g = c->g;
    rows_free(R);
    c->R = R;
    c->ncols = c->n;
    memset(c->ymark, 0, (size_t)c->n * sizeof *c->ymark);
    for (int a = 0; a < ns; a++) {
        if (!in[a])
            continue;
        const Step *s = &st[a];
        int t = s->t, k = s->k;
        const int *hs = held + s->off;
        c->stamp = t + 1;
        c->nq = 0;
        if (c->ncols < CASCADE_MAX_COLS) {
            for (int i = 0; i < k; i++)
                chain_inputs(c, hs[i], t, 1);
            for (int q = 0; q < c->nq; q++)
                if (c->depth[q] < CASCADE_DEPTH)
                    chain_inputs(c, c->queue[q], t, c->depth[q] + 1);
        }
        if (k + c->nq > c->cap) {
            c->cap = 2 * (k + c->nq);
            c->idx = xreallocarray(c->idx, (size_t)c->cap, sizeof *c->idx);
            c->val = xreallocarray(c->val, (size_t)c->cap, sizeof *c->val);
        }
        for (int i = 0; i < k; i++) {
            c->idx[i] = c->ymark[hs[i]] == c->stamp ? c->ycol[hs[i]] : hs[i];
            c->val[i] = (double)g->nodes[c->order[hs[i]]].size / s->need;
        }
        for (int q = 0; q < c->nq; q++) {
            c->idx[k + q] = c->hcol[c->queue[q]];
            c->val[k + q] = -(double)g->nodes[c->order[c->queue[q]]].size / s->need;
        }
        rows_add(R, c->idx, c->val, k + c->nq, 1);
    }
    return c->ncols;
}

static int by_pos_desc(const void *a, const void *b)
{
    return *(const int *)b - *(const int *)a;
}

/* What step s holds for x when each held value i runs again after it as
 * far as x(i) allows and each chain value runs again as far as its own x
 * allows, held for the rest: one choice of y and h that meets the step's
 * chain rows, so the step's rows hold for x when this is within its room
 * (not only then). */
static double greedy_held(Casc *c, const Step *s, const int *held, const double *x, double *r)
{
    const Graph *g = c->g;
    int t = s->t;
    const int *hs = held + s->off;
    c->stamp = t + 1;
    c->nq = 0;
    double mem = 0;
    for (int i = 0; i < s->k; i++) {
        int v = hs[i];
        mem += (double)g->nodes[c->order[v]].size * (1 - x[v]);
        for (int q = g->in_off[c->order[v]]; q < g->in_off[c->order[v] + 1]; q++) {
            int j = c->pos[g->in_idx[q]];
            if (!in_e(c, j, t))
                continue;
            if (c->ymark[j] != c->stamp) {
                c->ymark[j] = c->stamp;
                r[j] = 0;
                c->queue[c->nq] = j;
                c->depth[c->nq++] = 1;
            }
            r[j] = fmax(r[j], x[v]);
        }
    }
    /* the chain values: every one reached (to the rows' depth), then
     * settled from the latest down, each after all that read it */
    for (int q = 0; q < c->nq; q++) {
        int v = c->queue[q];
        for (int u = g->in_off[c->order[v]]; c->depth[q] < CASCADE_DEPTH && u < g->in_off[c->order[v] + 1]; u++) {
            int j = c->pos[g->in_idx[u]];
            if (in_e(c, j, t) && c->ymark[j] != c->stamp) {
                c->ymark[j] = c->stamp;
                r[j] = 0;
                c->queue[c->nq] = j;
                c->depth[c->nq++] = c->depth[q] + 1;
            }
        }
    }
    qsort(c->queue, (size_t)c->nq, sizeof *c->queue, by_pos_desc);
    for (int q = 0; q < c->nq; q++) {
        int v = c->queue[q];
        double y = fmin(x[v], r[v]);
        mem += (double)g->nodes[c->order[v]].size * (r[v] - y);
        for (int u = g->in_off[c->order[v]]; u < g->in_off[c->order[v] + 1]; u++) {
            int j = c->pos[g->in_idx[u]];
            if (in_e(c, j, t) && c->ymark[j] == c->stamp)
                r[j] = fmax(r[j], y);
        }
    }
    return mem;
}

/* A step left out whose rows the last solution may break, by how much
 * (over its room, per byte it must free). */
typedef struct {
    double v;
    int a;
} Broken;

int cascade_bound(const Graph *g, const int *order, int n, int64_t budget, double seconds, Progress *p,
                  double *extra, Err *e)
{
    *extra = 0;
    double end = clock_now() + seconds;
    int *pos = xmallocarray((size_t)g->n + 1, sizeof *pos), *last = xmallocarray((size_t)n + 1, sizeof *last);
    last_readers(g, order, n, pos, last);
    Steps S;
    int rc = order_steps(g, order, n, budget, pos, last, &S, e);
    const Step *st = S.st;
    const int *held = S.held;
    int ns = S.ns;
    /* first the steps no later one nearly implies (values under a fifth
     * of what must go aside), then, round by round, the steps whose rows
     * the last solution may break, the most broken first */
    unsigned char *in = xcalloc((size_t)ns + 1, 1);
    for (int a = 0; a < ns; a++) {
        int dom = 0;
        for (int b = a + 1; b < ns && b <= a + CASCADE_WINDOW && !dom; b++)
            dom = implied(&st[a], &st[b], held, g, order, st[a].need / 5);
        in[a] = !dom;
    }
    Rows R = {0};
    Casc c = {.g = g, .order = order, .pos = pos, .last = last, .R = &R, .n = n,
              .ymark = xcalloc((size_t)n + 1, sizeof(int)), .ycol = xmallocarray((size_t)n + 1, sizeof(int)),
              .hcol = xmallocarray((size_t)n + 1, sizeof(int)), .queue = xmallocarray((size_t)n + 1, sizeof(int)),
              .depth = xmallocarray((size_t)n + 1, sizeof(int)), .cap = 64};
    c.idx = xmallocarray((size_t)c.cap, sizeof *c.idx);
    c.val = xmallocarray((size_t)c.cap, sizeof *c.val);
    double *r = xmallocarray((size_t)n + 1, sizeof *r), *x = NULL;
    Broken *cand = xmallocarray((size_t)ns + 1, sizeof *cand);
    for (int round = 0; rc == ERR_OK && ns > 0; round++) {
        int ncols = build_rows(&c, st, ns, in, held, &R);
        double *w = xcalloc((size_t)ncols + 1, sizeof *w), val = 0;
        for (int i = 0; i < n; i++)
            w[i] = g->nodes[order[i]].cost;
        free(x);
        x = xmallocarray((size_t)ncols + 1, sizeof *x);
        for (int i = 0; i < n; i++)
            x[i] = -1;
        int src = solve_rows(w, ncols, 0, &R, end - clock_now(), p, &val, NULL, x, e);
        free(w);
        if (src != ERR_OK) {
            /* a later round out of time: the last value stands */
            if (round == 0 || src == ERR_CANCELLED)
                rc = src;
            break;
        }
        *extra = fmax(*extra, val);
        if (x[0] < 0)
            break;
        int nc = 0;
        for (int a = 0; a < ns; a++)
            if (!in[a]) {
                double over = greedy_held(&c, &st[a], held, x, r) - st[a].room;
                if (over > 1e-6 * st[a].need)
                    cand[nc++] = (Broken){over / st[a].need, a};
            }
        if (nc == 0)
            break;          /* every step's rows hold: the whole model's optimum */
        for (int i = 0; i < nc && i < CASCADE_ADD; i++) {
            int best = i;
            for (int j = i + 1; j < nc; j++)
                if (cand[j].v > cand[best].v)
                    best = j;
            Broken tmp = cand[i];
            cand[i] = cand[best];
            cand[best] = tmp;
            in[cand[i].a] = 1;
        }
    }
    rows_free(&R);
    free(in);
    free(r);
    free(x);
    free(cand);
    free(pos);
    free(last);
    steps_free(&S);
    free(c.ymark);
    free(c.ycol);
    free(c.hcol);
    free(c.queue);
    free(c.depth);
    free(c.idx);
    free(c.val);
    return rc;
}
