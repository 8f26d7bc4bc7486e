/* bench_solvers.c — every solver on every sample and on generated graphs at
 * 25 %, 50 % and 75 % of the baseline peak: solve time, peak reduction, cost
 * overhead; re-solve latency after a small budget change; the gap to the
 * exact reference where it finished. Prints a table and writes it as
 * Markdown to the file given as argv[1] (default docs/benchmarks.md).
 * Each solve runs under a watchdog that cancels it after LIMIT seconds. */
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/graph/graph_io.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "tests/bench/gen.h"

#define LIMIT 20.0

typedef struct {
    Progress *p;
    double limit;
    volatile int done;
} Watch;

static void *watchdog(void *arg)
{
    Watch *w = arg;
    double t0 = clock_now();
    while (!w->done) {
        if (clock_now() - t0 > w->limit) {
            atomic_store(&w->p->cancel, 1);
            break;
        }
        usleep(2000);
    }
    return NULL;
}

static int run_one(Solver *s, int64_t budget, const Plan *prev, Plan *out, double *secs, Err *e)
{
    Progress p;
    progress_init(&p);
    Watch w = {&p, LIMIT, 0};
    pthread_t th;
    pthread_create(&th, NULL, watchdog, &w);
    double t0 = clock_now();
    int rc = solver_plan(s, budget, prev, out, &p, e);
    *secs = clock_now() - t0;
    w.done = 1;
    pthread_join(th, NULL);
    return rc;
}

static FILE *md;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    vfprintf(md, fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void bench_graph(const char *label, const Graph *g)
{
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    double exact_cost[3] = {-1, -1, -1};
    const int pct[3] = {25, 50, 75};
    /* exact solvers first, so every other row can show its gap to them */
    for (int k2 = 0; k2 < 2 * solver_count(); k2++) {
        int i = k2 % solver_count();
        const SolverClass *cls = solver_at(i);
        if ((k2 < solver_count()) != !!(cls->caps & SOLVER_EXACT))
            continue;
        if ((cls->caps & SOLVER_EXACT) && g->n > 100)
            continue; /* exact methods are for small graphs */
        Err e;
        err_clear(&e);
        SolverOpts o;
        solver_opts_init(&o);
        if (cls->caps & SOLVER_EXACT)
            solver_opts_add(&o, "time_limit=10", &e);
        /* the searches get a fixed share, well inside the watchdog's limit */
        if (!strcmp(cls->name, "fastsa") || !strcmp(cls->name, "auto") || !strcmp(cls->name, "checkmate-lp"))
            solver_opts_add(&o, "time_limit=5", &e);
        double tprep = clock_now();
        Solver *s = solver_new(cls, g, &o, &e);
        solver_opts_done(&o);
        tprep = clock_now() - tprep;
        if (!s) {
            out("| %s | %s | - | - | - | - | %.3f | refused: %.60s |\n", label, cls->name, tprep, e.msg);
            continue;
        }
        for (int k = 0; k < 3; k++) {
            int64_t budget = bp * pct[k] / 100;
            Plan p, q;
            plan_init(&p);
            plan_init(&q);
            double secs, rsecs = -1;
            int rc = run_one(s, budget, NULL, &p, &secs, &e);
            if (rc == ERR_OK || rc == ERR_OVER_BUDGET) {
                /* re-solve latency: a budget 2 % of the baseline higher */
                Err e2;
                if (p.T && run_one(s, budget + bp / 50, &p, &q, &rsecs, &e2) != ERR_OK &&
                    e2.code != ERR_OVER_BUDGET)
                    rsecs = -1;
            }
            char status[96] = "ok";
            if (rc == ERR_OVER_BUDGET)
                snprintf(status, sizeof status, "over budget");
            else if (rc)
                snprintf(status, sizeof status, "%.60s", e.msg);
            if ((cls->caps & SOLVER_EXACT) && rc == ERR_OK && !strcmp(cls->name, "checkmate"))
                exact_cost[k] = p.cost;
            char gap[32] = "";
            if (exact_cost[k] > 0 && rc == ERR_OK && !(cls->caps & SOLVER_EXACT))
                snprintf(gap, sizeof gap, ", vs checkmate %+.1f%%", 100 * (p.cost / exact_cost[k] - 1));
            if (p.T)
                out("| %s | %s | %d%% | %.1f%% | %+.1f%% | %.3f | %.3f | %s%s, re-solve %.3f s |\n",
                    label, cls->name, pct[k], 100.0 * (1 - (double)p.peak / (double)bp),
                    100 * plan_overhead(&p), secs, tprep, status, gap, rsecs);
            else
                out("| %s | %s | %d%% | - | - | %.3f | %.3f | %s |\n", label, cls->name, pct[k], secs, tprep,
                    status);
            plan_done(&p);
            plan_done(&q);
        }
        solver_free(s);
    }
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "docs/benchmarks.md";
    md = fopen(path, "w");
    if (!md) {
        perror(path);
        return 1;
    }
    out("# Benchmarks\n\nGenerated by `make bench` (tests/bench/bench_solvers.c) one solve at a time "
        "(auto's cascade LP, then its second FastSA search, run beside its first search on the other "
        "core); each solve is cancelled after %.0f s, the exact MILPs (checkmate, "
        "checkmate-free) run on graphs of at most 100 nodes with a 10 s limit, and fastsa, auto and "
        "checkmate-lp get 5 s. Peak reduction is relative to the "
        "baseline (noremat) peak; overhead is extra cost over the baseline; re-solve is the time "
        "to plan again for a budget 2 %% of the baseline higher, given the previous plan.\n\n",
        LIMIT);
    /* the hand-written comparison with the papers sits above the table */
    FILE *cmp = fopen("tests/bench/papers.md", "r");
    if (cmp) {
        char line[1024];
        while (fgets(line, sizeof line, cmp))
            out("%s", line);
        fclose(cmp);
        out("\n## All runs\n\n");
    }
    out("| graph | solver | budget | peak reduction | cost overhead | solve s | prepare s | status |\n");
    out("|---|---|---|---|---|---|---|---|\n");
    const char *dirs[] = {"samples", "samples/models"};
    for (int d = 0; d < 2; d++) {
        char *names[256];
        int nn = gen_json_files(dirs[d], names);
        for (int i = 0; i < nn; i++) {
            char p[512];
            snprintf(p, sizeof p, "%s/%s", dirs[d], names[i]);
            Err e;
            Graph *g = graph_load(p, &e);
            if (g) {
                bench_graph(p, g);
                graph_free(g);
            }
            free(names[i]);
        }
    }
    const char *kinds[] = {"chain", "resnet", "transformer", "random"};
    const int sizes[] = {500, 2500, 5000}; /* forward nodes: training graphs of ~1K, 5K, 10K */
    for (int k = 0; k < 4; k++)
        for (int s = 0; s < 3; s++) {
            Graph *g = gen_training(kinds[k], sizes[s], 7);
            char label[64];
            snprintf(label, sizeof label, "gen %s (%d nodes)", kinds[k], g->n);
            bench_graph(label, g);
            graph_free(g);
        }
    fclose(md);
    return 0;
}
