/* bench_tidy.c — what plan_tidy (src/plan/tidy.c) takes off solvers' plans:
 * each solver's plan for the model samples at 70 % of the baseline peak,
 * its cost increase before and after dropping the reruns a kept copy can
 * serve within that budget, the steps dropped and the seconds the tidy
 * took. auto tidies its pool's cheapest plans this way after a solve, and
 * checkmate/checkmate-lp their answers. Figures, not pass/fail. */
#include <stdio.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/graph/graph_io.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/plan/tidy.h"
#include "tests/bench/load.h"

static void rows(const char *file, const char *const *solvers, int n)
{
    int64_t bp;
    double bc;
    Graph *g = bench_load(file, file, &bp, &bc);
    if (!g)
        return;
    Err e;
    int64_t budget = bp * 70 / 100;
    for (int k = 0; k < n; k++) {
        SolverOpts o;
        solver_opts_init(&o);
        err_clear(&e);
        if (strcmp(solvers[k], "fastsa") == 0)
            solver_opts_add(&o, "time_limit=3", &e);
        Solver *s = solver_new(solver_find(solvers[k]), g, &o, &e);
        solver_opts_done(&o);
        Plan p;
        plan_init(&p);
        int rc = s ? solver_plan(s, budget, NULL, &p, NULL, &e) : e.code;
        if (rc != ERR_OK || p.peak > budget) {
            printf("| %s | %s | - | - | - | - | %s |\n", file, solvers[k], rc ? e.msg : "over budget");
        } else {
            int T0 = p.T;
            double t0 = clock_now();
            int got = plan_tidy(g, p.steps, &p.T, budget, NULL);
            double secs = clock_now() - t0;
            Sim sim;
            if (sim_run(g, p.steps, p.T, &sim, &e) == ERR_OK) {
                printf("| %s | %s | %+.3f %% | %+.3f %% | %d of %d | %.3f | %s |\n", file, solvers[k],
                       100 * (p.cost / bc - 1), 100 * (sim.cost / bc - 1), got, T0, secs,
                       sim.peak <= budget ? "within budget" : "OVER BUDGET");
                sim_done(&sim);
            } else {
                printf("| %s | %s | - | - | - | - | tidied plan invalid: %s |\n", file, solvers[k], e.msg);
            }
        }
        fflush(stdout);
        plan_done(&p);
        solver_free(s);
    }
    graph_free(g);
}

int main(void)
{
    static const char *const solvers[] = {"greedy", "echo", "chen", "revolve", "twremat", "kusumoto-approx",
                                          "fastsa"};
    static const char *const files[] = {"samples/models/resnet50.json", "samples/models/unet.json",
                                        "samples/models/densenet121.json", "samples/models/lstm64.json"};
    printf("Each solver's plan at 70 %% of the baseline peak (fastsa: time_limit=3), before and after "
           "plan_tidy within that budget.\n\n");
    printf("| graph | solver | cost increase | tidied | steps dropped | tidy s | check |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++)
        rows(files[f], solvers, (int)(sizeof solvers / sizeof solvers[0]));
    return 0;
}
