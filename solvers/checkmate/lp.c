/* lp.c — Checkmate's LP relaxation: the lower bound shown beside every
 * plan, and `checkmate-lp`, the relaxation with randomized rounding that
 * the FastSA paper compares against (its §3.1 and appendix D.6).
 *
 * Rounding follows Checkmate: keep the relaxation's S (values kept into a
 * stage) where S > threshold, then compute, stage by stage, the least R
 * that makes those S valid: the frontier node, whatever a kept value of
 * the next stage needs that this stage does not already hold, and the
 * inputs of everything computed that are not held. Each threshold (0.5 and
 * `roundings` random ones) gives a schedule; every schedule is simulated
 * and the cheapest within the budget is the answer. The LP is solved for a
 * fraction of the budget (lp_budget, 0.9 as Checkmate suggests), since
 * rounding tends to raise the peak.
 */
#include <Clp_C_Interface.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/engine.h"
#include "solvers/checkmate/model.h"
#include "src/plan/cands.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/clock.h"
#include "src/plan/subproc.h"
#include "src/plan/tidy.h"
#include "src/base/xalloc.h"


/* Solve the relaxation of M; *x gets the solution (caller frees) when
 * want_x. Returns ERR_OK, ERR_OVER_BUDGET (infeasible), ERR_LIMIT,
 * ERR_CANCELLED, ERR_IO. */
static int solve_lp(const CmModel *M, double t0, double limit, Progress *p, double *obj, double **x,
                    Err *e)
{
    double seconds, backstop;
    subproc_limits(t0, limit, &seconds, &backstop);
    Clp_Simplex *clp = Clp_newModel();
    int *cs = xmallocarray((size_t)M->ncols + 1, sizeof *cs);
    for (int64_t c = 0; c <= M->ncols; c++)
        cs[c] = (int)M->cstart[c];
    Clp_loadProblem(clp, (int)M->ncols, (int)M->nrows, (const CoinBigIndex *)cs, M->rind, M->val,
                    M->clb, M->cub, M->obj, M->rlb, M->rub);
    free(cs);
    Clp_setLogLevel(clp, 0);
    /* dual simplex after CLP's presolve, without CLP's scaling (the model
     * is scaled already, model.h): measured on MobileNet's training graph
     * (185 nodes) at 80 %, 11.6 s -> 5.4-6.2 s, and ResNet-50's (353 nodes)
     * from over 120 s to 76 s, the same bounds; the primal and barrier
     * methods took 85-94 s on MobileNet */
    Clp_scaling(clp, 0);
    Clp_setMaximumSeconds(clp, seconds);
    EngineAnswer a;
    int rc = engine_solve(NULL, clp, M->ncols, p, backstop, &a, e);
    if (rc == ERR_LIMIT)
        err_set(e, ERR_LIMIT, "the LP relaxation was not solved within %g s (CLP was stopped)", limit);
    Clp_deleteModel(clp);
    if (rc == ERR_OK && a.heard)
        *obj = a.best_possible / M->cscale;   /* the LP's value at CLP's prices (engine_lp_safe_bound) */
    if (rc == ERR_OK && a.x && x) {
        *x = xmallocarray((size_t)M->ncols + 1, sizeof **x);
        memcpy(*x, a.x, (size_t)M->ncols * sizeof **x);
    } else if (rc == ERR_OK && a.status == ENGINE_INFEASIBLE) {
        rc = err_set(e, ERR_OVER_BUDGET, "the LP relaxation has no solution within the budget");
    } else if (rc == ERR_OK && a.status != ENGINE_OPTIMAL) {
        rc = err_set(e, ERR_LIMIT, "the LP relaxation was not solved within %g s", limit);
    }
    engine_answer_done(&a);
    return rc;
}

/* Solve the relaxation of the model on the graph's own order for budget:
 * *obj, and the solution in *x when x is given. ERR_OK with *obj = 0 when
 * nothing runs. */
static int relax_graph_order(const Graph *g, int64_t budget, double t0, double limit, Progress *p,
                             double *obj, double **x, CmModel *M, Err *e)
{
    int n;
    int *order = sim_baseline_order(g, &n);
    memset(M, 0, sizeof *M);
    *obj = 0;
    int rc = n ? cm_build(M, g, order, n, budget, 50000000, e) : ERR_OK;
    free(order);
    if (rc == ERR_OK && n)
        rc = solve_lp(M, t0, limit, p, obj, x, e);
    return rc;
}

int checkmate_lp_bound(const Graph *g, int64_t budget, double seconds, Progress *p, double *bound,
                       Err *e)
{
    int m = graph_running_nodes(g);
    if (m > CHECKMATE_LP_MAX_NODES)
        return err_set(e, ERR_LIMIT, "no LP bound for %d nodes (at most %d)", m, CHECKMATE_LP_MAX_NODES);
    CmModel M;
    int rc = relax_graph_order(g, budget, clock_now(), seconds, p, bound, NULL, &M, e);
    cm_free(&M);
    return rc;
}

/* ---- checkmate-lp: the relaxation with randomized rounding ----------- */

static const SolverParam params[] = {
    OPT_P_NUM("time_limit", "60", 0.001, 1e7, NULL, "seconds for the LP"),
    OPT_P_NUM("lp_budget", "0.9", 0.001, 1, NULL, "the LP is solved for this share of the budget (rounding raises the peak)"),
    OPT_P_INT("roundings", "100", 0, 100000, NULL, "random thresholds tried beside 0.5"),
    OPT_P_INT("seed", "1", 0, 9e18, NULL, "seed of the thresholds"),
    OPT_P_INT("max_nodes", "400", 0, 1e9, NULL, "refuse larger graphs (the model grows with the square of the nodes)"),
    OPT_P_END,
};

static int lp_prepare(Solver *s, Err *e)
{
    return cm_refuse_large(s, "the LP grows with the square of the nodes (use fastsa or auto)", e);
}

/* The least R for kept values `keep` (S rounded), as a schedule. */
static void round_schedule(const CmModel *M, const unsigned char *keep, Plan *out)
{
    int n = M->n;
    const Graph *g = M->g;
    unsigned char *r = xmalloc((size_t)n + 1);
    plan_reset(out);
    for (int t = 0; t < n; t++) {
        memset(r, 0, (size_t)n);
        r[t] = 1;
        /* what the next stage keeps must be here: computed if not kept in */
        for (int i = 0; i <= t; i++) {
            int next = t + 1 < n ? keep[cm_S(M, t + 1, i) - M->sbase] : g->is_output[M->ord[i]];
            int in = i < t && keep[cm_S(M, t, i) - M->sbase];
            if (next && !in)
                r[i] = 1;
        }
        /* inputs of what runs: computed unless kept in; positions
         * descending, so a newly needed input is visited later */
        for (int k = t; k >= 0; k--) {
            if (!r[k])
                continue;
            for (int q = M->in_off[k]; q < M->in_off[k + 1]; q++) {
                int i = M->in_pos[q];
                if (!(i < t && keep[cm_S(M, t, i) - M->sbase]))
                    r[i] = 1;
            }
        }
        for (int i = 0; i <= t; i++)
            if (r[i])
                plan_push(out, M->ord[i]);
    }
    free(r);
}

static int lp_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    const Graph *g = s->g;
    double tl, frac, t0 = clock_now();
    long long nr, seed;
    solver_opt_double(s, "time_limit", &tl, e);
    solver_opt_double(s, "lp_budget", &frac, e);
    solver_opt_int(s, "roundings", &nr, e);
    solver_opt_int(s, "seed", &seed, e);
    if (budget == PLAN_NO_BUDGET)
        budget = s->base_peak;
    CmModel M;
    double obj, *x = NULL;
    int rc = relax_graph_order(g, (int64_t)((double)budget * frac), t0, tl, p, &obj, &x, &M, e);
    if (rc == ERR_OVER_BUDGET) {
        /* the reduced budget may be out of the relaxation's reach while the
         * budget itself is not */
        cm_free(&M);
        rc = relax_graph_order(g, budget, t0, tl, p, &obj, &x, &M, e);
    }
    if (rc == ERR_OK && M.n == 0) {
        cm_free(&M);
        return ERR_OK;   /* nothing runs */
    }
    if (rc) {
        cm_free(&M);
        if (rc == ERR_CANCELLED)
            return err_set(e, rc, "checkmate-lp: cancelled");
        if (rc == ERR_OVER_BUDGET)
            return err_set(e, rc, "checkmate-lp: no schedule of Checkmate's model on the graph's order "
                                  "fits (the LP relaxation is infeasible)");
        err_prefix(e, "checkmate-lp");
        return rc;
    }
    int64_t ns = (int64_t)M.n * (M.n - 1) / 2;
    unsigned char *keep = xmalloc((size_t)ns + 1);
    uint64_t st = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
    CandSet cs;
    cands_init(&cs);
    Plan pl;
    plan_init(&pl);
    for (long long k = 0; k <= nr && !progress_cancelled(p); k++) {
        double th = 0.5;
        if (k > 0) {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            th = (double)(st >> 11) * (1.0 / 9007199254740992.0);
        }
        for (int64_t c = 0; c < ns; c++)
            keep[c] = x[M.sbase + c] > th;
        round_schedule(&M, keep, &pl);
        Err se;
        cands_add_steps(&cs, g, pl.steps, pl.T, 1, 0, NULL, "checkmate-lp", &se);
    }
    int best = cands_pick(&cs, budget);
    rc = best >= 0 ? cands_emit(&cs, best, out, p, e) : err_set(e, ERR_CANCELLED, "checkmate-lp: cancelled");
    if (rc == ERR_OK)   /* rounding reruns what a kept copy could serve */
        plan_tidy(g, out->steps, &out->T, budget, s->rule);
    plan_done(&pl);
    cands_done(&cs);
    free(keep);
    free(x);
    cm_free(&M);
    return rc;
}

const SolverClass solver_checkmate_lp = {
    .name = "checkmate-lp",
    .title = "Checkmate's LP relaxation with randomized rounding (CLP): for graphs too big for the MILP",
    .params = params,
    .prepare = lp_prepare,
    .solve = lp_solve,
};
