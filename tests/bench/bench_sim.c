/* bench_sim.c — simulator throughput: a chain training graph of N forward
 * nodes (2N+1 steps) and the same schedule with every forward node
 * recomputed once before its gradient (≈3N steps); prints steps/s. */
#include <stdio.h>
#include <stdlib.h>

#include "src/base/clock.h"
#include "src/graph/graph.h"
#include "src/plan/sim.h"
#include "src/graph/transform.h"
#include "src/base/xalloc.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50000;
    Graph *f = graph_new();
    Err e;
    char id[32], prev[32];
    graph_add_node(f, "x", "input", PHASE_INPUT, 1000, 0, 0, NULL, &e);
    snprintf(prev, sizeof prev, "x");
    for (int i = 0; i < n; i++) {
        snprintf(id, sizeof id, "f%d", i);
        int v = graph_add_node(f, id, "op", PHASE_FWD, 1000 + i % 7, 10, 0, NULL, &e);
        graph_add_input_name(f, v, prev);
        snprintf(prev, sizeof prev, "%s", id);
    }
    if (graph_finalize(f, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    Graph *g = graph_make_training(f, &e);
    int T;
    int *base = sim_baseline_order(g, &T);
    int reps = 5;
    Sim s;
    double t0 = clock_now();
    for (int r = 0; r < reps; r++) {
        sim_run(g, base, T, &s, &e);
        sim_done(&s);
    }
    double dt = (clock_now() - t0) / reps;
    printf("sim: %d steps (baseline of a %d-chain training graph): %.1f ms, %.1f M steps/s\n", T, n,
           dt * 1e3, T / dt / 1e6);
    /* recompute every forward value right before its gradient */
    int *sch = xmallocarray((size_t)3 * (size_t)g->n, sizeof *sch);
    int m = 0;
    for (int i = 0; i < g->n; i++)
        if (g->nodes[i].phase == PHASE_FWD || g->nodes[i].phase == PHASE_LOSS)
            sch[m++] = i;
    for (int i = 0; i < g->n; i++)
        if (g->nodes[i].phase == PHASE_BWD) {
            sch[m++] = g->nodes[i].grad_of;
            sch[m++] = i;
        }
    t0 = clock_now();
    for (int r = 0; r < reps; r++) {
        if (sim_run(g, sch, m, &s, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        sim_done(&s);
    }
    dt = (clock_now() - t0) / reps;
    printf("sim: %d steps with recomputation: %.1f ms, %.1f M steps/s\n", m, dt * 1e3, m / dt / 1e6);
    free(sch);
    free(base);
    graph_free(g);
    graph_free(f);
    return 0;
}
