/* bench_layout.c — the explorer's graph view layout (render/graph_cells.c)
 * on the bundled model graphs: nodes, edges drawn and left out, the
 * drawing's size in cells, and the time of one layout at the opening zoom.
 * Run from the repository root (it reads samples/models/). */
#include <stdio.h>
#include <stdlib.h>

#include "render/graph_cells.h"
#include "src/base/clock.h"
#include "src/graph/graph_io.h"

int main(void)
{
    static const char *const files[] = {
        "samples/kumar_fig1.json",        "samples/chain32.json",
        "samples/models/resnet18.json",   "samples/models/resnet50.json",
        "samples/models/gpt2.json",       "samples/models/densenet121.json",
        "samples/models/lstm64.json",
    };
    /* the view's parameters at zoom 1 (ui/view_graph.c) */
    CellParams prm = {0, 2, 1, 20000};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        Err e;
        err_clear(&e);
        Graph *g = graph_load(files[i], &e);
        if (!g) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        CellLayout l;
        int reps = 5;
        double t0 = clock_now();
        for (int r = 0; r < reps; r++) {
            if (cell_layout(g, NULL, &prm, &l, NULL, &e)) {
                fprintf(stderr, "%s: %s\n", files[i], e.msg);
                return 1;
            }
            if (r + 1 < reps)
                cell_layout_done(&l);
        }
        double dt = (clock_now() - t0) / reps;
        printf("%-32s %5d nodes %5d edges drawn %5d left out  %5d x %5d cells  %7.1f ms\n", files[i], g->n,
               l.edges, l.long_edges, l.w, l.h, dt * 1e3);
        cell_layout_done(&l);
        graph_free(g);
    }
    return 0;
}
