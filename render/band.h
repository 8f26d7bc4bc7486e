/* band.h — a solver's structure on the timeline: under the memory curve,
 * one row per recursion level of the overlay (deeper levels share the last
 * row). Blocks, stages and segments show where their nodes run: "[V_1---]"
 * where a group first runs, "V_1~~~" where its nodes run again
 * (recomputation). Bags and separators (a tree decomposition's recursion,
 * linked by parent) show as spans: from the first to the last step of
 * their nodes and those of the groups under them, so each level's spans
 * nest in the level above. Columns map to steps as the curve's do
 * (plot_col_of_step). Pure output; the UI maps the ASCII to box glyphs.
 */
#ifndef REMAT_BAND_H
#define REMAT_BAND_H

#include "src/graph/graph.h"
#include "src/plan/overlay.h"

typedef struct BandCell {
    int group;              /* overlay group shown here, -1 none */
    unsigned char rerun;    /* the step shown reruns the node */
    char ch;                /* ' ', '[', ']', '-', '~' or a label character */
} BandCell;

/* Rows the band needs for ov: one per level, at most max_rows, 0 when the
 * overlay has no groups. */
int band_rows(const Overlay *ov, int max_rows);

/* Fill rows * w cells (row 0 = level 0) for the plan steps[0..T) of g;
 * rerun[t] marks recomputation steps (may be NULL). */
void band_fill(const Overlay *ov, const Graph *g, const int *steps, int T, const unsigned char *rerun,
               int w, int rows, BandCell *cells);

/* The group's name without its details: the label up to ':' or " (". */
void band_short_label(const char *label, char *buf, int n);

/* Where group gi of ov runs in steps[0..T): first and last step of its
 * first runs (-1 none), and how many steps rerun one of its nodes. */
void band_group_steps(const Overlay *ov, int gi, const Graph *g, const int *steps, int T,
                      const unsigned char *rerun, int *first, int *last, int *reruns);

#endif
