/* cover.c — a lower bound on the cost of every plan whose first runs follow
 * a given order, cheap enough for graphs of thousands of nodes.
 *
 * Why it holds (the spec's memory rule, formats.md §3): take the step where
 * node t first runs, and a value i that first ran before it and that a node
 * first running after t reads (or that is an output). Either the copy of i
 * made before that step is still held across it, or i runs again after it:
 * a recomputation. The memory of that step is at least the inputs, t's
 * value, t's inputs, t's workspace, and every such i that is held. So for
 * each t, with A(t) those values (t's own inputs aside) and x(i) = 1 when i
 * is recomputed at least once,
 *     sum over A(t) of size(i) (1 - x(i)) <= budget - fixed(t),
 * and every plan costs at least the sum of the order's costs plus
 * sum cost(i) x(i). The least such sum over binary x (a covering knapsack
 * per step, solved by CBC) is the bound; CBC's best possible value counts
 * when it stops on its time limit, so the bound is valid either way.
 *
 * On orders of at most ORDER_SEARCH_MAX nodes the exact order search
 * (order_search.c) comes first: when it finishes within a bounded number
 * of states its optimum is the bound and its plan the cover's plan.
 *
 * It leaves out that a recomputation needs its own inputs (the cascade a
 * chain pays at tight budgets), so it is loose there; at moderate budgets
 * it is close: fcn_8_vgg (73 nodes) at 90/80/70 % gives +0.029/+0.136/
 * +0.891 % where Checkmate's proven optima are +0.03/+0.14/+0.89 %, and
 * ResNet-50's training graph (353 nodes) +0.108/+0.279/+0.564 % in 0.04-
 * 0.07 s, where Checkmate's LP relaxation takes 76 s (`remat solve GRAPH
 * --solver checkmate -O order=graph --budget P% --bound`; more in
 * docs/solvers/checkmate.md).
 */
#include <Cbc_C_Interface.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/engine.h"
#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/cover_rows.h"
#include "solvers/checkmate/model.h"
#include "solvers/greedy.h"
#include "src/base/clock.h"
#include "src/base/csr.h"
#include "src/base/xalloc.h"
#include "src/plan/cands.h"
#include "src/plan/sim.h"
#include "src/plan/subproc.h"
#include "src/plan/tidy.h"

/* The most states exact_order's search may visit (about 60 bytes each):
 * the 20-node training graphs need at most 11 thousand. */
#define COVER_SEARCH_STATES 100000

/* Least time for which the cover gets only its share (COVER_SHARE) and
 * the cascade rows (cascade.c) the rest: its rounds of LPs take 2-6 s on
 * graphs of 1-2K nodes. */
#define CASCADE_MIN_SECONDS 1.0

/* With less, the cover takes what it needs and the cascade gets what is
 * left, from this much: an answer's bound has the solve's last second,
 * and on resnet50 at 25 % (unit costs) the cascade on the plan's own
 * order takes 0.3 s after the cover's 0.2 s, where the rule above left it
 * out below 1.25 s ("gap 7.5 % to 552.2"; the order's cascade bound is
 * 576.4). */
#define CASCADE_LEAST_SECONDS 0.1

/* The cover's share of a bound's time when the cascade rows follow. CBC
 * proves some covers slowly (13.5 s of 30 on mobilenet_v3_large at 50 %,
 * FLOP costs; 10 s on llama_7b at 25 %, unit costs, where the cascade's
 * first LP then had 20 s and needed 20) while the cascade's LP, which has
 * every cover row relaxed and more, bounded higher at every cell of
 * bench_paper it finished. */
#define COVER_SHARE 0.2

void rows_add(Rows *R, const int *idx, const double *val, int k, double lo)
{
    if (R->nrows + 2 > R->rcap) {
        R->rcap = 2 * R->nrows + 16;
        R->off = xreallocarray(R->off, (size_t)R->rcap, sizeof *R->off);
        R->lo = xreallocarray(R->lo, (size_t)R->rcap, sizeof *R->lo);
        if (R->nrows == 0)
            R->off[0] = 0;
    }
    if (R->nnz + k > R->cap) {
        R->cap = 2 * (R->nnz + k);
        R->idx = xreallocarray(R->idx, (size_t)R->cap, sizeof *R->idx);
        R->val = xreallocarray(R->val, (size_t)R->cap, sizeof *R->val);
    }
    memcpy(R->idx + R->nnz, idx, (size_t)k * sizeof *idx);
    memcpy(R->val + R->nnz, val, (size_t)k * sizeof *val);
    R->nnz += k;
    R->lo[R->nrows] = lo;
    R->off[++R->nrows] = R->nnz;
}

void rows_free(Rows *R)
{
    free(R->off);
    free(R->idx);
    free(R->val);
    free(R->lo);
    *R = (Rows){0};
}

void last_readers(const Graph *g, const int *order, int n, int *pos, int *last)
{
    for (int v = 0; v < g->n; v++)
        pos[v] = -1;
    for (int i = 0; i < n; i++)
        pos[order[i]] = i;
    for (int i = 0; i < n; i++)
        last[i] = g->is_output[order[i]] ? n : i;
    for (int k = 0; k < n; k++)
        for (int q = g->in_off[order[k]]; q < g->in_off[order[k] + 1]; q++) {
            int i = pos[g->in_idx[q]];
            if (i >= 0 && last[i] < k)
                last[i] = k;
        }
}

int order_steps(const Graph *g, const int *order, int n, int64_t budget, const int *pos, const int *last, Steps *S,
                Err *e)
{
    int *readmark = xcalloc((size_t)n + 1, sizeof *readmark);
    int hcap = 1024, nh = 0;
    *S = (Steps){xmallocarray((size_t)n + 1, sizeof *S->st), 0, xmallocarray((size_t)hcap, sizeof *S->held)};
    int rc = ERR_OK;
    for (int t = 0; t < n; t++) {
        const Node *nd = &g->nodes[order[t]];
        double fixed = (double)g->input_bytes + (double)nd->size + (double)nd->workspace;
        for (int q = g->in_off[order[t]]; q < g->in_off[order[t] + 1]; q++) {
            int i = pos[g->in_idx[q]];
            if (i >= 0 && readmark[i] != t + 1) {
                readmark[i] = t + 1;
                fixed += (double)g->nodes[order[i]].size;
            }
        }
        if (fixed > (double)budget) {
            rc = err_set(e, ERR_OVER_BUDGET, "no plan in this order fits: %s needs %.0f bytes with its inputs alone",
                         nd->id, fixed);
            S->ns = 0;
            break;
        }
        if (nh + t > hcap) {
            hcap = 2 * (nh + t);
            S->held = xreallocarray(S->held, (size_t)hcap, sizeof *S->held);
        }
        Step st = {t, nh, 0, 0, (double)budget - fixed};
        double sum = 0;
        for (int i = 0; i < t; i++)
            if (last[i] > t && readmark[i] != t + 1 && g->nodes[order[i]].size) {
                S->held[nh + st.k++] = i;
                sum += (double)g->nodes[order[i]].size;
            }
        st.need = sum - st.room;
        if (st.need > 0) {
            S->st[S->ns++] = st;
            nh += st.k;
        }
    }
    free(readmark);
    return rc;
}

void steps_free(Steps *S)
{
    free(S->st);
    free(S->held);
    *S = (Steps){0};
}

/* Fill R with one row per step that holds too much (order_steps), each
 * divided by what it must free; ERR_OVER_BUDGET when a step cannot fit
 * even with nothing else held. */
static int build_rows(const Graph *g, const int *order, int n, int64_t budget, Rows *R, unsigned char *active,
                      Err *e)
{
    int *pos = xmallocarray((size_t)g->n + 1, sizeof *pos);
    int *last = xmallocarray((size_t)n + 1, sizeof *last);
    double *val = xmallocarray((size_t)n + 1, sizeof *val);
    last_readers(g, order, n, pos, last);
    Steps S;
    int rc = order_steps(g, order, n, budget, pos, last, &S, e);
    for (int a = 0; a < S.ns; a++) {
        const Step *s = &S.st[a];
        const int *hs = S.held + s->off;
        if (active)
            active[s->t] = 1;
        for (int j = 0; j < s->k; j++)
            val[j] = (double)g->nodes[order[hs[j]]].size / s->need;
        rows_add(R, hs, val, s->k, 1);
    }
    steps_free(&S);
    free(pos);
    free(last);
    free(val);
    return rc;
}

/* The costs of the positions. */
static double *costs_of(const Graph *g, const int *order, int n)
{
    double *w = xmallocarray((size_t)n + 1, sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = g->nodes[order[i]].cost;
    return w;
}

/* Sum of w(i) over x's ones when x (rounded) meets every row, else -1. */
static double exact_cost(const double *w, int n, const Rows *R, const double *x)
{
    for (int r = 0; r < R->nrows; r++) {
        double got = 0;
        for (int q = R->off[r]; q < R->off[r + 1]; q++)
            got += x[R->idx[q]] > 0.5 ? R->val[q] : 0;
        if (got < R->lo[r] - 1e-12)
            return -1;
    }
    double c = 0;
    for (int i = 0; i < n; i++)
        c += x[i] > 0.5 ? w[i] : 0;
    return c;
}

double rows_cost_scale(const double *w, int n)
{
    double cmax = 0;
    for (int i = 0; i < n; i++)
        cmax = fmax(cmax, w[i]);
    return cmax > 0 ? 1 / cmax : 1;
}

double rows_bound_of(double obj, double cscale)
{
    return obj > 0 ? obj / cscale * (1 - 1e-9) : 0;
}

int solve_rows(const double *w, int n, int nint, const Rows *R, double seconds, Progress *p, double *extra,
               unsigned char *pick, double *xval, Err *e)
{
    *extra = 0;
    if (pick)
        memset(pick, 0, (size_t)nint);
    if (R->nrows == 0)
        return ERR_OK;
    double cscale = rows_cost_scale(w, n);
    /* loaded column by column in one call: a row at a time, CBC took
     * 1.4 s to take lstm64's cover (2.3K columns) before it started */
    Csr col;    /* per column, the rows' entries q that hold it, by row */
    csr_begin(&col, n);
    do
        for (int q = 0; q < R->nnz; q++)
            csr_put(&col, R->idx[q], q);
    while (csr_next(&col));
    int *rowof = xmallocarray((size_t)R->nnz + 1, sizeof *rowof), *rind = xmallocarray((size_t)R->nnz + 1, sizeof *rind);
    double *val = xmallocarray((size_t)R->nnz + 1, sizeof *val), *obj = xmallocarray((size_t)n + 1, sizeof *obj);
    double *clb = xcalloc((size_t)n + 1, sizeof *clb), *cub = xmallocarray((size_t)n + 1, sizeof *cub);
    double *rlb = xmallocarray((size_t)R->nrows + 1, sizeof *rlb), *rub = xmallocarray((size_t)R->nrows + 1, sizeof *rub);
    for (int r = 0; r < R->nrows; r++) {
        rlb[r] = R->lo[r];
        rub[r] = 1e30;
        for (int q = R->off[r]; q < R->off[r + 1]; q++)
            rowof[q] = r;
    }
    for (int k = 0; k < R->nnz; k++) {
        rind[k] = rowof[col.adj[k]];
        val[k] = R->val[col.adj[k]];
    }
    for (int i = 0; i < n; i++) {
        obj[i] = w[i] * cscale;
        cub[i] = 1;
    }
    Cbc_Model *m = NULL;
    Clp_Simplex *lp = NULL;
    double engine, backstop;
    subproc_limits(clock_now(), seconds, &engine, &backstop);
    if (nint > 0) {
        m = Cbc_newModel();
        Cbc_loadProblem(m, n, R->nrows, (const CoinBigIndex *)col.off, rind, val, clb, cub, obj, rlb, rub);
        for (int i = 0; i < nint; i++)
            Cbc_setInteger(m, i);
        Cbc_setLogLevel(m, 0);
        /* no pruning by an increment or a relative gap: either could cut
         * off the true least sum and put the bound above a real plan */
        Cbc_setAllowableGap(m, 0);
        Cbc_setAllowableFractionGap(m, 0);
        Cbc_setParameter(m, "increment", "0");
        /* CBC overran its own limit by seconds here (ResNet-50 at 70 %:
         * 9 s on a 4.5 s limit), and a child stopped by the backstop says
         * nothing */
        Cbc_setMaximumSeconds(m, 0.5 * engine);
        Cbc_setParameter(m, "timeMode", "elapsed");
    } else {
        lp = Clp_newModel();
        Clp_loadProblem(lp, n, R->nrows, (const CoinBigIndex *)col.off, rind, val, clb, cub, obj, rlb, rub);
        Clp_setLogLevel(lp, 0);
        Clp_setMaximumSeconds(lp, engine);
    }
    free(col.off);
    free(col.adj);
    free(rowof);
    free(rind);
    free(val);
    free(obj);
    free(clb);
    free(cub);
    free(rlb);
    free(rub);
    EngineAnswer a;
    int rc = engine_solve(m, lp, n, p, backstop, &a, e);
    if (m)
        Cbc_deleteModel(m);
    if (lp)
        Clp_deleteModel(lp);
    if (rc == ERR_OK && a.heard && (m || a.status == ENGINE_OPTIMAL)) {
        /* a proven optimum is summed from its x in the graph's own units;
         * otherwise CBC's best possible value, a hair lower, since its
         * tolerances may not lift a bound above a plan that exists (an
         * LP's value counts only at its optimum) */
        double x = -1;
        if (a.status == ENGINE_OPTIMAL && a.x && nint == n)
            x = exact_cost(w, n, R, a.x);
        double bp = a.best_possible;   /* an LP's: its value at CLP's prices */
        *extra = x >= 0 ? x : rows_bound_of(bp, cscale);
        for (int i = 0; pick && a.x && i < nint; i++)
            pick[i] = a.x[i] > 0.5;
        if (xval && a.x)
            memcpy(xval, a.x, (size_t)n * sizeof *xval);
    } else if (rc == ERR_OK || rc == ERR_LIMIT) {
        /* no answer in time (the order's own cost still bounds, but says
         * nothing a caller would show) */
        rc = err_set(e, ERR_LIMIT, "no cover bound within %g s", seconds);
    }
    engine_answer_done(&a);
    return rc;
}

/* Orders of at most 64 nodes: the order search's optimum (order_search.c),
 * when it comes within a bounded number of states, is the best bound there
 * is, the order's optimum itself, and its plan the best plan. ERR_OK with
 * *opt (and the plan, simulated, in out when non-NULL); ERR_OVER_BUDGET
 * when no plan in the order fits; ERR_CANCELLED; anything else: not
 * settled, the cover goes on. */
static int exact_order(const Graph *g, const int *order, int n, int64_t budget, double seconds, Progress *p,
                       Plan *out, double *opt, Err *e)
{
    if (n > ORDER_SEARCH_MAX)
        return ERR_LIMIT;
    Plan w;
    plan_init(&w);
    int rc = order_search(g, order, n, budget, INFINITY, fmin(0.5 * seconds, 0.5), COVER_SEARCH_STATES, p, &w,
                          opt, e);
    if (rc == ERR_OK && out) {
        plan_swap_steps(out, &w);
        rc = plan_evaluate(out, g, e);
    }
    plan_done(&w);
    return rc;
}

int cover_bound(const Graph *g, const int *order, int n, int64_t budget, double seconds, Progress *p,
                double *bound, int *whole, Err *e)
{
    if (whole)
        *whole = 1;
    double base = 0;
    for (int i = 0; i < n; i++)
        base += g->nodes[order[i]].cost;
    *bound = base;
    Rows R = {0};
    int rc = build_rows(g, order, n, budget, &R, NULL, e);
    double extra = 0, *w = costs_of(g, order, n), opt = 0, t0 = clock_now();
    int cover_late = 0;     /* the cover's share ran out with no answer */
    unsigned char *pick = NULL; /* the cover's choice: where the cascade's rounds start */
    if (rc == ERR_OK) {
        /* the rows name a step that cannot fit at all; past them, a small
         * order's exact optimum is the bound */
        int xr = exact_order(g, order, n, budget, seconds, p, NULL, &opt, e);
        if (xr == ERR_OK)
            extra = opt - base;
        if (xr == ERR_OK || xr == ERR_CANCELLED)
            rc = xr;
        else if (xr == ERR_OVER_BUDGET)
            rc = err_set(e, ERR_OVER_BUDGET, "no plan in the order fits the budget (an exact search proved it)");
        else {
            /* with the cascade to follow, the cover gets a share of the
             * time: stopped early, CBC's best possible value still bounds,
             * and the cascade's LP bounds higher (below) */
            double left = seconds - (clock_now() - t0), cover_s = left;
            if (left * (1 - COVER_SHARE) >= CASCADE_MIN_SECONDS)
                cover_s = left * COVER_SHARE;
            pick = xcalloc((size_t)n + 1, 1);
            rc = solve_rows(w, n, n, &R, cover_s, p, &extra, pick, NULL, e);
            if (rc == ERR_LIMIT && cover_s < left) {
                extra = 0;      /* the order's own cost, unless the cascade says more */
                rc = ERR_OK;
                cover_late = 1;
            }
        }
        /* what the reruns need on top (cascade.c), in the time left: any
         * answer it gives is a bound, none leaves the cover's */
        double left = seconds - (clock_now() - t0), more;
        Err ce;
        int crc = ERR_LIMIT;
        if (rc == ERR_OK && xr != ERR_OK && R.nrows && left >= CASCADE_LEAST_SECONDS) {
            crc = cascade_bound(g, order, n, budget, left, p, cover_late ? NULL : pick, &more, NULL, &ce);
            if (crc == ERR_OK)
                extra = fmax(extra, more);
            else if (crc == ERR_CANCELLED)
                rc = err_set(e, crc, "%s", ce.msg);
        }
        if (rc == ERR_OK && cover_late && crc != ERR_OK)
            rc = err_set(e, ERR_LIMIT, "no cover bound within %g s", seconds);
        if (whole && rc == ERR_OK && xr != ERR_OK && R.nrows)
            *whole = crc == ERR_OK;
    }
    free(w);
    free(pick);
    if (rc == ERR_OK)
        *bound = base + extra;
    rows_free(&R);
    return rc;
}

/* One order's bound; INFINITY when no plan in it fits. */
static int order_bound(const Graph *g, const int *order, int n, int64_t budget, double seconds, Progress *p,
                       double *bound, int *whole, Err *e)
{
    int w = 1, rc = cover_bound(g, order, n, budget, seconds, p, bound, &w, e);
    *whole = *whole && w;
    if (rc == ERR_OVER_BUDGET) {
        *bound = INFINITY;
        rc = ERR_OK;
    }
    return rc;
}

int cover_bound_plan(const Graph *g, const int *steps, int T, int64_t budget, double graph_bound, double seconds,
                     Progress *p, double *bound, int *whole, Err *e)
{
    int w = 1;
    int n, m;
    int *gord = sim_baseline_order(g, &n);
    int *pord = cm_order_of(g, steps, T, &m);
    int rc = ERR_OK;
    if (!pord) {
        rc = err_set(e, ERR_UNSUPPORTED, "no bound: the plan does not run every node");
    } else {
        double t0 = clock_now(), b1 = INFINITY, b2 = graph_bound > 0 ? graph_bound : INFINITY;
        int same = memcmp(gord, pord, (size_t)n * sizeof *gord) == 0;
        if (!same || graph_bound <= 0)
            rc = order_bound(g, pord, m, budget, same || graph_bound > 0 ? seconds : seconds / 2, p, &b1, &w, e);
        if (rc == ERR_OK && !same && graph_bound <= 0)
            rc = order_bound(g, gord, n, budget, seconds - (clock_now() - t0), p, &b2, &w, e);
        *bound = fmin(b1, b2);
        if (rc == ERR_OK && isinf(*bound))
            rc = err_set(e, ERR_OVER_BUDGET, "no plan in the graph's order or this plan's fits the budget");
    }
    if (whole)
        *whole = w;
    free(gord);
    free(pord);
    return rc;
}

/* ---- a plan from the cover's choice -------------------------------------
 *
 * The cover says which values to run again; the plan follows the graph's
 * order and, for each chosen value, drops it between two uses that enclose
 * a step whose row is active (one that must free memory) and runs it again
 * right after the last such step. A rerun whose input is no longer held,
 * and would be held across an active step only for it, runs that input
 * again too: a cascade, which the bound leaves out. The schedule is
 * simulated and, within the budget, tidied (src/plan/tidy.h). Then up to
 * COVER_ROUNDS rounds: when the reruns lifted the peak over the budget (at
 * their own steps, which the rows do not see), the cover is solved again
 * for a lower budget, lowered by more each time; when the plan fits but
 * costs more than the bound, each chosen value is charged its cascades and
 * the cover chooses again. The cheapest plan within the budget wins. Where
 * the bound is tight the plan meets it, so it is the optimum in the order:
 * fcn_8_vgg (CM1) at 90/80 % and ResNet-50's training graph (CM2) at
 * 90/80/70/60 % in 0.01-0.11 s; fcn_8_vgg at 70 % reaches +0.892 %
 * (Checkmate's proven optimum +0.89 %, 3e-7 below) in 0.07 s. On random
 * layered graphs the cascades are long and the plan is poor; auto keeps
 * the best. */

#define COVER_ROUNDS 8

typedef struct {
    const Graph *g;
    const int *order, *pos;
    const int *act;         /* act[t]: active steps before position t */
    int *hold;              /* position up to which the current copy is held anyway */
    Plan *out;
    double *cascade;        /* per chosen position: cost of the inputs its reruns ran again */
} Build;

/* Is a step lo < t < hi active? */
static int active_between(const int *act, int lo, int hi)
{
    return lo + 1 < hi && act[hi] - act[lo + 1] > 0;
}

/* Run position i again just before position k, with the inputs it needs
 * that are no longer held (charged to root, the chosen value whose rerun
 * needs them). Inputs sit earlier in the order, so it ends. */
static void rerun(Build *b, int i, int k, int root)
{
    const Graph *g = b->g;
    int v = b->order[i];
    for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
        int j = b->pos[g->in_idx[q]];
        if (j < 0 || b->hold[j] >= k)
            continue;
        if (active_between(b->act, b->hold[j], k))
            rerun(b, j, k, root);
        else
            b->hold[j] = k;
    }
    if (i != root)
        b->cascade[root] += g->nodes[v].cost;
    plan_push(b->out, v);
    if (b->hold[i] < k)
        b->hold[i] = k;
}

/* Readers of each position, ascending (CSR). */
static Csr uses_of(const Graph *g, const int *order, int n, const int *pos)
{
    Csr c;
    csr_begin(&c, n);
    do
        for (int k = 0; k < n; k++)
            for (int q = g->in_off[order[k]]; q < g->in_off[order[k] + 1]; q++)
                if (pos[g->in_idx[q]] >= 0)
                    csr_put(&c, pos[g->in_idx[q]], k);
    while (csr_next(&c));
    return c;
}

/* The schedule for the chosen positions (pick) and active steps. */
static void build_plan(const Graph *g, const int *order, int n, const unsigned char *pick,
                       const unsigned char *active, Plan *out, double *cascade)
{
    int *pos = xmallocarray((size_t)g->n + 1, sizeof *pos), *last = xmallocarray((size_t)n + 1, sizeof *last);
    last_readers(g, order, n, pos, last);
    int *act = xcalloc((size_t)n + 2, sizeof *act);
    for (int t = 0; t < n; t++)
        act[t + 1] = act[t] + active[t];
    Csr u = uses_of(g, order, n, pos);
    const int *uoff = u.off, *uses = u.adj;
    /* reruns due before each position: a chosen value, for each use whose
     * gap from the use before holds an active step, right after the gap's
     * last active step (its inputs are likelier still held then than at
     * the use; holding it from there to the use is already in the rows) */
    int *after = xmallocarray((size_t)n + 1, sizeof *after);   /* 1 + last active step before k */
    for (int k = 0, a = 0; k < n; k++) {
        after[k] = a;
        if (active[k])
            a = k + 1;
    }
    Csr d;
    csr_begin(&d, n);
    do
        for (int i = 0; i < n; i++)
            for (int q = uoff[i], prev = i; pick[i] && q < uoff[i + 1]; prev = uses[q++])
                if (uses[q] != prev && active_between(act, prev, uses[q]))
                    csr_put(&d, after[uses[q]], i);
    while (csr_next(&d));
    const int *doff = d.off, *due = d.adj;
    Build b = {g, order, pos, act, xmallocarray((size_t)n + 1, sizeof(int)), out, cascade};
    for (int k = 0; k < n; k++) {
        for (int q = doff[k]; q < doff[k + 1]; q++)
            rerun(&b, due[q], k, due[q]);
        plan_push(out, order[k]);
        for (int q = g->in_off[order[k]]; q < g->in_off[order[k] + 1]; q++) {
            int j = pos[g->in_idx[q]];
            if (j >= 0 && b.hold[j] < k)
                b.hold[j] = k;
        }
        /* held through its uses up to its first dropped gap (all of them,
         * and to the end for an output, when not chosen) */
        int h = k;
        for (int q = uoff[k], prev = k; q < uoff[k + 1]; prev = uses[q++]) {
            if (pick[k] && active_between(act, prev, uses[q]))
                break;
            h = uses[q];
        }
        b.hold[k] = pick[k] || last[k] < h ? h : last[k];
    }
    free(b.hold);
    free(pos);
    free(last);
    free(act);
    free(u.off);
    free(u.adj);
    free(d.off);
    free(d.adj);
    free(after);
}

/* One round: the cover at model budget mb with costs w, its plan into out,
 * the cover's least sum into *extra (with w the positions' costs, a bound:
 * cover_bound), the chosen positions and their cascades. */
static int plan_round(const Graph *g, const int *order, int n, int64_t mb, const double *w, double seconds,
                      Progress *p, Plan *out, double *extra, unsigned char *pick, double *cascade, Err *e)
{
    Rows R = {0};
    unsigned char *active = xcalloc((size_t)n + 1, 1);
    int rc = build_rows(g, order, n, mb, &R, active, e);
    *extra = 0;
    memset(pick, 0, (size_t)n);
    memset(cascade, 0, (size_t)n * sizeof *cascade);
    if (rc == ERR_OK && R.nrows)
        rc = solve_rows(w, n, n, &R, seconds, p, extra, pick, NULL, e);
    if (rc == ERR_OK) {
        plan_reset(out);
        build_plan(g, order, n, pick, active, out, cascade);
    }
    rows_free(&R);
    free(active);
    return rc;
}

/* Move try's steps into out when it beats what out holds (cheapest within
 * the budget, else lowest peak); both simulated. */
static void take_better(int64_t budget, Plan *try, Plan *out)
{
    if (out->T == 0 || cands_better(budget, try->peak, try->cost, out->peak, out->cost)) {
        plan_swap_steps(out, try);
        out->peak = try->peak;
        out->cost = try->cost;
    }
}

/* Keep try in out when it beats what out holds (take_better): try is
 * simulated and, within the budget, tidied first. */
static int keep_better(const Graph *g, int64_t budget, Plan *try, Plan *out, Err *e)
{
    if (plan_evaluate_with(try, g, 0, 0, NULL, e) != ERR_OK ||
        (try->peak <= budget && plan_tidy(g, try->steps, &try->T, budget, NULL) > 0 &&
         plan_evaluate_with(try, g, 0, 0, NULL, e) != ERR_OK)) {
        /* the simulator's message, named (err_set would format e->msg into itself) */
        err_prefix(e, "cover: internal error");
        return e->code = ERR_INVALID;
    }
    take_better(budget, try, out);
    return ERR_OK;
}

int cover_plan(const Graph *g, int64_t budget, double seconds, Progress *p, Plan *out, double *bound, Err *e)
{
    int n;
    int *order = sim_baseline_order(g, &n);
    double end = clock_now() + seconds, opt = -1;
    int xr = exact_order(g, order, n, budget, seconds, p, out, &opt, e);
    *bound = xr == ERR_OK ? opt : -1;
    if (xr == ERR_OK || xr == ERR_CANCELLED) {
        free(order);
        return xr;
    }
    double *w = costs_of(g, order, n);
    double *cascade = xmallocarray((size_t)n + 1, sizeof *cascade);
    unsigned char *pick = xmallocarray((size_t)n + 1, 1);
    int64_t mb = budget;
    int rc = ERR_OK;
    Plan try;
    plan_init(&try);
    plan_reset(out);
    for (int round = 0; round < COVER_ROUNDS && mb > 0; round++) {
        double left = end - clock_now(), extra;
        if (left <= 0)
            break;
        if ((rc = plan_round(g, order, n, mb, w, left, p, &try, &extra, pick, cascade, e)) != ERR_OK) {
            /* a lowered budget no step fits, or no time: the best so far stands */
            if (round > 0 && rc != ERR_CANCELLED)
                rc = ERR_OK;
            break;
        }
        if (round == 0) {
            *bound = extra;
            for (int i = 0; i < n; i++)
                *bound += g->nodes[order[i]].cost;
        }
        if ((rc = keep_better(g, budget, &try, out, e)) != ERR_OK)
            break;
        if (try.peak > budget) {
            /* the reruns lifted the peak (at their own steps, which the
             * rows do not see): lower the cover's budget, by more each
             * time the same excess comes back */
            mb -= (try.peak - budget) << round;
            continue;
        }
        if (out->cost <= *bound * (1 + 1e-9))
            break;                      /* at the bound: optimal in the order */
        /* the cover did not see what its choice's reruns cost: charge it
         * and let it choose again */
        int charged = 0;
        for (int i = 0; i < n; i++)
            if (pick[i] && cascade[i] > 0) {
                w[i] += cascade[i];
                charged = 1;
            }
        if (!charged)
            break;
    }
    plan_done(&try);
    free(order);
    free(w);
    free(cascade);
    free(pick);
    if (rc == ERR_OK && out->T == 0)
        rc = err_set(e, ERR_LIMIT, "cover: no plan within %g s", seconds);
    return rc;
}

/* ---- a plan from the cascade LP's choice --------------------------------
 *
 * The cover's choice charges each rerun its own cost, so where a rerun
 * needs a chain of inputs (a transformer's softmax at 25 %) it picks values
 * whose plan pays far more; the cascade LP charges the chain, and its
 * fractional choice, rounded low, picks values whose chains are cheap.
 * Measured on bench_paper's graphs at 25 % (unit costs): opt_6_7b 25.00 %
 * at +23.15 % in 2.9 s (auto's +26.5 %, the bound +22.66 %), distilbert
 * +17.80 % (auto's +18.0 %), swin_t +12.72 % (auto's +10.1 %).
 *
 * Where every rounding lifts the peak over the budget (the reruns' own
 * steps, which no row sees), the LP is solved again at a lower budget, as
 * the cover's rounds do: resnet50 at 25 % (unit costs) peaked at 12.8 GB
 * for a budget of 11.1; at 9.4 the plan peaks at 11.0, +20.9 %, in 0.2 s,
 * where no member had a plan within the budget for FastSA to start from.
 * Once one fits, the budgets between are halved a few times (the rounding
 * is not monotone in the budget: on resnet50 they all lifted the peak
 * again, while vit_l_16's plan fell from +25.9 % at the first fit to
 * +22.0, +21.3 and +21.0 %, a second each). */

/* Thresholds tried, falling: a value the LP runs again by at least this
 * much is dropped. Low ones took the plans above within the budget (0.5
 * lifted opt_6_7b's cost to +103 %: the values it leaves held need long
 * chains at the steps no row sees). */
static const double CASCADE_PLAN_THETA[] = {0.5, 0.2, 0.05};

/* The LP's x rounded at each threshold, each plan kept in out when better
 * (keep_better): the cover plan's builder's, and two greedy walks
 * (greedy_ranked) that drop only the chosen values, then also forward
 * values not chosen, after them, where memory runs over the budget. The
 * builder reruns a chosen value in every dropped gap, pulling its inputs
 * again each time: where the LP runs a chain again once (regnet_y_400mf's
 * first 28 forward values at 25 %, FLOP costs) the chain ran 26-30 times
 * (+138 %, the LP +7.6 %); a walk drops only for room and keeps what it
 * ran again until it needs the room, so the chain runs about once (+15.6
 * %). The second walk lets the plan fit where the chosen values are not
 * enough (the LP sees no rerun's own step). Each walk is made three
 * times: within a rank the value read latest goes first (Belady), the
 * largest (the greedy solver's rule), or the one whose rerun with the
 * inputs it would need again costs least per byte and per step away;
 * none wins everywhere (one LP at 25 %, FLOP costs: gpt2_small +17.8 %
 * by the first, +7.2 % by the second; resnet50 +23.1 % by the first, over
 * the budget by the second, +14.2 % by the third, whose plan runs the
 * stem's convolution again twice where the first's, which drops the stem
 * first as it is read last, runs it again 4 times; opt_125m +25.8 ->
 * +19.7 %, swin_t +10.4 -> +8.1 % with the third). */
static int round_cascade(const Graph *g, const int *order, int n, int64_t budget, const double *x,
                         const unsigned char *active, Progress *p, Plan *out, Err *e)
{
    unsigned char *pick = xcalloc((size_t)n + 1, 1), *last = xcalloc((size_t)n + 1, 1);
    unsigned char *rank = xcalloc((size_t)g->n + 1, 1);
    double *cascade = xcalloc((size_t)n + 1, sizeof *cascade);
    Plan try;
    plan_init(&try);
    int rc = ERR_OK;
    for (size_t k = 0; rc == ERR_OK && k < sizeof CASCADE_PLAN_THETA / sizeof *CASCADE_PLAN_THETA; k++) {
        int same = k > 0;
        for (int i = 0; i < n; i++) {
            pick[i] = x[i] >= CASCADE_PLAN_THETA[k];
            same = same && pick[i] == last[i];
        }
        if (same)
            continue;
        memcpy(last, pick, (size_t)n);
        plan_reset(&try);
        build_plan(g, order, n, pick, active, &try, cascade);
        rc = keep_better(g, budget, &try, out, e);
        for (int walk = 0; rc == ERR_OK && walk < 6; walk++) {
            int fwd = walk & 1;     /* forward values not chosen may go too */
            GreedyPick way = walk < 2 ? GREEDY_LATEST : walk < 4 ? GREEDY_LARGEST : GREEDY_CHEAPEST_RERUN;
            for (int i = 0; i < n; i++)
                rank[order[i]] = pick[i] ? 2 : fwd && g->nodes[order[i]].phase == PHASE_FWD;
            rc = greedy_ranked(g, budget, rank, way, &try, p, e);
            if (rc == ERR_OK)
                rc = keep_better(g, budget, &try, out, e);
            else if (rc == ERR_LIMIT)
                rc = ERR_OK;    /* reruns that kept dropping each other: no plan from it */
        }
    }
    plan_done(&try);
    free(pick);
    free(last);
    free(rank);
    free(cascade);
    return rc;
}

int cascade_plan_at(const Graph *g, int64_t budget, int64_t mb, double seconds, Progress *p, Plan *out,
                    double *bound, Err *e)
{
    int n;
    int *order = sim_baseline_order(g, &n);
    unsigned char *active = xcalloc((size_t)n + 1, 1);
    double *x = xcalloc((size_t)n + 1, sizeof *x), extra;
    Rows R = {0};
    *bound = -1;
    plan_reset(out);
    int rc = build_rows(g, order, n, mb, &R, active, e);
    if (rc == ERR_OK && R.nrows == 0)
        rc = err_set(e, ERR_LIMIT, "cascade: no memory to free in the graph's order");
    rows_free(&R);
    if (rc == ERR_OK)
        rc = cascade_bound(g, order, n, mb, seconds, p, NULL, &extra, x, e);
    if (rc == ERR_OK) {
        *bound = extra;
        for (int i = 0; i < n; i++)
            *bound += g->nodes[order[i]].cost;
        /* told now: the rounding and the rounds after can take seconds */
        if (mb == budget)
            progress_bound(p, *bound);
        rc = round_cascade(g, order, n, budget, x, active, p, out, e);
    }
    free(order);
    free(active);
    free(x);
    return rc;
}

int cascade_plan(const Graph *g, int64_t budget, double seconds, double more, Progress *p, Plan *out, double *bound,
                 Err *e)
{
    double t0 = clock_now(), end = t0 + seconds, rounds_end = t0 + fmin(more, seconds);
    int rc = ERR_OK;
    *bound = -1;
    plan_reset(out);
    Plan try;
    plan_init(&try);
    /* mb: the LP's budget this round; over, fits: the last that gave no
     * plan within the budget, the last that did (-1: none yet); below:
     * once the search between them has closed, how far under the lowest
     * fit the next round probes (0: not probing) */
    int64_t mb = budget, over = budget, fits = -1, below = 0;
    double offered = -1;    /* the cost of the last plan offered */
    for (int round = 0; round < COVER_ROUNDS && mb > 0; round++) {
        double left = (round == 0 ? end : rounds_end) - clock_now(), lb;
        if (round > 0 && left <= 0)
            break;
        int r = cascade_plan_at(g, budget, mb, left, p, &try, &lb, e);
        if (r != ERR_OK) {
            if (round == 0)
                rc = r;         /* a later round's failure leaves the plan in hand */
            break;
        }
        if (round == 0)
            *bound = lb;
        int64_t peak = try.peak;
        take_better(budget, &try, out);
        /* each cheaper plan within the budget is shown as it comes: the
         * rounds after the first can take seconds */
        if (out->peak <= budget && (offered < 0 || out->cost < offered)) {
            offered = out->cost;
            progress_offer(p, out->steps, out->T, "cascade");
        }
        if (below) {
            /* probing: on while the plans fit, twice as far down each
             * time, cheaper or not (resnet50 at 25 %, unit costs: +26.4
             * % at the budget, 99 % and 98 % of it, +23.1 % at 96 %) */
            if (peak > budget)
                break;
            below *= 2;
            mb = fits - below;
            continue;
        }
        if (peak <= budget) {
            fits = mb;
            if (over - fits < budget / 200) {
                /* the LP a little below the lowest fit rounds to a
                 * cheaper plan at times (room for the reruns' own steps,
                 * which no row sees): swin_t at 25 %, FLOP costs, +11.30
                 * % at the budget, +8.63 % at 99 % of it */
                below = budget / 100;
                mb = fits - below;
                continue;
            }
        } else {
            over = mb;
        }
        /* halfway to the last that fitted, else lower by the excess (at
         * least half a percent), by more each time it comes back (the
         * cover's rounds) */
        mb = fits >= 0 ? fits + (over - fits) / 2
                       : mb - ((peak - budget > budget / 200 ? peak - budget : budget / 200) << round);
    }
    plan_done(&try);
    return rc;
}
