/* milp.c — `checkmate`: Checkmate's published MILP (Jain et al. 2020) on a
 * fixed topological order (model.h), solved by CBC.
 *
 * The order is the graph's own (order=graph) or that of the best plan the
 * portfolio finds (order=best). The portfolio's cheapest plan that fits the
 * model's stages is CBC's starting solution, so a time limit still returns
 * at least that. CBC runs in a child process (src/plan/subproc.h): CBC cannot
 * be interrupted once it solves, and the explorer must stop a solve within
 * half a second when the budget moves or the user quits. The plan says
 * whether CBC proved it optimal for that order, or how far its bound is.
 */
#include <Cbc_C_Interface.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/model.h"
#include "src/base/clock.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/plan/subproc.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_NUM("time_limit", "60", 0.001, 1e7, NULL, "seconds for CBC's search; past it the best schedule found is returned"),
    OPT_P_CHOICE("order", "graph", "graph|best", "graph: the graph's own order (Checkmate's); best: the order of the portfolio's best plan"),
    OPT_P_CHOICE("warm", "auto", "auto|greedy|none", "start from: auto (the portfolio's best plan that fits the order), greedy, none"),
    OPT_P_NUM("warm_time", "auto", 0.001, 1e7, "auto", "seconds for the warm start's portfolio (auto: a quarter of time_limit, at most 10)"),
    OPT_P_INT("max_nodes", "200", 0, 1e9, NULL, "refuse graphs with more non-input nodes (the model grows with the square)"),
    OPT_P_END,
};

typedef struct {
    char status[160];
} Milp;

static int milp_prepare(Solver *s, Err *e)
{
    long long maxn;
    int rc;
    if ((rc = solver_opt_int(s, "max_nodes", &maxn, e)))
        return rc;
    const char *o = solver_opt_str(s, "order"), *w = solver_opt_str(s, "warm");
    if (strcmp(o, "graph") && strcmp(o, "best"))
        return err_set(e, ERR_USAGE, "checkmate: order=%s: expected graph or best", o);
    if (strcmp(w, "auto") && strcmp(w, "greedy") && strcmp(w, "none"))
        return err_set(e, ERR_USAGE, "checkmate: warm=%s: expected auto, greedy or none", w);
    int m = 0;
    for (int v = 0; v < s->g->n; v++)
        m += s->g->nodes[v].phase != PHASE_INPUT;
    if (m > maxn)
        return err_set(e, ERR_LIMIT,
                       "checkmate: %d nodes exceed max_nodes=%lld; the MILP grows with the square of "
                       "the nodes (raise max_nodes, or use checkmate-lp, fastsa or auto)",
                       m, maxn);
    Milp *st = xcalloc(1, sizeof *st);
    snprintf(st->status, sizeof st->status, "not solved yet");
    s->state = st;
    return ERR_OK;
}

/* The warm start's solver: its pool of plans (auto) or its one plan. */
static Solver *warm_solver(Solver *s, int64_t budget, double seconds, Progress *p, Plan *best)
{
    const char *w = solver_opt_str(s, "warm");
    if (strcmp(w, "none") == 0)
        return NULL;
    SolverOpts o;
    solver_opts_init(&o);
    Err e;
    char kv[64];
    if (strcmp(w, "auto") == 0) {
        snprintf(kv, sizeof kv, "time_limit=%g", seconds);
        solver_opts_add(&o, kv, &e);
        /* the start must keep the user's pins and forces too */
        for (int i = 0; i < s->opts.n; i++)
            if (strcmp(s->opts.key[i], "pin") == 0 || strcmp(s->opts.key[i], "force") == 0) {
                char rk[2048];
                snprintf(rk, sizeof rk, "%s=%s", s->opts.key[i], s->opts.val[i]);
                solver_opts_add(&o, rk, &e);
            }
    }
    Solver *ws = solver_new_cancellable(solver_find(w), s->g, &o, p, &e);
    solver_opts_done(&o);
    if (!ws)
        return NULL;
    int rc = solver_plan(ws, budget, NULL, best, p, &e);
    if (rc != ERR_OK && rc != ERR_OVER_BUDGET) {
        solver_free(ws);
        return NULL;
    }
    return ws;
}

/* Among the warm solver's plans (its pool, else its answer), the cheapest
 * within the budget that the model's stages can express: its assignment. */
static double *warm_start(const CmModel *M, const Solver *ws, const Plan *best, int64_t budget,
                          double *cost)
{
    double *x = NULL, *y;
    *cost = -1;
    for (int i = -1; ws && i < ws->cands.n; i++) {
        const int *steps = i < 0 ? best->steps : ws->cands.c[i].steps;
        int T = i < 0 ? best->T : ws->cands.c[i].T;
        int64_t pk = i < 0 ? best->peak : ws->cands.c[i].peak;
        double c = i < 0 ? best->cost : ws->cands.c[i].cost;
        if (!steps || pk > budget || (x && c >= *cost) || !cm_start_from(M, steps, T, &y))
            continue;
        /* the model's own accounting must fit too */
        int ok = 1;
        for (int t = 0; t < M->n && ok; t++)
            for (int k = 0; k <= t && ok; k++)
                ok = y[cm_U(M, t, k)] / M->mscale +
                         y[cm_R(M, t, k)] * (double)M->g->nodes[M->ord[k]].workspace <=
                     (double)budget * (1 + 1e-9);
        if (!ok) {
            free(y);
            continue;
        }
        free(x);
        x = y;
        *cost = c;
    }
    return x;
}

typedef struct {
    Cbc_Model *cbc;
    int64_t ncols;
} Child;

/* In the child: solve, then write status, objective, bound, solution. */
static int child_solve(void *ctx, int fd)
{
    Child *c = ctx;
    Cbc_solve(c->cbc);
    int64_t st = Cbc_isProvenOptimal(c->cbc)      ? 0
                 : Cbc_isProvenInfeasible(c->cbc) ? 2
                 : Cbc_bestSolution(c->cbc)       ? 1
                                                  : 3;
    double hdr[2] = {Cbc_getObjValue(c->cbc), Cbc_getBestPossibleObjValue(c->cbc)};
    if (subproc_write(fd, &st, sizeof st) || subproc_write(fd, hdr, sizeof hdr))
        return 1;
    if (st <= 1) {
        const double *x = Cbc_bestSolution(c->cbc);
        if (!x)
            x = Cbc_getColSolution(c->cbc);
        if (subproc_write(fd, x, (size_t)c->ncols * sizeof *x))
            return 1;
    }
    return 0;
}

static Cbc_Model *load(const CmModel *M, const double *start, double seconds)
{
    Cbc_Model *m = Cbc_newModel();
    int *cs = xmallocarray((size_t)M->ncols + 1, sizeof *cs);
    for (int64_t c = 0; c <= M->ncols; c++)
        cs[c] = (int)M->cstart[c];
    Cbc_loadProblem(m, (int)M->ncols, (int)M->nrows, (const CoinBigIndex *)cs, M->rind, M->val, M->clb,
                    M->cub, M->obj, M->rlb, M->rub);
    free(cs);
    for (int64_t c = 0; c < M->ncols; c++)
        if (M->is_int[c])
            Cbc_setInteger(m, (int)c);
    if (start) {
        /* every integer column, zeros too: CBC leaves the unnamed ones free,
         * the relaxation makes them fractional and the start is lost */
        int *idx = xmallocarray((size_t)M->ubase + 1, sizeof *idx);
        double *v = xmallocarray((size_t)M->ubase + 1, sizeof *v);
        for (int64_t c = 0; c < M->ubase; c++) {
            idx[c] = (int)c;
            v[c] = start[c] > 0.5 ? 1 : 0;
        }
        Cbc_setMIPStartI(m, (int)M->ubase, idx, v);
        free(idx);
        free(v);
    }
    /* REMAT_CBC_LOG=1 shows CBC's own log (on standard output) */
    Cbc_setLogLevel(m, 0);
    if (getenv("REMAT_CBC_LOG"))
        Cbc_setParameter(m, "log", "1");
    /* within 1e-9 of the bound counts as proven: the last digits of a
     * 1e13 cost are noise in the engine's arithmetic anyway */
    Cbc_setAllowableFractionGap(m, 1e-9);
    Cbc_setMaximumSeconds(m, seconds);
    /* the limit is the user's wall clock, not CBC's own CPU time: on a
     * busy machine the two differ by the share of a core it gets */
    Cbc_setParameter(m, "timeMode", "elapsed");
    return m;
}

/* pin=: node i runs only in its own stage; force=: in two stages at least. */
static void apply_rules(Cbc_Model *m, const CmModel *M, const unsigned char *rule)
{
    if (!rule)
        return;
    int *cols = xmallocarray((size_t)M->n + 1, sizeof *cols);
    double *ones = xmallocarray((size_t)M->n + 1, sizeof *ones);
    for (int i = 0; i < M->n; i++) {
        int v = M->ord[i], nz = 0;
        for (int t = i; t < M->n; t++) {
            if (rule[v] == NODE_PIN && t > i)
                Cbc_setColUpper(m, (int)cm_R(M, t, i), 0);
            cols[nz] = (int)cm_R(M, t, i);
            ones[nz++] = 1;
        }
        if (rule[v] == NODE_FORCE)
            Cbc_addRow(m, "force", nz, cols, ones, 'G', 2);
    }
    free(cols);
    free(ones);
}

static int milp_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    Milp *st = s->state;
    const Graph *g = s->g;
    double tl, t0 = clock_now(), wt;
    int rc;
    if ((rc = solver_opt_double(s, "time_limit", &tl, e)))
        return rc;
    if (strcmp(solver_opt_str(s, "warm_time"), "auto") == 0)
        wt = tl / 4 < 10 ? tl / 4 : 10;
    else if ((rc = solver_opt_double(s, "warm_time", &wt, e)))
        return rc;
    if (budget == PLAN_NO_BUDGET)
        sim_baseline(g, &budget, &(double){0});
    Plan best;
    plan_init(&best);
    Solver *ws = warm_solver(s, budget, wt, p, &best);
    if (progress_cancelled(p)) {
        solver_free(ws);
        plan_done(&best);
        return err_set(e, ERR_CANCELLED, "checkmate: cancelled");
    }
    int n, *order;
    if (strcmp(solver_opt_str(s, "order"), "best") == 0 && best.T > 0)
        order = cm_order_of(g, best.steps, best.T, &n);
    else
        order = sim_baseline_order(g, &n);
    if (!order)
        order = sim_baseline_order(g, &n);
    if (n == 0) {   /* only inputs: nothing runs */
        free(order);
        solver_free(ws);
        plan_done(&best);
        out->bound = 0;
        out->optimal = 1;
        return ERR_OK;
    }
    CmModel M;
    if ((rc = cm_build(&M, g, order, n, budget, 50000000, e))) {
        free(order);
        solver_free(ws);
        plan_done(&best);
        cm_free(&M);
        return rc;
    }
    free(order);
    double wcost;
    double *start = warm_start(&M, ws, &best, budget, &wcost);
    solver_free(ws);
    plan_done(&best);
    double engine, backstop;
    subproc_limits(t0, tl, &engine, &backstop);
    Child c = {load(&M, start, engine), M.ncols};
    apply_rules(c.cbc, &M, s->rule);
    char *buf;
    size_t len;
    Err se;
    /* CBC mostly keeps its limit; the child is stopped a little after it,
     * and then the warm start stands */
    int sr = subproc_run(child_solve, &c, p, backstop, &buf, &len, &se);
    Cbc_deleteModel(c.cbc);
    int64_t cst = 3;
    double hdr[2] = {0, 0};
    if (len >= sizeof cst + sizeof hdr) {
        memcpy(&cst, buf, sizeof cst);
        memcpy(hdr, buf + sizeof cst, sizeof hdr);
    }
    int have = cst <= 1 && len >= sizeof cst + sizeof hdr + (size_t)M.ncols * sizeof(double);
    rc = ERR_OK;
    if (sr == ERR_CANCELLED) {
        rc = err_set(e, ERR_CANCELLED, "checkmate: cancelled");
    } else if (have) {
        cm_extract(&M, (const double *)(buf + sizeof cst + sizeof hdr), out);
        if (start && cst != 0) {
            /* CBC stopped on its limit: its incumbent can be worse than the
             * start it was given (when it could not use it) */
            Plan w;
            plan_init(&w);
            cm_extract(&M, start, &w);
            double cw = 0, co = 0;
            for (int t = 0; t < w.T; t++)
                cw += g->nodes[w.steps[t]].cost;
            for (int t = 0; t < out->T; t++)
                co += g->nodes[out->steps[t]].cost;
            if (cw < co) {
                plan_reset(out);
                for (int t = 0; t < w.T; t++)
                    plan_push(out, w.steps[t]);
            }
            plan_done(&w);
        }
        double lb = hdr[1] < hdr[0] ? hdr[1] : hdr[0];
        out->bound = lb / M.cscale;
        out->optimal = cst == 0;
        if (out->optimal) {
            /* proven: the plan's cost is the bound (CBC's own bound can sit
             * below it when it knows the cost is integral) */
            out->bound = 0;
            for (int t = 0; t < out->T; t++)
                out->bound += g->nodes[out->steps[t]].cost;
        }
        if (cst == 0)
            snprintf(st->status, sizeof st->status, "optimal for the %s order (within 1e-9 of CBC's bound)",
                     solver_opt_str(s, "order"));
        else
            snprintf(st->status, sizeof st->status, "best found (time limit), gap %.3g %% to CBC's bound",
                     hdr[0] > 0 ? 100 * (hdr[0] - lb) / hdr[0] : 0.0);
    } else if (start) {
        /* CBC found nothing better in time: the warm start stands */
        double *x = start;
        cm_extract(&M, x, out);
        snprintf(st->status, sizeof st->status, "warm start only (CBC found nothing better in time)");
    } else if (cst == 2) {
        snprintf(st->status, sizeof st->status, "infeasible");
        rc = err_set(e, ERR_OVER_BUDGET,
                     "checkmate: no schedule in the %s order fits budget %lld (CBC proved it)",
                     solver_opt_str(s, "order"), (long long)budget);
    } else {
        snprintf(st->status, sizeof st->status, "no solution in time");
        rc = err_set(e, ERR_LIMIT, "checkmate: no schedule found within time_limit=%g s%s", tl,
                     sr == ERR_IO ? " (the CBC process failed)" : "");
    }
    free(buf);
    free(start);
    cm_free(&M);
    return rc;
}

static int milp_describe(const Solver *s, const Plan *pl, Overlay *out, Err *e)
{
    (void)pl;
    (void)e;
    const Milp *st = s->state;
    char title[200];
    snprintf(title, sizeof title, "checkmate MILP (CBC): %s", st->status);
    overlay_set_title(out, title);
    return ERR_OK;
}

static void milp_release(Solver *s)
{
    free(s->state);
}

const SolverClass solver_checkmate = {
    .name = "checkmate",
    .title = "Checkmate's MILP on a fixed order (CBC): least cost under the budget, proven optimal for that order",
    .caps = SOLVER_EXACT | SOLVER_CONSTRAINTS,
    .params = params,
    .prepare = milp_prepare,
    .solve = milp_solve,
    .describe = milp_describe,
    .release = milp_release,
};
