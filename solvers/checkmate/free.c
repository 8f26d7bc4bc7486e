/* free.c — `checkmate-free`: the exact reference over every order, a
 * Checkmate-style MILP (Jain et al. 2020) without the fixed order, solved
 * with GLPK, for tiny graphs where the true optimum matters.
 *
 * Checkmate decides, per stage t, which nodes are computed (R[t][v]) and
 * which values are kept in memory into the stage (S[t][v]), and minimises
 * total cost under a memory limit. Its published form fixes a topological
 * order and lets each stage t hold several operations; both restrict the
 * schedules it can express and make its memory accounting approximate the
 * spec's. Here every stage is one step (so R[t][v] says which node runs at
 * step t and S[t+1][v] = H[t][v] which values are held across step t), and
 * no order is fixed. Then the accounting is the spec's exactly:
 *   sum_v R[t][v] <= 1, idle steps only at the end;
 *   H[t][v] <= H[t-1][v] + R[t][v]       (a value exists only once produced)
 *   R[t][v] <= H[t][v]                  (the produced value is in memory)
 *   R[t][w] <= H[t][u] for each input u  (inputs are in memory when read)
 *   H[T][o] = 1 for every output
 *   inputs + sum_v size(v) H[t][v] + sum_v workspace(v) R[t][v] <= budget
 * and the optimum over schedules of at most `steps` steps is the true
 * optimum (the solver may hold a value longer than the spec would, never
 * shorter, so the cheapest solution frees exactly as the spec does).
 * Budget-free parts: none. Limits: max_nodes, steps, time_limit.
 */
#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/model.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/clock.h"
#include "src/plan/subproc.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_NUM("time_limit", "60", 0.001, 1e7, NULL, "seconds for the MILP search; past it the best schedule found is returned"),
    OPT_P_INT("max_nodes", "150", 0, 1e9, NULL, "refuse graphs with more non-input nodes than this"),
    OPT_P_INT("steps", "auto", 1, 100000, "auto", "longest schedule considered (auto: 2 x nodes for up to 40 nodes, else 1.5 x)"),
    OPT_P_END,
};

typedef struct {
    int m;              /* non-input nodes */
    int *idx;           /* their node indices */
    int *pos;           /* node -> position or -1 */
    char status[96];    /* "optimal", "best found (time limit)", ... */
} Checkmate;

static int checkmate_prepare(Solver *s, Err *e)
{
    const Graph *g = s->g;
    int rc = cm_refuse_large(s,
                             "the exact MILP is for small graphs (raise max_nodes, or use fastsa or "
                             "kusumoto-approx)",
                             e);
    if (rc)
        return rc;
    Checkmate *st = s->state;
    st->idx = xmallocarray((size_t)g->n, sizeof *st->idx);
    st->pos = xmallocarray((size_t)g->n, sizeof *st->pos);
    for (int v = 0; v < g->n; v++) {
        st->pos[v] = -1;
        if (g->nodes[v].phase != PHASE_INPUT) {
            st->pos[v] = st->m;
            st->idx[st->m++] = v;
        }
    }
    snprintf(st->status, sizeof st->status, "not solved yet");
    return ERR_OK;
}

/* GLPK column numbers (1-based): R[t][i] then H[t][i], t = 0..T-1 */
#define RCOL(t, i) (1 + (t) * m + (i))
#define HCOL(t, i) (1 + T * m + (t) * m + (i))

typedef struct {
    int *ia, *ja;
    double *ar;
    int n, cap;
} Triplets;

static void trip_add(Triplets *tr, int row, int col, double v)
{
    if (tr->n + 2 > tr->cap) {
        tr->cap = tr->cap ? 2 * tr->cap : 4096;
        tr->ia = xreallocarray(tr->ia, (size_t)tr->cap, sizeof *tr->ia);
        tr->ja = xreallocarray(tr->ja, (size_t)tr->cap, sizeof *tr->ja);
        tr->ar = xreallocarray(tr->ar, (size_t)tr->cap, sizeof *tr->ar);
    }
    tr->n++; /* GLPK arrays are 1-based */
    tr->ia[tr->n] = row;
    tr->ja[tr->n] = col;
    tr->ar[tr->n] = v;
}

static int new_row(glp_prob *lp, int type, double lb, double ub)
{
    int r = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, r, type, lb, ub);
    return r;
}

typedef struct {
    Progress *p;
    double *start;      /* a feasible column vector (1-based), or NULL */
    int given;
    glp_prob *lp;
    glp_iocp *parm;
    int m, T;
} SearchCtx;

/* Called by GLPK during the search: hand it a known feasible schedule once
 * (so a time limit still returns at least that). */
static void cb(glp_tree *tree, void *info)
{
    SearchCtx *c = info;
    if (glp_ios_reason(tree) == GLP_IHEUR && c->start && !c->given) {
        c->given = 1;
        glp_ios_heur_sol(tree, c->start);
    }
}

/* In the child: solve, then write glp_intopt's return, the MIP status and
 * one byte per R[t][i]. */
static int child_intopt(void *arg, int fd)
{
    SearchCtx *c = arg;
    int32_t hdr[2];
    hdr[0] = glp_intopt(c->lp, c->parm);
    hdr[1] = glp_mip_status(c->lp);
    if (subproc_write(fd, hdr, sizeof hdr))
        return 1;
    if (hdr[1] != GLP_OPT && hdr[1] != GLP_FEAS)
        return 0;
    int m = c->m, T = c->T;
    unsigned char *r = xmalloc((size_t)T * m + 1);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < m; i++)
            r[t * m + i] = glp_mip_col_val(c->lp, RCOL(t, i)) > 0.5;
    int bad = subproc_write(fd, r, (size_t)T * m);
    free(r);
    return bad;
}

/* A feasible starting point from the greedy solver: its schedule as R and
 * its spec hold intervals as H, if it fits the budget within T steps. */
static double *warm_start(const Graph *g, const Checkmate *st, int64_t budget, int T, Plan *keep)
{
    const SolverClass *gc = solver_find("greedy");
    if (!gc)
        return NULL;
    Err e;
    Solver *s = solver_new(gc, g, NULL, &e);
    if (!s)
        return NULL;
    Plan pl;
    plan_init(&pl);
    double *x = NULL;
    Sim sim;
    int m = st->m;
    if (solver_plan(s, budget, NULL, &pl, NULL, &e) == ERR_OK && pl.T <= T &&
        sim_run(g, pl.steps, pl.T, &sim, &e) == ERR_OK) {
        x = xcalloc((size_t)2 * T * m + 1, sizeof *x);
        for (int t = 0; t < pl.T; t++) {
            int i = st->pos[pl.steps[t]];
            x[RCOL(t, i)] = 1;
            int end = sim.held_until[t] == pl.T - 1 ? T - 1 : sim.held_until[t];
            for (int q = t; q <= end; q++)
                x[HCOL(q, i)] = 1;
        }
        sim_done(&sim);
        plan_copy(keep, &pl);
    }
    plan_done(&pl);
    solver_free(s);
    return x;
}

/* The model of the file comment for T steps at budget. */
static glp_prob *build_model(const Graph *g, const Checkmate *st, int64_t budget, int T)
{
    int m = st->m;
    int64_t q = cm_size_gcd(g, st->idx, m, 0);
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, 2 * T * m);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < m; i++) {
            glp_set_col_kind(lp, RCOL(t, i), GLP_BV);
            glp_set_col_kind(lp, HCOL(t, i), GLP_BV);
            glp_set_obj_coef(lp, RCOL(t, i), g->nodes[st->idx[i]].cost);
        }
    Triplets tr = {0};
    for (int t = 0; t < T; t++) {
        int r = new_row(lp, GLP_UP, 0, 1); /* one node per step */
        for (int i = 0; i < m; i++)
            trip_add(&tr, r, RCOL(t, i), 1);
        if (t + 1 < T) { /* idle steps only at the end */
            r = new_row(lp, GLP_UP, 0, 0);
            for (int i = 0; i < m; i++) {
                trip_add(&tr, r, RCOL(t + 1, i), 1);
                trip_add(&tr, r, RCOL(t, i), -1);
            }
        }
        /* the budget rounded down to a multiple of the sizes' gcd q: a
         * plan over it is then a whole q over, more than GLPK's tolerance
         * wherever q is a few bytes or more (model.h: the same for CBC) */
        double cap = budget < g->input_bytes ? -1 : (double)((budget - g->input_bytes) / q * q);
        r = new_row(lp, GLP_UP, 0, cap); /* memory */
        for (int i = 0; i < m; i++) {
            const Node *nd = &g->nodes[st->idx[i]];
            if (nd->size)
                trip_add(&tr, r, HCOL(t, i), (double)nd->size);
            if (nd->workspace)
                trip_add(&tr, r, RCOL(t, i), (double)nd->workspace);
        }
        for (int i = 0; i < m; i++) {
            int v = st->idx[i];
            r = new_row(lp, GLP_UP, 0, 0); /* H[t] <= H[t-1] + R[t] */
            trip_add(&tr, r, HCOL(t, i), 1);
            trip_add(&tr, r, RCOL(t, i), -1);
            if (t > 0)
                trip_add(&tr, r, HCOL(t - 1, i), -1);
            r = new_row(lp, GLP_UP, 0, 0); /* R[t] <= H[t] */
            trip_add(&tr, r, RCOL(t, i), 1);
            trip_add(&tr, r, HCOL(t, i), -1);
            for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
                int u = st->pos[g->in_idx[k]];
                if (u < 0)
                    continue;
                r = new_row(lp, GLP_UP, 0, 0); /* R[t][v] <= H[t][u] */
                trip_add(&tr, r, RCOL(t, i), 1);
                trip_add(&tr, r, HCOL(t, u), -1);
            }
        }
    }
    for (int i = 0; i < m; i++)
        if (g->is_output[st->idx[i]])
            glp_set_col_bnds(lp, HCOL(T - 1, i), GLP_FX, 1, 1);
    glp_load_matrix(lp, tr.n, tr.ia, tr.ja, tr.ar);
    free(tr.ia);
    free(tr.ja);
    free(tr.ar);
    return lp;
}

static int checkmate_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    const Graph *g = s->g;
    Checkmate *st = s->state;
    int m = st->m;
    double tl, t0 = clock_now();
    if (solver_opt_double(s, "time_limit", &tl, e))
        return e->code;
    const char *steps = solver_opt_str(s, "steps");
    int T = m <= 40 ? 2 * m : m + m / 2;
    if (strcmp(steps, "auto") != 0) {
        long long x;
        if (solver_opt_int(s, "steps", &x, e))
            return e->code;
        if (x < m || x > 100000)
            return err_set(e, ERR_USAGE, "checkmate-free: steps=%lld must be between %d and 100000", x, m);
        T = (int)x;
    }
    if (budget == PLAN_NO_BUDGET)
        budget = s->base_peak;
    if (m == 0) {   /* only inputs: the empty schedule is the optimum */
        out->optimal = 1;
        out->bound = 0;
        snprintf(st->status, sizeof st->status, "optimal (nothing runs)");
        return ERR_OK;
    }
    glp_term_out(GLP_OFF);
    glp_prob *lp = build_model(g, st, budget, T);

    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    /* cuts close the LP gap of the hold/compute coupling much faster */
    parm.gmi_cuts = GLP_ON;
    parm.mir_cuts = GLP_ON;
    parm.cov_cuts = GLP_ON;
    parm.clq_cuts = GLP_ON;
    parm.fp_heur = GLP_ON;
    double engine, backstop;
    subproc_limits(t0, tl, &engine, &backstop);
    parm.tm_lim = engine < 2e6 ? (int)(engine * 1000) + 1 : 2000000000;
    Plan start;
    plan_init(&start);
    SearchCtx ctx = {p, warm_start(g, st, budget, T, &start), 0, lp, &parm, m, T};
    parm.cb_func = cb;
    parm.cb_info = &ctx;
    /* GLPK runs in a child process: its time limit does not cover every
     * phase (a 40-node chain took minutes past it), and only a process
     * can be stopped at once when the caller cancels */
    char *buf;
    size_t len;
    Err se;
    int sr = subproc_run(child_intopt, &ctx, p, backstop, &buf, &len, &se);
    free(ctx.start);
    int32_t hdr[2] = {-1, -1};   /* glp_intopt's return, glp_mip_status */
    if (len >= sizeof hdr)
        memcpy(hdr, buf, sizeof hdr);
    int ret = hdr[0], status = hdr[1];
    int have = (status == GLP_OPT || status == GLP_FEAS) && len >= sizeof hdr + (size_t)T * m;
    int rc = ERR_OK;
    if (sr == ERR_CANCELLED) {
        rc = err_set(e, ERR_CANCELLED, "checkmate-free: cancelled");
    } else if (have) {
        const unsigned char *r = (const unsigned char *)buf + sizeof hdr;
        for (int t = 0; t < T; t++)
            for (int i = 0; i < m; i++)
                if (r[t * m + i])
                    plan_push(out, st->idx[i]);
        snprintf(st->status, sizeof st->status, "%s",
                 status == GLP_OPT && ret == 0 ? "optimal"
                 : ret == GLP_ETMLIM || sr == ERR_LIMIT ? "best found (time limit)"
                                                        : "best found (stopped)");
        if (status == GLP_OPT && ret == 0) {
            out->optimal = 1;
            out->bound = 0;   /* filled below from the plan's own cost */
        }
    } else if (start.T) {
        /* the search found nothing in time: the greedy start is still a
         * valid schedule within the budget, and says so */
        for (int t = 0; t < start.T; t++)
            plan_push(out, start.steps[t]);
        snprintf(st->status, sizeof st->status, "best found (greedy start; time limit)");
    } else if (sr == ERR_OK && (ret == GLP_ENOPFS || status == GLP_NOFEAS || (ret == 0 && status == GLP_UNDEF))) {
        snprintf(st->status, sizeof st->status, "infeasible");
        rc = err_set(e, ERR_OVER_BUDGET,
                     "checkmate-free: no schedule of at most %d steps fits budget %lld (raise steps= if "
                     "more recomputation could help)",
                     T, (long long)budget);
    } else {
        snprintf(st->status, sizeof st->status, "no solution found in time");
        rc = err_set(e, ERR_LIMIT, "checkmate-free: no schedule found within time_limit=%g s", tl);
    }
    free(buf);
    if (out->optimal) {
        double c = 0;
        for (int t = 0; t < out->T; t++)
            c += g->nodes[out->steps[t]].cost;
        out->bound = c;
    }
    glp_delete_prob(lp);
    /* GLPK keeps a per-thread environment (buffers, the library's own
     * allocator) until told otherwise; a solve in the explorer's worker
     * thread would otherwise leave it behind when the thread ends. */
    glp_free_env();
    plan_done(&start);
    return rc;
}

static void checkmate_describe(const Solver *s, Overlay *out)
{
    const Checkmate *st = s->state;
    overlay_set_titlef(out, "checkmate MILP: %s", st->status);
}

static void checkmate_release(Solver *s)
{
    Checkmate *st = s->state;
    free(st->idx);
    free(st->pos);
}

const SolverClass solver_checkmate_free = {
    .name = "checkmate-free",
    .title = "exact MILP (Checkmate, one step per stage, GLPK): least cost under the budget",
    .caps = SOLVER_EXACT,
    .optimal_among = "among plans of at most its steps= steps",
    .params = params,
    .state_size = sizeof(Checkmate),
    .prepare = checkmate_prepare,
    .solve = checkmate_solve,
    .describe = checkmate_describe,
    .release = checkmate_release,
};
