/* bench_table1.c — FastSA's Table 1 (Imanishi et al. 2023, §3.2), cell by
 * cell: Moccasin's random layered graphs RL1-RL4 and the Checkmate graphs
 * CM1 (fcn_8_vgg, 73 nodes) and CM2 (ResNet50, 353 nodes) at 90/80/70 % of
 * the baseline peak (the graph's own order: graph.order for RL graphs).
 * Our fastsa with default options, and the auto portfolio, beside the
 * paper's CI (cost increase, %) and memory (% of baseline); a cell is met
 * when the budget is met at or below the paper's CI. auto's plan says how
 * far it can be from optimal (its bound: the exact member's or the cover
 * bound over the graph's order and the plan's). The graphs are read
 * from ../shared/data/public/moccasin (GPL-3.0, not shipped); without them
 * the benchmark says so and prints nothing else. Figures, not pass/fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/graph/graph_io.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "tests/bench/load.h"

#define DIR "../shared/data/public/moccasin/"

static const struct {
    const char *name, *file;
    int nodes;
    double ci[3], mem[3], secs[3];
} CELLS[] = {
    {"RL1", "rl_n100_w0.27_nlv0.75_ed0.2_scd0.14", 100, {0.0, 0.3, 2.2}, {79.4, 79.4, 77.3}, {11.7, 11.5, 12.0}},
    {"RL2", "rl_n250_w0.43_nlv0.75_ed0.2_scd0.14", 250, {0.0, 0.0, 2.6}, {77.3, 72.2, 68.9}, {15.1, 15.0, 14.5}},
    {"RL3", "rl_n500_w0.36_nlv0.75_ed0.2_scd0.14", 500, {0.03, 2.3, 4.8}, {87.4, 78.6, 73.5}, {21.0, 20.9, 21.2}},
    {"RL4", "rl_n1000_w0.31_nlv0.75_ed0.2_scd0.14", 1000, {0.4, 2.5, 7.4}, {87.5, 78.4, 70.0}, {36.0, 36.3, 36.5}},
    {"CM1", "cm_fcn_8_vgg_32_416x608x3_train", 73, {0.1, 0.1, 3.0}, {75.3, 75.1, 62.3}, {9.4, 9.7, 9.7}},
    {"CM2", "cm_ResNet50_256_224x224x3_train", 353, {0.2, 0.4, 0.8}, {86.2, 76.6, 66.8}, {10.9, 10.9, 11.0}},
};

/* One solve with default options: fills ci, mem (% of baseline), secs,
 * and what the plan says of its optimality: "optimal", "gap X %" to its
 * lower bound, or "-" (proof, n bytes; NULL: not wanted). */
static int run(const Graph *g, const char *solver, int64_t budget, double *ci, double *mem, double *secs,
               char *proof, size_t n, double time_limit)
{
    Err e;
    err_clear(&e);
    SolverOpts o;
    solver_opts_init(&o);
    if (time_limit > 0) {
        char kv[64];
        snprintf(kv, sizeof kv, "time_limit=%g", time_limit);
        if (solver_opts_add(&o, kv, &e) != ERR_OK) {
            solver_opts_done(&o);
            return -1;
        }
    }
    Solver *s = solver_new(solver_find(solver), g, &o, &e);
    solver_opts_done(&o);
    if (!s)
        return -1;
    Plan p;
    plan_init(&p);
    double t0 = clock_now();
    int rc = solver_plan(s, budget, NULL, &p, NULL, &e);
    *secs = clock_now() - t0;
    if (p.T) {
        *ci = 100 * plan_overhead(&p);
        *mem = 100.0 * (double)p.peak / (double)p.baseline_peak;
    }
    if (proof && p.optimal)
        snprintf(proof, n, "optimal");
    else if (proof && p.bound > 0)
        snprintf(proof, n, "gap %.2f %%", 100 * (p.cost / p.bound - 1));
    else if (proof)
        snprintf(proof, n, "-");
    int fits = rc == ERR_OK;
    plan_done(&p);
    solver_free(s);
    return fits;
}

/* --paper-time: fastsa gets the paper's own seconds for each cell
 * (time_limit=, the one preset docs/solvers/fastsa.md documents) instead
 * of time_limit=auto, and auto is not run. */
int main(int argc, char **argv)
{
    int paper_time = argc > 1 && strcmp(argv[1], "--paper-time") == 0;
    if (argc > 1 && !paper_time) {
        fprintf(stderr, "usage: bench_table1 [--paper-time]\n");
        return 2;
    }
    FILE *probe = fopen(DIR "README.md", "r");
    if (!probe) {
        printf("(no %s here: Table 1 needs Moccasin's public graphs)\n", DIR);
        return 0;
    }
    fclose(probe);
    const int pct[3] = {90, 80, 70};
    printf("FastSA paper Table 1 vs this build, %s, one core. CI = cost increase %%, mem "
           "= peak %% of the baseline; met = budget met with CI at or below the paper's.\n\n",
           paper_time ? "fastsa with time_limit= the paper's seconds (auto not run)"
                      : "default options");
    printf("| graph | nodes | B | paper CI | paper mem | paper s | fastsa CI | mem | s | met | auto CI | mem | s | auto's proof | winner |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int met = 0, total = 0;
    for (size_t c = 0; c < sizeof CELLS / sizeof CELLS[0]; c++) {
        char path[512];
        snprintf(path, sizeof path, DIR "%s.json", CELLS[c].file);
        int64_t bp;
        double bc;
        Graph *g = bench_load(path, CELLS[c].name, &bp, &bc);
        if (!g)
            continue;
        for (int k = 0; k < 3; k++) {
            int64_t budget = bp * pct[k] / 100;
            double ci = 0, mem = 0, secs = 0, aci = 0, amem = 0, asecs = 0;
            char proof[48];
            int fits = run(g, "fastsa", budget, &ci, &mem, &secs, NULL, 0,
                           paper_time ? CELLS[c].secs[k] : 0);
            /* auto's columns are the default run's; --paper-time leaves them out */
            int afits = paper_time ? -1 : run(g, "auto", budget, &aci, &amem, &asecs, proof, sizeof proof, 0);
            /* the paper rounds CI to 0.1 (0.03 on RL3 at 90 %) */
            int ok = fits == 1 && ci <= CELLS[c].ci[k] + 0.05;
            met += ok;
            total++;
            char fs[48], as[160];
            snprintf(fs, sizeof fs, fits == 1 ? "%.2f" : "(%.2f)", ci);
            if (afits < 0)
                snprintf(as, sizeof as, "- | - | - | - | -");
            else
                snprintf(as, sizeof as, afits == 1 ? "%.2f | %.1f | %.1f | %s | %s" : "(%.2f) | %.1f | %.1f | %s | %s",
                         aci, amem, asecs, proof,
                         afits != 1 && fits != 1 ? "-" : afits == 1 && (fits != 1 || aci < ci) ? "auto" : "fastsa");
            printf("| %s | %d | %d%% | %.2g | %.1f | %.1f | %s | %.1f | %.1f | %s | %s |\n",
                   CELLS[c].name, CELLS[c].nodes, pct[k], CELLS[c].ci[k], CELLS[c].mem[k],
                   CELLS[c].secs[k], fs, mem, secs, ok ? "yes" : "**no**", as);
            fflush(stdout);
        }
        graph_free(g);
    }
    printf("\nfastsa meets %d of %d cells (CI in parentheses: budget not met).\n", met, total);
    return 0;
}
