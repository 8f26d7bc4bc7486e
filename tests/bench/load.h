/* load.h — the benches' graph loading: a graph file with its baseline
 * figures, or the table row saying why it could not be read, so a
 * missing file (the literature's graphs live outside the project) costs
 * one row, not the run. */
#ifndef REMAT_BENCH_LOAD_H
#define REMAT_BENCH_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "src/graph/graph_io.h"
#include "src/plan/sim.h"

/* The graph at path with its baseline peak and cost; NULL after printing
 * "| name | load failed: why |". */
static inline Graph *bench_load(const char *path, const char *name, int64_t *bp, double *bc)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_load(path, &e);
    if (!g) {
        printf("| %s | load failed: %s |\n", name, e.msg);
        return NULL;
    }
    sim_baseline(g, bp, bc);
    return g;
}

/* The graph with every running node's cost 1: the FastSA paper's unit
 * costs (tools/export_torch.py --cost unit gives the same graph). */
static inline Graph *bench_unit_costs(const Graph *g)
{
    Graph *u = graph_clone(g);
    for (int v = 0; v < u->n; v++)
        if (u->nodes[v].phase != PHASE_INPUT)
            u->nodes[v].cost = 1;
    return u;
}

/* BUILD/name beside BUILD/bench/PROGRAM (argv0), into out: where the
 * benches keep the model graphs they export (out of the repository). */
static inline void bench_cache_dir(const char *argv0, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s", argv0);
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
    slash = strrchr(out, '/');
    if (slash)
        slash[1] = '\0';
    else
        snprintf(out, cap, "./");
    strncat(out, name, cap - strlen(out) - 1);
}

#endif
