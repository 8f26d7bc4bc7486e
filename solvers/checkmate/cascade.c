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
 *
 * The model grows by rounds, all in one child process: first the steps
 * whose rows the cover's own choice breaks most (without one, those that
 * must free the most), then after each LP the left-out steps its solution
 * breaks most, CASCADE_ADD a round. When none is broken the value is the
 * whole model's optimum; each round's optimum is a bound by itself, so
 * the last one finished stands when the time runs out.
 */
#include <Clp_C_Interface.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/cover_rows.h"
#include "solvers/checkmate/engine.h"
#include "src/base/clock.h"
#include "src/base/xalloc.h"
#include "src/plan/subproc.h"

/* How far up a chain of reruns the rows follow. */
#define CASCADE_DEPTH 16

/* Past this many columns, steps get the cover's own row: CLP takes 20-30 s
 * on about this size (llama_7b, opt_6_7b at 25 %), and on llama_8k the
 * model without the cap took 1.5 GB (346 MB with it). */
#define CASCADE_MAX_COLS 300000

/* Steps added a round (the first round's too): few, since each round's
 * LP grows with them and one step near the peak often settles the rest
 * (opt_6_7b at 25 %, unit costs, each round solved afresh: 16 a round,
 * 5.2 s; 64 a round, 41.9 s; swin_t at 25 %, FLOP costs: 4.5 s against
 * 14.8 s; mobilenet_v3_large at 50 %, FLOP: 36.6 s, and 8 a round 60 s). */
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

/* The rows of the steps st[a] with in[a] == want into R (emptied first),
 * their cascade columns numbered on from c->ncols (c->ncols after them).
 * Each step's y and h columns are its own, so a round's new steps add
 * columns and rows without touching the model's others. */
static void build_rows(Casc *c, const Step *st, int ns, const unsigned char *in, unsigned char want, const int *held,
                      Rows *R)
{
    const Graph *g = c->g;
    rows_free(R);
    c->R = R;
    memset(c->ymark, 0, (size_t)c->n * sizeof *c->ymark);
    for (int a = 0; a < ns; a++) {
        if (in[a] != want)
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

/* In in[], a step is left out (0), in the model (1), or chosen this round
 * and not yet added (2). */
enum { STEP_OUT, STEP_IN, STEP_NEW };

/* The rounds, all in one child process, so each LP starts from the last
 * one's basis: a round adds rows and columns of its own (the new steps' y
 * and h), whose slacks enter the basis and whose duals are 0, so the old
 * basis stays dual feasible and CLP's dual simplex goes on from it. Solved
 * afresh each round in its own child, the rounds took most of the bound's
 * time (maxvit_t at 25 %, FLOP costs: 1.8, 6.8 and 7.1 s). */
typedef struct {
    Casc *c;
    const Step *st;
    const int *held;
    unsigned char *in;
    int ns;
    const double *w;        /* the n positions' costs */
    Broken *cand;           /* ns: the steps broken, by how much */
    double *r;              /* n: greedy_held's scratch */
    double engine_end;      /* clock_now() by which CLP must stop */
} Rounds;

/* Append k empty columns in [0, 1] to lp, costing obj[0..k) (NULL:
 * nothing). */
static void lp_add_columns(Clp_Simplex *lp, int k, const double *obj)
{
    double *lo = xcalloc((size_t)k + 1, sizeof *lo), *up = xmallocarray((size_t)k + 1, sizeof *up);
    int *starts = xcalloc((size_t)k + 1, sizeof *starts);
    for (int i = 0; i < k; i++)
        up[i] = 1;
    Clp_addColumns(lp, k, lo, up, obj ? obj : lo, (const CoinBigIndex *)starts, NULL, NULL);
    free(lo);
    free(up);
    free(starts);
}

/* Append R's rows, and the columns from `from` to `to` (the cascade's
 * own: no cost), to lp. */
static void lp_append(Clp_Simplex *lp, const Rows *R, int from, int to)
{
    if (to > from)
        lp_add_columns(lp, to - from, NULL);
    if (R->nrows > 0) {
        double *up = xmallocarray((size_t)R->nrows, sizeof *up);
        for (int r = 0; r < R->nrows; r++)
            up[r] = 1e30;
        Clp_addRows(lp, R->nrows, R->lo, up, (const CoinBigIndex *)R->off, R->idx, R->val);
        free(up);
    }
}

/* The CASCADE_ADD highest of q->cand[0..nc) marked STEP_NEW. */
static void mark_worst(Rounds *q, int nc)
{
    Broken *cand = q->cand;
    for (int i = 0; i < nc && i < CASCADE_ADD; i++) {
        int best = i;
        for (int j = i + 1; j < nc; j++)
            if (cand[j].v > cand[best].v)
                best = j;
        Broken tmp = cand[i];
        cand[i] = cand[best];
        cand[best] = tmp;
        q->in[cand[i].a] = STEP_NEW;
    }
}

/* The steps left out whose rows x may break, the most broken first, up
 * to CASCADE_ADD of them marked STEP_NEW; how many were broken. */
static int choose_broken(Rounds *q, const double *x)
{
    int nc = 0;
    for (int a = 0; a < q->ns; a++)
        if (q->in[a] == STEP_OUT) {
            double over = greedy_held(q->c, &q->st[a], q->held, x, q->r) - q->st[a].room;
            if (over > 1e-6 * q->st[a].need)
                q->cand[nc++] = (Broken){over / q->st[a].need, a};
        }
    mark_worst(q, nc);
    return nc;
}

/* The child's side: round after round, the value of each LP solved to
 * its optimum and its solution's n position values (n + 1 doubles); 0, or
 * 1 when the pipe failed. */
static int rounds_child(void *ctx, int fd)
{
    Rounds *q = ctx;
    Casc *c = q->c;
    int n = c->n;
    double cscale = rows_cost_scale(q->w, n), *obj = xmallocarray((size_t)n + 1, sizeof *obj);
    for (int i = 0; i < n; i++)
        obj[i] = q->w[i] * cscale;
    Clp_Simplex *lp = Clp_newModel();
    Clp_setLogLevel(lp, 0);
    lp_add_columns(lp, n, obj);
    free(obj);
    Rows R = {0};
    int fail = 0;
    c->ncols = n;
    for (int round = 0; !fail; round++) {
        int from = c->ncols;
        build_rows(c, q->st, q->ns, q->in, STEP_NEW, q->held, &R);
        for (int a = 0; a < q->ns; a++)
            if (q->in[a] == STEP_NEW)
                q->in[a] = STEP_IN;
        lp_append(lp, &R, from, c->ncols);
        double left = q->engine_end - clock_now();
        if (left <= 0)
            break;
        Clp_setMaximumSeconds(lp, left);
        if (round == 0)
            Clp_initialDualSolve(lp);
        else
            Clp_dual(lp, 0);
        if (!Clp_isProvenOptimal(lp))
            break;
        /* the value at CLP's prices, not its objective: on maxvit_t at
         * 50 % (FLOP costs) the two differ by 0.18 % of the extra cost,
         * and the objective had put the bound above an in-order plan */
        double val = rows_bound_of(engine_lp_safe_bound(lp), cscale);
        fail = subproc_write(fd, &val, sizeof val) != 0 ||
               subproc_write(fd, Clp_getColSolution(lp), (size_t)n * sizeof(double)) != 0;
        if (!fail && !choose_broken(q, Clp_getColSolution(lp)))
            break;      /* every step's rows hold: the whole model's optimum */
    }
    rows_free(&R);
    Clp_deleteModel(lp);
    return fail;
}

int cascade_bound(const Graph *g, const int *order, int n, int64_t budget, double seconds, Progress *p,
                  const unsigned char *hint, double *extra, double *xout, Err *e)
{
    *extra = 0;
    double t0 = clock_now();
    int *pos = xmallocarray((size_t)g->n + 1, sizeof *pos), *last = xmallocarray((size_t)n + 1, sizeof *last);
    last_readers(g, order, n, pos, last);
    Steps S;
    int rc = order_steps(g, order, n, budget, pos, last, &S, e);
    const Step *st = S.st;
    const int *held = S.held;
    int ns = S.ns;
    Casc c = {.g = g, .order = order, .pos = pos, .last = last, .n = n,
              .ymark = xcalloc((size_t)n + 1, sizeof(int)), .ycol = xmallocarray((size_t)n + 1, sizeof(int)),
              .hcol = xmallocarray((size_t)n + 1, sizeof(int)), .queue = xmallocarray((size_t)n + 1, sizeof(int)),
              .depth = xmallocarray((size_t)n + 1, sizeof(int)), .cap = 64};
    c.idx = xmallocarray((size_t)c.cap, sizeof *c.idx);
    c.val = xmallocarray((size_t)c.cap, sizeof *c.val);
    double *w = xmallocarray((size_t)n + 1, sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = g->nodes[order[i]].cost;
    /* the first round: the steps whose rows the cover's choice breaks
     * most, or without one, those that must free the most; each later
     * round adds those the last LP's solution breaks */
    unsigned char *in = xcalloc((size_t)ns + 1, 1);
    Broken *cand = xmallocarray((size_t)ns + 1, sizeof *cand);
    Rounds q = {.c = &c, .st = st, .held = held, .in = in, .ns = ns, .w = w, .cand = cand,
                .r = xmallocarray((size_t)n + 1, sizeof(double))};
    int broken = 0;
    if (hint) {
        double *hx = xmallocarray((size_t)n + 1, sizeof *hx);
        for (int i = 0; i < n; i++)
            hx[i] = hint[i];
        broken = choose_broken(&q, hx);
        free(hx);
    }
    if (!broken) {
        for (int a = 0; a < ns; a++)
            cand[a] = (Broken){st[a].need, a};
        mark_worst(&q, ns);
    }
    if (rc == ERR_OK && ns > 0) {
        double engine, backstop;
        subproc_limits(t0, seconds, &engine, &backstop);
        q.engine_end = t0 + engine;
        char *buf = NULL;
        size_t len = 0;
        int src = subproc_run(rounds_child, &q, p, backstop, &buf, &len, e);
        /* the last whole record stands, whether or not a later round
         * finished (each round's optimum is a bound: rows left out only
         * lower it) */
        size_t rl = ((size_t)n + 1) * sizeof(double), nrec = buf ? len / rl : 0;
        if (nrec > 0) {
            memcpy(extra, buf + (nrec - 1) * rl, sizeof *extra);
            if (xout)
                memcpy(xout, buf + (nrec - 1) * rl + sizeof *extra, (size_t)n * sizeof *xout);
        }
        free(buf);
        if (src == ERR_CANCELLED || src == ERR_IO)
            rc = src;
        else if (nrec == 0)
            rc = err_set(e, ERR_LIMIT, "no cascade bound within %g s", seconds);
    }
    free(w);
    free(in);
    free(cand);
    free(q.r);
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
