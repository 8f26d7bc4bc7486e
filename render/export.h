/* export.h — drawing a graph (and optionally a plan and a solver's overlay)
 * as Graphviz DOT, SVG or PNG. Recomputed nodes are filled orange with their
 * run count, values alive at the plan's peak step are outlined red, and
 * overlay groups become clusters (bags, blocks, segments).
 */
#ifndef REMAT_EXPORT_H
#define REMAT_EXPORT_H

#include "src/graph/graph.h"
#include "src/plan/overlay.h"
#include "src/plan/plan.h"

/* DOT text for drawing (not the data format of graph_to_dot); plan and ov
 * may be NULL. The plan must have been evaluated. Caller frees. */
char *export_dot(const Graph *g, const Plan *plan, const Overlay *ov);

/* Write format "dot", "svg" or "png" to path. svg/png go through gvc's dot
 * layout. ERR_USAGE for an unknown format, ERR_IO when writing fails. */
int export_graph(const Graph *g, const Plan *plan, const Overlay *ov, const char *format,
                 const char *path, Err *e);

/* Figures of the plan the caller already has (the explorer computes them
 * once per plan): runs per node and the values alive at the plan's peak
 * step, g->n entries each. */
typedef struct ExportMarks {
    const int *runs;
    const unsigned char *alive;
} ExportMarks;

/* export_dot / export_graph with the marks given (m NULL: computed). */
char *export_dot_marked(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m);
int export_graph_marked(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m,
                        const char *format, const char *path, Err *e);

/* The export format a file name asks for: "dot" (.dot, .gv), "svg",
 * "png", "json", or NULL for any other name. */
const char *export_format_of(const char *path);

#endif
