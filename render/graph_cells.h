/* graph_cells.h — the graph drawn in terminal cells for the explorer's
 * graph view: a layered drawing (ranks top to bottom along the edges,
 * order within a rank by barycentres, columns by label widths pulled
 * toward each node's neighbours), every node labelled with its id (cut to
 * label_max characters when that is > 0), never overlapping, and every
 * edge routed with box-drawing directions: down from its source, along a
 * horizontal track of its own between the two ranks, down into its
 * target; edges across several ranks pass through one column per rank.
 * Pure computation and output; no terminal.
 */
#ifndef REMAT_GRAPH_CELLS_H
#define REMAT_GRAPH_CELLS_H

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/solver.h" /* Progress */

enum { EDGE_UP = 1, EDGE_DOWN = 2, EDGE_LEFT = 4, EDGE_RIGHT = 8 };

typedef struct CellParams {
    int label_max;      /* characters of an id shown; 0: all of it */
    int gap;            /* columns between neighbours in a rank (>= 1) */
    int tracks_min;     /* rows between two ranks at least (>= 1) */
    int max_pass;       /* cells of long edges routed at most; longer ones are counted, not drawn */
} CellParams;

typedef struct CellLayout {
    int n;              /* g->n */
    int *x, *y;         /* left column and row of node i's label; -1 when not drawn */
    int *len;           /* characters of its label */
    int w, h;           /* size of the drawing in cells */
    unsigned char *edge;/* w * h masks of EDGE_* bits */
    int edges, long_edges;  /* edges drawn; edges left out (too long for max_pass) */
    int ranks;
    /* The drawn edges as polylines of cell points (column, row): edge i
     * runs from node path_u[i]'s label row to node path_v[i]'s through
     * points path_off[i] .. path_off[i + 1] - 1 of path_x / path_y (the
     * cells the edge masks mark, corners only). */
    int n_paths;
    int *path_u, *path_v, *path_off, *path_x, *path_y;
} CellLayout;

/* Lay out the nodes with keep[v] != 0 (keep NULL: all) and the edges
 * between them. ERR_CANCELLED when p's cancel flag fired. Free with
 * cell_layout_done. */
int cell_layout(const Graph *g, const unsigned char *keep, const CellParams *prm, CellLayout *out,
                Progress *p, Err *e);
/* cell_layout with node v's label widths[v] cells wide (widths NULL or
 * an entry <= 0: its id's length as cell_layout has it), for drawings
 * whose labels are not the ids (render/export.c). */
int cell_layout_sized(const Graph *g, const unsigned char *keep, const CellParams *prm,
                      const int *widths, CellLayout *out, Progress *p, Err *e);
void cell_layout_done(CellLayout *l);

/* The label drawn for node v: its id, or its first label_max - 1
 * characters and '~' when longer. */
void cell_label(const Graph *g, int v, int label_max, char *buf, int n);

/* The glyph for a mask: box drawing (Unicode) or -|+ (ASCII). */
const char *cell_edge_glyph(unsigned mask, int ascii);

#endif
