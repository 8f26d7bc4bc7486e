/* bench_scale.c — a generated training graph of N nodes (default 200K:
 * a 100K-node ResNet-like forward part and its backward) is written as
 * JSON, loaded back through the file loader, validated, simulated, and
 * solved with noremat, greedy, dtr, fastsa (short limits) and echo.
 * Prints time and peak resident memory for each stage; exits non-zero if
 * a stage fails, so the test suite can run it (`--nodes` to shrink). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "src/base/clock.h"
#include "src/base/fileio.h"
#include "src/graph/graph_io.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "tests/bench/gen.h"

static long maxrss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

#define STAGE(name, t0) printf("%-28s %8.3f s   max RSS %5ld MiB\n", name, clock_now() - (t0), maxrss_mib())

int main(int argc, char **argv)
{
    int nodes = 200000;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--nodes"))
            nodes = atoi(argv[i + 1]);
    double t0 = clock_now();
    Graph *g = gen_training("resnet", nodes / 2, 11);
    printf("graph: %d nodes, %d edges\n", g->n, g->n_edges);
    STAGE("generate", t0);
    t0 = clock_now();
    char *json = graph_to_json(g);
    char path[] = "/tmp/remat-scale-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    Err e;
    if (file_write_all(path, json, strlen(json), &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    printf("json: %zu bytes\n", strlen(json));
    free(json);
    STAGE("write json", t0);
    t0 = clock_now();
    Graph *h = graph_load(path, &e);
    unlink(path);
    if (!h) {
        fprintf(stderr, "load: %s\n", e.msg);
        return 1;
    }
    STAGE("load + validate", t0);
    t0 = clock_now();
    int64_t bp;
    double bc;
    sim_baseline(h, &bp, &bc);
    STAGE("simulate baseline", t0);
    const char *solvers[] = {"noremat", "greedy", "dtr", "fastsa", "echo"};
    const char *opts[] = {NULL, NULL, NULL, "time_limit=5", NULL};
    int status = 0;
    for (int i = 0; i < 5; i++) {
        const SolverClass *cls = solver_find(solvers[i]);
        if (!cls) {
            printf("%-28s (not built)\n", solvers[i]);
            continue;
        }
        SolverOpts o;
        solver_opts_init(&o);
        if (opts[i])
            solver_opts_add(&o, opts[i], &e);
        t0 = clock_now();
        Solver *s = solver_new(cls, h, &o, &e);
        solver_opts_done(&o);
        if (!s) {
            printf("%-28s refused: %s\n", solvers[i], e.msg);
            continue;
        }
        Plan p;
        plan_init(&p);
        int rc = solver_plan(s, bp / 2, NULL, &p, NULL, &e);
        char label[64];
        snprintf(label, sizeof label, "%s at 50%%", solvers[i]);
        STAGE(label, t0);
        if (rc && rc != ERR_OVER_BUDGET) {
            printf("  failed: %s\n", e.msg);
            status = 1;
        } else {
            printf("  peak %.1f%% of baseline, cost %+.1f%%, %d steps\n", 100.0 * (double)p.peak / (double)bp,
                   100 * plan_overhead(&p), p.T);
        }
        plan_done(&p);
        solver_free(s);
    }
    graph_free(h);
    graph_free(g);
    return status;
}
