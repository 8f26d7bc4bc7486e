/* bench_checkmate.c — the exact yardstick against its targets: Checkmate's
 * MILP (checkmate, CBC) on Moccasin's fcn_8_vgg training graph (CM1, 73
 * nodes) at 90/80/70 % of the baseline peak on the graph's own order, on
 * the order of the portfolio's best plan, and on both (the default), beside
 * the optima on the graph's order that CBC proves with no time limit; then training graphs
 * of at most 20 nodes (target: proven in under 2 s). Each solve has the
 * default 60 s limit. Beside each case, `auto` with its defaults (its exact
 * member is this MILP, with the seconds its time_limit=auto leaves).
 * Figures, not pass/fail. */
#include <stdio.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/graph/graph_io.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "tests/bench/gen.h"

#define CM1 "../shared/data/public/moccasin/cm_fcn_8_vgg_32_416x608x3_train.json"

/* One checkmate solve with "order=..." at budget (pct % of the baseline
 * peak), or with order "auto" one solve of the auto portfolio with its
 * default options; prints a table row. Status "optimal" for both means no
 * order's bound is below the plan's cost. */
static void row_at(const char *name, const Graph *g, int64_t budget, int pct, const char *order,
                   double reference)
{
    SolverOpts o;
    solver_opts_init(&o);
    Err e;
    err_clear(&e);
    char kv[32];
    snprintf(kv, sizeof kv, "order=%s", order);
    int portfolio = strcmp(order, "auto") == 0;
    if (!portfolio)
        solver_opts_add(&o, kv, &e);
    Solver *s = solver_new(solver_find(portfolio ? "auto" : "checkmate"), g, &o, &e);
    solver_opts_done(&o);
    if (!s) {
        printf("| %s | %d%% | %s | - | - | - | %s |\n", name, pct, order, e.msg);
        return;
    }
    Plan p;
    plan_init(&p);
    double t0 = clock_now();
    int rc = solver_plan(s, budget, NULL, &p, NULL, &e);
    double secs = clock_now() - t0;
    char ref[64] = "-";
    if (reference > 0 && p.T)
        snprintf(ref, sizeof ref, "%+.4f %% (%.0f)", 100 * (p.cost - reference) / reference, reference);
    if (rc == ERR_OK)
        printf("| %s | %d%% | %s | %.0f (+%.2f %%) | %s | %.1f | %s%s%s |\n", name, pct, order, p.cost,
               100 * plan_overhead(&p), ref, secs,
               p.optimal ? "optimal" : p.bound >= 0 || !portfolio ? "best found (time limit)" : "no bound",
               portfolio ? ", plan by " : "", portfolio && p.origin ? p.origin : "");
    else
        printf("| %s | %d%% | %s | - | - | %.1f | %s |\n", name, pct, order, secs, e.msg);
    fflush(stdout);
    plan_done(&p);
    solver_free(s);
}

/* The same at pct % of the baseline peak. */
static void row(const char *name, const Graph *g, int pct, const char *order, double reference)
{
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    row_at(name, g, bp * pct / 100, pct, order, reference);
}

int main(void)
{
    printf("Checkmate's MILP on CBC, default 60 s limit, one core. The reference is the optimum on the "
           "graph's own order (CBC with no time limit); a plan on the best order can fall below it. "
           "Rows \"auto\": the portfolio with its default options (its exact member is this MILP).\n\n");
    printf("| graph | B | order | cost (increase) | vs graph-order optimum | s | status |\n");
    printf("|---|---|---|---|---|---|---|\n");
    Err e;
    Graph *g = graph_load(CM1, &e);
    if (g) {
        /* 70 %: the optimum first quoted for the graph's order was
         * 10438506657408 (+1.59 %), from CBC with CLP's scaling and its
         * default tolerance, which cut off cheaper plans; with the
         * tolerance kept below a quarter of the sizes' gcd (model.h) CBC
         * proves 10366941963904 (+0.89 %) on that order */
        static const double opt[3] = {10278354943616., 10289323652736., 10366941963904.};
        static const int pct[3] = {90, 80, 70};
        for (int k = 0; k < 3; k++) {
            row("CM1", g, pct[k], "graph", opt[k]);
            row("CM1", g, pct[k], "best", opt[k]);
            row("CM1", g, pct[k], "both", opt[k]);
            row("CM1", g, pct[k], "auto", opt[k]);
        }
        graph_free(g);
    } else {
        printf("| CM1 | - | - | - | - | - | %s |\n", e.msg);
    }
    /* at most 20 nodes: training graphs of 9 forward nodes, at budgets a
     * half and a tenth of the way from the smallest possible peak to the
     * baseline's */
    static const char *const kinds[] = {"chain", "resnet", "transformer", "random"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        Graph *t = gen_training(kinds[k], 9, 7);
        char name[48];
        snprintf(name, sizeof name, "%s-9 train (%d nodes)", kinds[k], t->n);
        int64_t bp, lo = graph_min_peak(t, NULL);
        double bc;
        sim_baseline(t, &bp, &bc);
        for (int h = 0; h < 2; h++) {
            int64_t b = lo + (bp - lo) * (h ? 1 : 5) / 10;
            row_at(name, t, b, (int)(100 * b / bp), "both", 0);
            row_at(name, t, b, (int)(100 * b / bp), "auto", 0);
        }
        graph_free(t);
    }
    return 0;
}
