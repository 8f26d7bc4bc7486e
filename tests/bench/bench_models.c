/* bench_models.c — every solver on the real models' training graphs
 * (samples/models, and the joint forward+backward graphs in
 * samples/models/joint when present) at 90/80/70/60/50 % of the baseline
 * peak: the cost increase of each solver's plan, "over" where it misses the
 * budget, "-" where it refuses the graph; the cheapest plan of each row in
 * bold. fastsa and auto get time_limit=BENCH_SECONDS each; the MILP solvers
 * are left out (their graphs are beyond them). Figures, not pass/fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/graph_io.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "tests/bench/gen.h"
#include "tests/bench/load.h"

#define BENCH_SECONDS "10"

static int skip(const SolverClass *cls)
{
    return strncmp(cls->name, "checkmate", 9) == 0;
}

static void bench(const char *path)
{
    int64_t bp;
    double bc;
    Graph *g = bench_load(path, path, &bp, &bc);
    if (!g)
        return;
    Err e;
    int ns = solver_count();
    Solver **sv = calloc((size_t)ns, sizeof *sv);
    for (int i = 0; i < ns; i++) {
        const SolverClass *cls = solver_at(i);
        if (skip(cls))
            continue;
        SolverOpts o;
        solver_opts_init(&o);
        if (!strcmp(cls->name, "fastsa") || !strcmp(cls->name, "auto"))
            solver_opts_add(&o, "time_limit=" BENCH_SECONDS, &e);
        sv[i] = solver_new(cls, g, &o, &e);
        solver_opts_done(&o);
    }
    for (int pct = 90; pct >= 50; pct -= 10) {
        int64_t b = bp * pct / 100;
        double ci[64];
        int fits[64] = {0}, best = -1;
        for (int i = 0; i < ns; i++) {
            if (!sv[i])
                continue;
            Plan p;
            plan_init(&p);
            int rc = solver_plan(sv[i], b, NULL, &p, NULL, &e);
            fits[i] = rc == ERR_OK ? 1 : rc == ERR_OVER_BUDGET ? 2 : 0;
            ci[i] = 100 * plan_overhead(&p);
            if (fits[i] == 1 && (best < 0 || ci[i] < ci[best]))
                best = i;
            plan_done(&p);
        }
        printf("| %s (%d nodes) | %d%% |", strrchr(path, '/') ? strrchr(path, '/') + 1 : path, g->n, pct);
        for (int i = 0; i < ns; i++) {
            if (skip(solver_at(i)))
                continue;
            if (fits[i] == 1)
                printf(best >= 0 && ci[i] <= ci[best] ? " **%.1f** |" : " %.1f |", ci[i]);
            else
                printf(" %s |", fits[i] == 2 ? "over" : "-");
        }
        printf("\n");
        fflush(stdout);
    }
    for (int i = 0; i < ns; i++)
        solver_free(sv[i]);
    free(sv);
    graph_free(g);
}

static void dir_of(const char *d)
{
    char *names[256];
    int nn = gen_json_files(d, names);
    for (int i = 0; i < nn; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", d, names[i]);
        bench(p);
        free(names[i]);
    }
}

int main(void)
{
    printf("Cost increase (%%) of each solver's plan on the real models' graphs; **bold**: the "
           "cheapest plan within the budget in the row; over: the budget is missed; -: the solver "
           "refuses the graph. fastsa and auto: time_limit=" BENCH_SECONDS " s.\n\n| graph | budget |");
    int n = 0;
    for (int i = 0; i < solver_count(); i++)
        if (!skip(solver_at(i))) {
            printf(" %s |", solver_at(i)->name);
            n++;
        }
    printf("\n|---|---|");
    for (int i = 0; i < n; i++)
        printf("---|");
    printf("\n");
    dir_of("samples/models");
    dir_of("samples/models/joint");
    return 0;
}
