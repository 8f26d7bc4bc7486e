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
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/engine.h"
#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/model.h"
#include "src/base/clock.h"
#include "src/base/strbuf.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/plan/subproc.h"
#include "src/plan/tidy.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_NUM("time_limit", "60", 0.001, 1e7, NULL, "seconds for CBC's search; past it the best schedule found is returned"),
    OPT_P_CHOICE("order", "both", "both|graph|best", "both: the best plan's order, then the graph's with the time left, the cheaper plan wins; graph: the graph's own order (Checkmate's); best: the order of the portfolio's best plan"),
    OPT_P_CHOICE("warm", "auto", "auto|greedy|none", "start from: auto (the portfolio's best plan that fits the order), greedy, none"),
    OPT_P_NUM("warm_time", "auto", 0.001, 1e7, "auto", "seconds for the warm start's portfolio (auto: a quarter of time_limit, at most 10 and 0.05 per node)"),
    OPT_P_CHOICE("search", "auto", "auto|off", "auto: an order of at most 64 nodes is first solved exactly by a search over what is held (plans in any order within a stage too), CBC taking over past a quarter of the time; off: CBC alone"),
    OPT_P_INT("max_nodes", "200", 0, 1e9, NULL, "refuse graphs with more non-input nodes (the model grows with the square)"),
    OPT_P_END,
};

typedef struct {
    char status[300];
} Milp;

/* The order search's share of an order's time, and its most states (about
 * 60 bytes each with the table and queue) before CBC takes over: the
 * 20-node training graphs need at most 11 thousand (400 thousand to prove
 * that nothing fits), and past a million it runs for seconds (VGG19's
 * training graph, 51 nodes, at 90 %: 18 million states in 20 s) */
#define SEARCH_SHARE 0.25
#define SEARCH_MAX_STATES 1000000

static int milp_prepare(Solver *s, Err *e)
{
    int rc = cm_refuse_large(s,
                             "the MILP grows with the square of the nodes (raise max_nodes, or use "
                             "checkmate-lp, fastsa or auto)",
                             e);
    if (rc)
        return rc;
    Milp *st = s->state;
    snprintf(st->status, sizeof st->status, "not solved yet");
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
        solver_opts_add(&o, "exact=off", &e);   /* it would run this solver again */
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
    for (int i = -1; i < (ws ? ws->cands.n : 0); i++) {
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
    /* within 1e-9 of the bound counts as proven, and a better plan must be
     * better by 1e-9 of the baseline cost (CBC's own increment, 1e-5 of
     * the dearest node, called plans a few units dearer optimal) */
    Cbc_setAllowableFractionGap(m, 1e-9);
    double base = 0;
    for (int t = 0; t < M->n; t++)
        base += M->obj[cm_R(M, t, t)];
    char num[32];
    snprintf(num, sizeof num, "%.3g", 1e-9 * base > 1e-12 ? 1e-9 * base : 1e-12);
    Cbc_setParameter(m, "increment", num);
    /* Memory rows are exact only when the engine misses them by less than
     * a quarter of the sizes' gcd (model.h), so the feasibility tolerance
     * is set from it; and the model is scaled already (coefficients near
     * 1), so CLP's own scaling, which stretches that tolerance again, is
     * off. Measured with CLP's scaling and its default 1e-7: tiny graphs'
     * "optimal" plans were a byte over the budget, and on fcn_8_vgg at 70 %
     * of its graph order CBC cut off a +0.89 % plan 7 MB inside the budget,
     * stopped at +1.60 % after 60 s and put its bound at +0.96 %. With
     * either change alone it proves +0.89 % (9-15 s); both are kept. */
    Cbc_setParameter(m, "scaling", "off");
    if (M->tolerance < 1e-7) {
        snprintf(num, sizeof num, "%.3g", M->tolerance);
        Cbc_setParameter(m, "primalTolerance", num);
    }
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

/* The cost of a plan's steps (before it is simulated). */
static double plan_steps_cost(const Graph *g, const Plan *pl)
{
    double c = 0;
    for (int t = 0; t < pl->T; t++)
        c += g->nodes[pl->steps[t]].cost;
    return c;
}

/* What one order's model gave. */
typedef struct {
    double bound;       /* CBC's lower bound on that order's optimum (INFINITY: none fits) */
    int optimal;        /* the plan is that order's optimum */
    char status[120];
} OrderResult;

/* An order proven to hold nothing cheaper than the cutoff (the other
 * order's plan): the cutoff is its bound, and its answer the start, if
 * any. `who` says who proved it. */
static int none_cheaper(const CmModel *M, const double *start, double cutoff, const char *who, Plan *out,
                        OrderResult *res, Err *e)
{
    res->bound = cutoff;
    snprintf(res->status, sizeof res->status, "nothing cheaper than the other order's plan (%s)", who);
    if (start) {
        cm_extract(M, start, out);
        return ERR_OK;
    }
    return err_set(e, ERR_OVER_BUDGET, "checkmate: no schedule in the order is cheaper than %.17g", cutoff);
}

/* An order proven to have no plan within the budget. */
static int none_fits(int64_t budget, const char *who, OrderResult *res, Err *e)
{
    res->bound = INFINITY;
    snprintf(res->status, sizeof res->status, "infeasible (%s)", who);
    return err_set(e, ERR_OVER_BUDGET, "checkmate: no schedule in the order fits budget %lld (%s)",
                   (long long)budget, who);
}

/* Checkmate's model on one order: its best plan into *out (when rc is
 * ERR_OK), its bound, proof and status. The solve may use until t0 + limit
 * (subproc_limits). A finite cutoff (graph cost units: a plan already in
 * hand, from another order) makes CBC look only for cheaper plans; when it
 * proves there are none, the cutoff is this order's bound. */
static int solve_order(Solver *s, int64_t budget, const int *order, int n, const Solver *ws,
                       const Plan *best, double cutoff, double t0, double limit, Progress *p,
                       Plan *out, OrderResult *res, Err *e)
{
    const Graph *g = s->g;
    res->bound = 0;
    res->optimal = 0;
    snprintf(res->status, sizeof res->status, "not solved");
    CmModel M;
    int rc = cm_build(&M, g, order, n, budget, 50000000, e);
    if (rc) {
        snprintf(res->status, sizeof res->status, "model too large");
        cm_free(&M);
        return rc;
    }
    double wcost;
    double *start = warm_start(&M, ws, best, budget, &wcost);
    double engine, backstop;
    subproc_limits(t0, limit, &engine, &backstop);
    /* the cover bound (cover.c) holds for every plan in the order, so for
     * the model's: it floors CBC's bound, and a start that meets it needs
     * no search (pin=/force= aside: the start may not keep them). As a row
     * "cost >= bound" it slowed CBC's proof on fcn_8_vgg at 70 % from 13 s
     * to past 50 s, so CBC does not see it */
    double cover;
    Err ce;
    if (cover_bound(g, order, n, budget, fmin(1.0, 0.1 * engine), p, &cover, NULL, &ce) != ERR_OK)
        cover = 0;
    if (start && !s->rule && cover > 0 && wcost <= cover * (1 + 1e-9)) {
        cm_extract(&M, start, out);
        res->bound = cover;
        res->optimal = 1;
        snprintf(res->status, sizeof res->status, "optimal (the start meets the cover bound)");
        free(start);
        cm_free(&M);
        return ERR_OK;
    }
    /* small orders: the order search (order_search.c) proves in
     * milliseconds what CBC proves by enumeration (a 20-node transformer
     * at 58 %: 20 s); it prunes against the start's cost and hands back
     * to CBC past its share of the time or its states. The cover's test
     * above comes first: it is cheaper where it settles the order */
    if (!s->rule && n <= ORDER_SEARCH_MAX && strcmp(solver_opt_str(s, "search"), "auto") == 0) {
        double scut = fmin(cutoff, start ? wcost : INFINITY), sc;
        Err se;
        int sr = order_search(g, order, n, budget, scut, SEARCH_SHARE * engine, SEARCH_MAX_STATES, p, out,
                              &sc, &se), done = 1;
        rc = ERR_OK;
        if (sr == ERR_OK) {
            res->bound = sc;
            res->optimal = 1;
            snprintf(res->status, sizeof res->status, "optimal (order search)");
        } else if (sr == ERR_CANCELLED) {
            rc = err_set(e, ERR_CANCELLED, "checkmate: cancelled");
        } else if (sr == ERR_OVER_BUDGET && isfinite(cutoff) && cutoff <= scut) {
            rc = none_cheaper(&M, start, cutoff, "the order search proved it", out, res, e);
        } else if (sr == ERR_OVER_BUDGET && !start) {
            rc = none_fits(budget, "the order search proved it", res, e);
        } else {
            done = 0;   /* past its limits: CBC goes on */
        }
        if (done) {
            free(start);
            cm_free(&M);
            return rc;
        }
    }
    Cbc_Model *cbc = load(&M, start, engine);
    apply_rules(cbc, &M, s->rule);
    if (isfinite(cutoff))
        Cbc_setCutoff(cbc, cutoff * M.cscale);
    Err se;
    EngineAnswer a;
    /* CBC mostly keeps its limit; the child is stopped a little after it,
     * and then the warm start stands */
    int sr = engine_solve(cbc, NULL, M.ncols, p, backstop, &a, &se);
    Cbc_deleteModel(cbc);
    int cst = a.status;
    rc = ERR_OK;
    if (sr == ERR_CANCELLED) {
        rc = err_set(e, ERR_CANCELLED, "checkmate: cancelled");
    } else if (a.x) {
        cm_extract(&M, a.x, out);
        if (start && cst != ENGINE_OPTIMAL) {
            /* CBC stopped on its limit: its incumbent can be worse than the
             * start it was given (when it could not use it) */
            Plan w;
            plan_init(&w);
            cm_extract(&M, start, &w);
            if (plan_steps_cost(g, &w) < plan_steps_cost(g, out))
                plan_swap_steps(out, &w);
            plan_done(&w);
        }
        double lb = fmin(a.best_possible, a.obj);
        res->bound = fmax(lb / M.cscale, cover);
        res->optimal = cst == ENGINE_OPTIMAL;
        /* proven: the plan's cost is the bound (CBC's own bound can sit
         * below it when it knows the cost is integral) */
        if (res->optimal)
            res->bound = plan_steps_cost(g, out);
        if (res->optimal)
            snprintf(res->status, sizeof res->status, "optimal (within 1e-9 of CBC's bound)");
        else
            snprintf(res->status, sizeof res->status, "best found (time limit), gap %.3g %% to CBC's bound",
                     a.obj > 0 ? 100 * (a.obj - lb) / a.obj : 0.0);
    } else if (cst == ENGINE_INFEASIBLE && isfinite(cutoff)) {
        /* the order itself may have no plan within the budget at all */
        rc = none_cheaper(&M, start, cutoff, "CBC proved it", out, res, e);
    } else if (start) {
        /* CBC found nothing better in time: the warm start stands */
        cm_extract(&M, start, out);
        snprintf(res->status, sizeof res->status, "warm start only (CBC found nothing better in time)");
    } else if (cst == ENGINE_INFEASIBLE) {
        rc = none_fits(budget, "CBC proved it", res, e);
    } else {
        snprintf(res->status, sizeof res->status, "no solution in time");
        rc = err_set(e, ERR_LIMIT, "checkmate: no schedule found within time_limit=%g s%s", limit,
                     sr == ERR_IO ? " (the CBC process failed)" : "");
    }
    engine_answer_done(&a);
    free(start);
    cm_free(&M);
    return rc;
}

/* solve_order with the plan simulated by the spec (its peak and cost set;
 * the baseline is left to solver_plan) and checked against the budget. CBC's
 * feasibility and integrality tolerances (about 1e-7 of the budget, 1e-6 of
 * a binary) can let a schedule a few bytes over the budget through; then
 * the model's budget is lowered by the overshoot and the order solved
 * again with the time left, up to three times. */
static int solve_order_within(Solver *s, int64_t budget, const int *order, int n, const Solver *ws,
                              const Plan *best, double cutoff, double t0, double limit, Progress *p,
                              Plan *out, OrderResult *res, Err *e)
{
    int64_t mb = budget;
    double bound = INFINITY;    /* the bound at the real budget (a lowered one raises it) */
    for (int round = 0;; round++) {
        plan_reset(out);
        int rc = solve_order(s, mb, order, n, ws, best, cutoff, t0, limit, p, out, res, e);
        if (round == 0)
            bound = res->bound;
        else if (res->bound > bound)
            res->bound = bound;
        if (rc != ERR_OK && (round == 0 || rc == ERR_CANCELLED))
            return rc;
        if (rc != ERR_OK) {
            snprintf(res->status, sizeof res->status, "plan over the budget by CBC's tolerance");
            return err_set(e, ERR_LIMIT, "checkmate: CBC's plans were over the budget (its tolerances) and "
                           "none within it was found in time");
        }
        Err se;
        int valid = plan_evaluate_with(out, s->g, 0, 0, NULL, &se) == ERR_OK;
        int64_t pk = out->peak;
        if (valid && pk <= budget) {
            if (round > 0) {
                double c = out->cost;
                res->bound = bound < c ? bound : c;
                res->optimal = c <= bound * (1 + 1e-9);
                snprintf(res->status, sizeof res->status, "%s, budget lowered by CBC's tolerance",
                         res->optimal ? "optimal" : "best found");
            }
            return ERR_OK;
        }
        if (!valid) {
            snprintf(res->status, sizeof res->status, "invalid schedule");
            res->optimal = 0;
            return err_set(e, ERR_INVALID, "checkmate: the model's solution is not a valid schedule");
        }
        if (round == 2 || clock_now() >= t0 + limit || pk - budget >= mb) {
            snprintf(res->status, sizeof res->status, "plan over the budget by CBC's tolerance");
            res->optimal = 0;
            return err_set(e, ERR_LIMIT, "checkmate: CBC's plan was %lld bytes over the budget (its "
                           "tolerances) and no plan within it was found in time", (long long)(pk - budget));
        }
        mb -= pk - budget;
    }
}

static int same_order(const int *a, const int *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* A solve; the warm start is `given` when set (checkmate_solve_from), else
 * the warm= solver's. */
static int milp_run(Solver *s, int64_t budget, const Plan *given, Plan *out, Progress *p, Err *e)
{
    Milp *st = s->state;
    const Graph *g = s->g;
    double tl, t0 = clock_now(), wt;
    int rc;
    if ((rc = solver_opt_double(s, "time_limit", &tl, e)))
        return rc;
    if (strcmp(solver_opt_str(s, "warm_time"), "auto") == 0) {
        /* the portfolio's plans on small graphs come early: 50 ms per
         * node leaves the exact search the rest (fcn_8_vgg's 73 nodes: the
         * same plans at 3.65 s as at 10 s) */
        wt = tl / 4 < 10 ? tl / 4 : 10;
        if (wt > 0.05 * g->n)
            wt = 0.05 * g->n;
    }
    else if ((rc = solver_opt_double(s, "warm_time", &wt, e)))
        return rc;
    if (budget == PLAN_NO_BUDGET)
        budget = s->base_peak;
    Plan best;
    plan_init(&best);
    Solver *ws = NULL;
    if (given)
        plan_copy(&best, given);
    else
        ws = warm_solver(s, budget, wt, p, &best);
    if (progress_cancelled(p)) {
        solver_free(ws);
        plan_done(&best);
        return err_set(e, ERR_CANCELLED, "checkmate: cancelled");
    }
    /* the orders to solve: the graph's, the best plan's, or the best
     * plan's first and then the graph's with what is left */
    const char *ord = solver_opt_str(s, "order");
    int n = 0, nb = 0, *gorder = sim_baseline_order(g, &n), *border = NULL;
    if (strcmp(ord, "graph") != 0 && best.T > 0)
        border = cm_order_of(g, best.steps, best.T, &nb);
    if (border && (nb != n || same_order(border, gorder, n))) {
        free(border);   /* no other order to try */
        border = NULL;
    }
    const int *orders[2];
    const char *names[2];
    int norders = 0;
    if (border) {
        orders[norders] = border;
        names[norders++] = "best plan's order";
    }
    if (!border || strcmp(ord, "both") == 0) {
        orders[norders] = gorder;
        names[norders++] = "graph's order";
    }
    if (n == 0) {   /* only inputs: nothing runs */
        free(gorder);
        solver_free(ws);
        plan_done(&best);
        out->bound = 0;
        out->optimal = 1;
        return ERR_OK;
    }
    OrderResult res[2];
    double lb = INFINITY, got = INFINITY;
    int ok = 0;
    rc = ERR_OK;
    st->status[0] = '\0';
    for (int k = 0; k < norders && rc != ERR_CANCELLED; k++) {
        /* the first of two orders, the best plan's (whose start is the
         * cheapest plan known), gets two thirds of what is left; the last
         * all that remains */
        double start = k + 1 < norders ? clock_now() : t0;
        double share = k + 1 < norders ? (t0 + tl - start) * 2 / 3 : tl;
        Plan pk;
        plan_init(&pk);
        Err ek;
        err_clear(&ek);
        /* the second order need only beat the first's plan: CBC prunes
         * against it and its proof that nothing does is that order's bound
         * (measured on the 20-node random graph at 87 %: the graph's order,
         * whose optimum is 7 % dearer, took 3.1 of the 3.6 s to prove) */
        int rk = solve_order_within(s, budget, orders[k], n, ws, &best, ok ? got : INFINITY, start, share, p,
                                    &pk, &res[k], &ek);
        size_t u = strlen(st->status);
        fb_put(st->status, sizeof st->status, &u, "%s%s: %s", k ? "; " : "", names[k], res[k].status);
        if (rk == ERR_CANCELLED) {
            rc = err_set(e, ERR_CANCELLED, "checkmate: cancelled");
        } else if (rk == ERR_OK) {
            lb = res[k].bound < lb ? res[k].bound : lb;
            if (pk.cost < got) {
                got = pk.cost;
                plan_swap_steps(out, &pk);
                ok = 1;
            }
        } else {
            /* proven infeasible: no bound below; anything else: that
             * order's optimum is unknown (its bound is 0 unless CBC gave one) */
            lb = res[k].bound < lb ? res[k].bound : lb;
            if (!ok) {
                e->code = ek.code;
                memcpy(e->msg, ek.msg, sizeof e->msg);
                rc = rk;
            }
        }
        plan_done(&pk);
    }
    if (ok && rc != ERR_CANCELLED) {
        rc = ERR_OK;
        err_clear(e);
        /* an incumbent CBC stopped at can run nodes again for nothing */
        plan_tidy(g, out->steps, &out->T, budget, s->rule);
        got = plan_steps_cost(g, out);
        /* optimal over the orders solved: no order's bound is below it */
        out->bound = lb < got ? lb : got;
        out->optimal = got <= lb * (1 + 1e-9);
    }
    free(gorder);
    free(border);
    solver_free(ws);
    plan_done(&best);
    return rc;
}

static int milp_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    return milp_run(s, budget, NULL, out, p, e);
}

int checkmate_solve_from(Solver *s, int64_t budget, const Plan *start, Plan *out, Progress *p, Err *e)
{
    if (s->cls->solve != milp_solve)
        return err_set(e, ERR_USAGE, "checkmate_solve_from: not a checkmate solver");
    return milp_run(s, budget, start, out, p, e);
}

static void milp_describe(const Solver *s, Overlay *out)
{
    const Milp *st = s->state;
    overlay_set_titlef(out, "checkmate MILP (CBC): %s", st->status);
}

const SolverClass solver_checkmate = {
    .name = "checkmate",
    .title = "Checkmate's MILP on a fixed order (CBC): least cost under the budget, proven optimal for that order",
    .caps = SOLVER_EXACT | SOLVER_CONSTRAINTS,
    .optimal_among = "among plans whose first runs follow the orders it solved",
    .params = params,
    .state_size = sizeof(Milp),
    .prepare = milp_prepare,
    .solve = milp_solve,
    .describe = milp_describe,
};
