/* load.h — the benches' graph loading: a graph file with its baseline
 * figures, or the table row saying why it could not be read, so a
 * missing file (the literature's graphs live outside the project) costs
 * one row, not the run. */
#ifndef REMAT_BENCH_LOAD_H
#define REMAT_BENCH_LOAD_H

#include <stdint.h>
#include <stdio.h>

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

#endif
