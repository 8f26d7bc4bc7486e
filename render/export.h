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
#include "src/plan/solver.h" /* Progress */

/* DOT text for drawing (not the data format of graph_to_dot); plan and ov
 * may be NULL. The plan must have been evaluated. Caller frees. */
char *export_dot(const Graph *g, const Plan *plan, const Overlay *ov);

/* Write format "dot", "svg" or "png" to path, atomically. svg/png are laid
 * out as ExportLayout AUTO says. ERR_USAGE for an unknown format, ERR_IO
 * when writing fails (the target untouched). */
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

/* How an export is laid out. AUTO: Graphviz's dot up to
 * EXPORT_DOT_MAX_NODES nodes, the layered layout beyond (dot took 51 s on
 * the 202-node ResNet-18 and over 20 minutes on the 513-node ResNet-50;
 * the layered path draws either in about a second). DOT output is the
 * same text either way: only SVG/PNG are laid out. */
typedef enum ExportLayout {
    EXPORT_LAYOUT_AUTO,
    EXPORT_LAYOUT_DOT,      /* Graphviz's dot: clusters kept apart, slow on big graphs */
    EXPORT_LAYOUT_LAYERED,  /* render/graph_cells.c's layout, Graphviz renders only */
} ExportLayout;

#define EXPORT_DOT_MAX_NODES 150
#define EXPORT_BOX_H 36.0   /* a node's box height in points (Graphviz's 0.5 in) */

/* An export that can show progress and be stopped. All fields optional
 * (a zeroed ExportOpts is AUTO without progress).
 * - progress: its done is set from 0 to 1 as the export goes (drawing,
 *   layout, rendering, written) and its cancel is polled between stages
 *   and inside the layered layout; a cancel returns ERR_CANCELLED with the
 *   target untouched. Graphviz's own dot layout cannot be stopped
 *   half-way: a cancel during it is seen when it returns.
 * - on_progress(arg, done, stage): called on the exporting thread at each
 *   stage ("drawing", "layout", "Graphviz layout", "rendering",
 *   "written"); may be NULL. */
typedef struct ExportOpts {
    ExportLayout layout;
    Progress *progress;
    void (*on_progress)(void *arg, double done, const char *stage);
    void *arg;
} ExportOpts;

/* export_graph_marked with opts (NULL: AUTO, no progress). The file is
 * complete or untouched (src/base/fileio.h's FileTx). */
int export_graph_opts(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m,
                      const char *format, const char *path, const ExportOpts *opts, Err *e);

/* 1 when an SVG/PNG export of g with opts uses the layered layout. */
int export_layered_for(const Graph *g, const ExportOpts *opts);

/* The export format a file name asks for: "dot" (.dot, .gv), "svg",
 * "png", "json", or NULL for any other name. */
const char *export_format_of(const char *path);

#endif
