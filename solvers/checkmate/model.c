/* model.c — building Checkmate's fixed-order MILP (see model.h), reading a
 * schedule out of a solution, and turning a schedule into a start. */
#include "solvers/checkmate/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

typedef struct {
    int *row;
    int64_t *col;
    double *v;
    int n, cap;
    int nrows, rcap;
    double *rlb, *rub;
} Build;

static void put(Build *b, int row, int64_t col, double v)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1 << 16;
        b->row = xreallocarray(b->row, (size_t)b->cap, sizeof *b->row);
        b->col = xreallocarray(b->col, (size_t)b->cap, sizeof *b->col);
        b->v = xreallocarray(b->v, (size_t)b->cap, sizeof *b->v);
    }
    b->row[b->n] = row;
    b->col[b->n] = col;
    b->v[b->n++] = v;
}

static int row(Build *b, double lb, double ub)
{
    if (b->nrows == b->rcap) {
        b->rcap = b->rcap ? 2 * b->rcap : 1 << 14;
        b->rlb = xreallocarray(b->rlb, (size_t)b->rcap, sizeof *b->rlb);
        b->rub = xreallocarray(b->rub, (size_t)b->rcap, sizeof *b->rub);
    }
    b->rlb[b->nrows] = lb;
    b->rub[b->nrows] = ub;
    return b->nrows++;
}

#define INF 1e30

/* positions, inputs and readers of the order */
static void index_order(CmModel *M, const Graph *g, const int *order, int n)
{
    M->g = g;
    M->n = n;
    M->ord = xmallocarray((size_t)n + 1, sizeof *M->ord);
    memcpy(M->ord, order, (size_t)n * sizeof *order);
    M->pos = xmallocarray((size_t)g->n + 1, sizeof *M->pos);
    for (int v = 0; v < g->n; v++)
        M->pos[v] = -1;
    for (int i = 0; i < n; i++)
        M->pos[order[i]] = i;
    M->in_off = xcalloc((size_t)n + 1, sizeof *M->in_off);
    M->us_off = xcalloc((size_t)n + 2, sizeof *M->us_off);
    for (int k = 0; k < n; k++) {
        int v = order[k];
        M->in_off[k + 1] = M->in_off[k];
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++)
            if (M->pos[g->in_idx[q]] >= 0) {
                M->in_off[k + 1]++;
                M->us_off[M->pos[g->in_idx[q]] + 2]++;
            }
    }
    M->in_pos = xmallocarray((size_t)M->in_off[n] + 1, sizeof *M->in_pos);
    M->us_pos = xmallocarray((size_t)M->in_off[n] + 1, sizeof *M->us_pos);
    for (int i = 0; i < n; i++)
        M->us_off[i + 2] += M->us_off[i + 1];
    for (int k = 0, w = 0; k < n; k++) {
        int v = order[k];
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
            int i = M->pos[g->in_idx[q]];
            if (i < 0)
                continue;
            M->in_pos[w++] = i;
            M->us_pos[M->us_off[i + 1]++] = k;   /* k ascending: readers sorted */
        }
    }
    M->L_off = xmallocarray((size_t)n + 1, sizeof *M->L_off);
    M->L_off[0] = 0;
    for (int k = 0; k < n; k++)
        M->L_off[k + 1] = M->L_off[k] + (M->in_off[k + 1] - M->in_off[k]) + 1;
    M->ft = xmallocarray((size_t)n + 1, sizeof *M->ft);
    M->ft[0] = 0;
    for (int t = 0; t < n; t++)
        M->ft[t + 1] = M->ft[t] + M->L_off[t + 1];
}

/* Readers of position i strictly after k and at most t: us_pos[a..b). */
static void readers_between(const CmModel *M, int i, int k, int t, int *a, int *b)
{
    int lo = M->us_off[i], hi = M->us_off[i + 1];
    while (lo < hi && M->us_pos[lo] <= k)
        lo++;
    int e = lo;
    while (e < hi && M->us_pos[e] <= t)
        e++;
    *a = lo;
    *b = e;
}

/* Bounds, integrality and objective scaling of every column. */
static void cm_columns(CmModel *M, const Graph *g, const int *order, int n, int64_t budget)
{
    size_t nc = (size_t)M->ncols + 1;
    M->clb = xcalloc(nc, sizeof *M->clb);
    M->cub = xmallocarray(nc, sizeof *M->cub);
    M->obj = xcalloc(nc, sizeof *M->obj);
    M->is_int = xcalloc(nc, 1);
    /* memory in units of the budget and costs in units of the dearest
     * node keep every coefficient near 1: byte counts of 1e10 and FLOP
     * counts of 1e12 side by side defeat the engines' tolerances */
    M->mscale = budget > 0 ? 1.0 / (double)budget : 1.0;
    /* Memory is a sum of sizes, so a multiple of their gcd q: the rows
     * allow the budget's last multiple of q (a tighter relaxation for
     * free), and the engine may miss a row by at most a quarter of q
     * (tolerance), so a plan one q over the limit stays outside. At CBC's
     * default (1e-7 of the budget, over a byte on a 13 MB budget)
     * "optimal" plans were a byte over the budget, and a proof on the
     * lowered budget missed plans exactly at it. */
    int64_t q = cm_size_gcd(g, order, n, g->input_bytes);
    M->limit = (double)(budget / q * q);
    M->tolerance = 0.25 * (double)q * M->mscale;
    double cmax = 0;
    for (int i = 0; i < n; i++)
        cmax = g->nodes[order[i]].cost > cmax ? g->nodes[order[i]].cost : cmax;
    M->cscale = cmax > 0 ? 1.0 / cmax : 1.0;
    for (int64_t c = 0; c < M->ncols; c++) {
        M->cub[c] = c < M->ubase ? 1 : M->limit * M->mscale;
        M->is_int[c] = c < M->ubase;
    }
}

int64_t cm_size_gcd(const Graph *g, const int *nodes, int n, int64_t q)
{
    for (int i = 0; i < 2 * n; i++) {
        const Node *nd = &g->nodes[nodes[i / 2]];
        int64_t a = q, b = i % 2 ? nd->workspace : nd->size;
        while (b) {
            int64_t r = a % b;
            a = b;
            b = r;
        }
        q = a;
    }
    return q > 0 ? q : 1;
}

int cm_build(CmModel *M, const Graph *g, const int *order, int n, int64_t budget, int64_t max_cols,
             Err *e)
{
    memset(M, 0, sizeof *M);
    index_order(M, g, order, n);
    int64_t tri = (int64_t)n * (n + 1) / 2;
    M->rbase = 0;
    M->sbase = tri;
    M->fbase = M->sbase + (n > 0 ? (int64_t)n * (n - 1) / 2 : 0);
    M->ubase = M->fbase + M->ft[n];
    M->ncols = M->ubase + tri;
    if (M->ncols > max_cols)
        return err_set(e, ERR_LIMIT,
                       "the model of %d nodes has %lld variables, more than the limit %lld", n,
                       (long long)M->ncols, (long long)max_cols);
    cm_columns(M, g, order, n, budget);
    size_t nc = (size_t)M->ncols + 1;
    const double B = M->limit * M->mscale, ms = M->mscale;
    Build b = {0};
    for (int t = 0; t < n; t++) {
        M->clb[cm_R(M, t, t)] = 1;     /* the frontier advances */
        for (int i = 0; i <= t; i++)
            M->obj[cm_R(M, t, i)] = g->nodes[order[i]].cost * M->cscale;
        /* inputs are computed in the stage or kept into it */
        for (int k = 0; k <= t; k++)
            for (int q = M->in_off[k]; q < M->in_off[k + 1]; q++) {
                int i = M->in_pos[q], r = row(&b, -INF, 0);
                put(&b, r, cm_R(M, t, k), 1);
                put(&b, r, cm_R(M, t, i), -1);
                if (i < t)
                    put(&b, r, cm_S(M, t, i), -1);
            }
        /* kept only what was there in the stage before */
        for (int i = 0; t >= 1 && i < t; i++) {
            int r = row(&b, -INF, 0);
            put(&b, r, cm_S(M, t, i), 1);
            put(&b, r, cm_R(M, t - 1, i), -1);
            if (i < t - 1)
                put(&b, r, cm_S(M, t - 1, i), -1);
        }
        /* the memory chain */
        for (int k = 0; k <= t; k++) {
            const Node *nd = &g->nodes[order[k]];
            double in0 = k == 0 ? (double)g->input_bytes * ms : 0;
            int r = row(&b, in0, in0);
            put(&b, r, cm_U(M, t, k), 1);
            if (nd->size)
                put(&b, r, cm_R(M, t, k), -(double)nd->size * ms);
            if (k == 0) {
                for (int i = 0; i < t; i++)
                    if (g->nodes[order[i]].size)
                        put(&b, r, cm_S(M, t, i), -(double)g->nodes[order[i]].size * ms);
            } else {
                put(&b, r, cm_U(M, t, k - 1), -1);
                int d = (int)(M->L_off[k] - M->L_off[k - 1]);
                for (int j = 0; j < d; j++) {
                    int64_t sz = g->nodes[order[cm_L(M, k - 1, j)]].size;
                    if (sz)
                        put(&b, r, cm_F(M, t, k - 1, j), (double)sz * ms);
                }
            }
            if (nd->workspace) {
                r = row(&b, -INF, B);
                put(&b, r, cm_U(M, t, k), 1);
                put(&b, r, cm_R(M, t, k), (double)nd->workspace * ms);
            }
        }
        /* F may be 1 only when nothing stands in the way ("hazards"): k
         * did not run, the value is kept into the next stage, or a later
         * node of the stage reads it. Checkmate also forces F = 1 when
         * nothing does; that changes no optimum (freeing only lowers the
         * memory rows), and left out it made CBC five times faster */
        for (int k = 0; k <= t; k++) {
            int d = (int)(M->L_off[k + 1] - M->L_off[k]);
            for (int j = 0; j < d; j++) {
                int i = cm_L(M, k, j), a, z;
                readers_between(M, i, k, t, &a, &z);
                int kept_const = t == n - 1 && g->is_output[order[i]];
                int has_s = t + 1 < n && i < t + 1;
                int64_t f = cm_F(M, t, k, j);
                if (kept_const) {
                    M->cub[f] = 0;  /* an output is never freed in the last stage */
                    continue;
                }
                /* F <= R[t][k], F <= 1 - S[t+1][i], F <= 1 - R[t][u]: one
                 * row per hazard, not Checkmate's single aggregated row
                 * (kappa F + hazards <= kappa), whose relaxation lets F
                 * stay fractional beside a hazard that is fully there; the
                 * LP bound tightens (fcn_8_vgg at 80 %: 0.08 % below the
                 * optimum instead of 0.14 %) and CBC proves the 80 % and
                 * 90 % cells in 6-8 s instead of 28 s and not in 300 s */
                int r = row(&b, -INF, 0);
                put(&b, r, f, 1);
                put(&b, r, cm_R(M, t, k), -1);
                if (has_s) {
                    r = row(&b, -INF, 1);
                    put(&b, r, f, 1);
                    put(&b, r, cm_S(M, t + 1, i), 1);
                }
                for (int q = a; q < z; q++) {
                    r = row(&b, -INF, 1);
                    put(&b, r, f, 1);
                    put(&b, r, cm_R(M, t, M->us_pos[q]), 1);
                }
            }
        }
    }
    /* outputs are there at the end */
    for (int i = 0; i < n; i++)
        if (g->is_output[order[i]] && i < n - 1) {
            int r = row(&b, 1, INF);
            put(&b, r, cm_R(M, n - 1, i), 1);
            put(&b, r, cm_S(M, n - 1, i), 1);
        }
    /* column-major */
    M->nrows = b.nrows;
    M->nnz = b.n;
    M->rlb = b.rlb;
    M->rub = b.rub;
    M->cstart = xcalloc(nc + 1, sizeof *M->cstart);
    for (int q = 0; q < b.n; q++)
        M->cstart[b.col[q] + 1]++;
    for (int64_t c = 0; c < M->ncols; c++)
        M->cstart[c + 1] += M->cstart[c];
    int64_t *fill = xmallocarray(nc, sizeof *fill);
    memcpy(fill, M->cstart, (size_t)M->ncols * sizeof *fill);
    M->rind = xmallocarray((size_t)b.n + 1, sizeof *M->rind);
    M->val = xmallocarray((size_t)b.n + 1, sizeof *M->val);
    for (int q = 0; q < b.n; q++) {
        int64_t at = fill[b.col[q]]++;
        M->rind[at] = b.row[q];
        M->val[at] = b.v[q];
    }
    free(fill);
    free(b.row);
    free(b.col);
    free(b.v);
    return ERR_OK;
}

void cm_free(CmModel *M)
{
    free(M->ord);
    free(M->pos);
    free(M->in_off);
    free(M->in_pos);
    free(M->us_off);
    free(M->us_pos);
    free(M->L_off);
    free(M->ft);
    free(M->cstart);
    free(M->rind);
    free(M->val);
    free(M->clb);
    free(M->cub);
    free(M->obj);
    free(M->rlb);
    free(M->rub);
    free(M->is_int);
    memset(M, 0, sizeof *M);
}

void cm_extract(const CmModel *M, const double *x, Plan *out)
{
    plan_reset(out);
    for (int t = 0; t < M->n; t++)
        for (int i = 0; i <= t; i++)
            if (x[cm_R(M, t, i)] > 0.5)
                plan_push(out, M->ord[i]);
}

int *cm_order_of(const Graph *g, const int *steps, int T, int *n)
{
    unsigned char *seen = xcalloc((size_t)g->n + 1, 1);
    int *ord = xmallocarray((size_t)g->n + 1, sizeof *ord), m = 0, need = graph_running_nodes(g);
    for (int t = 0; t < T; t++)
        if (!seen[steps[t]]) {
            seen[steps[t]] = 1;
            ord[m++] = steps[t];
        }
    free(seen);
    if (m != need) {
        free(ord);
        return NULL;
    }
    *n = m;
    return ord;
}

int cm_start_from(const CmModel *M, const int *steps, int T, double **xout)
{
    const Graph *g = M->g;
    int n = M->n;
    double *x = xcalloc((size_t)M->ncols + 1, sizeof *x);
    /* R: stage t ends with the first run of position t */
    int t = 0;
    int *last = xmallocarray((size_t)n + 1, sizeof *last);
    for (int i = 0; i < n; i++)
        last[i] = -1;
    for (int s = 0; s < T; s++) {
        int i = M->pos[steps[s]];
        if (i < 0 || t >= n || i > t || last[i] == t) {
            free(last);
            free(x);
            return 0;
        }
        last[i] = t;
        x[cm_R(M, t, i)] = 1;
        if (i == t)
            t++;
    }
    free(last);
    if (t != n) {
        free(x);
        return 0;
    }
    /* S: a value is kept into stage t when some stage from t on reads it
     * before running it again (outputs: until the end) */
    for (int i = 0; i < n; i++) {
        int need = g->is_output[M->ord[i]];
        for (t = n - 1; t > i; t--) {
            int used = 0;
            for (int q = M->us_off[i]; q < M->us_off[i + 1] && !used; q++)
                used = M->us_pos[q] <= t && x[cm_R(M, t, M->us_pos[q])] > 0.5;
            need = x[cm_R(M, t, i)] > 0.5 ? 0 : (used || need);
            x[cm_S(M, t, i)] = need;
        }
    }
    /* F and U by the model's own rules */
    for (t = 0; t < n; t++) {
        double u = (double)g->input_bytes;
        for (int i = 0; i < t; i++)
            u += x[cm_S(M, t, i)] * (double)g->nodes[M->ord[i]].size;
        for (int k = 0; k <= t; k++) {
            double rk = x[cm_R(M, t, k)];
            u += rk * (double)g->nodes[M->ord[k]].size;
            x[cm_U(M, t, k)] = u * M->mscale;
            int d = (int)(M->L_off[k + 1] - M->L_off[k]);
            for (int j = 0; j < d && rk > 0.5; j++) {
                int i = cm_L(M, k, j), a, z;
                readers_between(M, i, k, t, &a, &z);
                int later = 0;
                for (int q = a; q < z && !later; q++)
                    later = x[cm_R(M, t, M->us_pos[q])] > 0.5;
                int kept = t + 1 < n ? x[cm_S(M, t + 1, i)] > 0.5 : g->is_output[M->ord[i]];
                if (!later && !kept) {
                    x[cm_F(M, t, k, j)] = 1;
                    u -= (double)g->nodes[M->ord[i]].size;
                }
            }
        }
    }
    *xout = x;
    return 1;
}

int cm_refuse_large(const Solver *s, const char *why, Err *e)
{
    long long maxn;
    if (solver_opt_int(s, "max_nodes", &maxn, e))
        return e->code;
    int m = graph_running_nodes(s->g);
    if (m > maxn)
        return err_set(e, ERR_LIMIT, "%s: %d nodes exceed max_nodes=%lld; %s", s->cls->name, m, maxn, why);
    return ERR_OK;
}
