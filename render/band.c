/* band.c — the structure band under the curve (band.h): blocks, stages and
 * segments where their nodes run, bags and separators as nested spans. */
#include "render/band.h"

#include <stdlib.h>
#include <string.h>

#include "render/plot.h"
#include "src/base/xalloc.h"

int band_rows(const Overlay *ov, int max_rows)
{
    int levels = 0;
    for (int i = 0; i < ov->n; i++)
        if (ov->groups[i].level + 1 > levels)
            levels = ov->groups[i].level + 1;
    return levels < max_rows ? levels : max_rows;
}

void band_short_label(const char *label, char *buf, int n)
{
    int k = 0;
    for (const char *p = label ? label : ""; *p && k < n - 1; p++) {
        if (*p == ':' || (*p == ' ' && p[1] == '('))
            break;
        buf[k++] = *p;
    }
    buf[k] = '\0';
}

/* Bags and separators are a recursion: each is drawn as the span of steps
 * its own nodes and those of the groups under it (parent links) run in,
 * so each level's spans nest inside the level above. */
static int is_span(const OverlayGroup *gr)
{
    return gr->kind == OVERLAY_BAG || gr->kind == OVERLAY_SEPARATOR;
}

/* lo[i]..hi[i]: the steps of span group i and its descendants (-1: none). */
static void span_steps(const Overlay *ov, const Graph *g, const int *steps, int T, int *lo, int *hi)
{
    /* the span groups each node belongs to, as a list per node */
    int *off = xcalloc((size_t)g->n + 2, sizeof *off);
    for (int i = 0; i < ov->n; i++)
        for (int k = 0; is_span(&ov->groups[i]) && k < ov->groups[i].n; k++)
            if (ov->groups[i].nodes[k] >= 0 && ov->groups[i].nodes[k] < g->n)
                off[ov->groups[i].nodes[k] + 1]++;
    for (int v = 0; v < g->n; v++)
        off[v + 1] += off[v];
    int *idx = xmallocarray((size_t)off[g->n] + 1, sizeof *idx), *fill = xcalloc((size_t)g->n + 1, sizeof *fill);
    for (int i = 0; i < ov->n; i++)
        for (int k = 0; is_span(&ov->groups[i]) && k < ov->groups[i].n; k++) {
            int v = ov->groups[i].nodes[k];
            if (v >= 0 && v < g->n)
                idx[off[v] + fill[v]++] = i;
        }
    for (int i = 0; i < ov->n; i++)
        lo[i] = hi[i] = -1;
    for (int t = 0; t < T; t++)
        for (int k = off[steps[t]]; k < off[steps[t] + 1]; k++)
            for (int gi = idx[k], depth = 0; gi >= 0 && gi < ov->n && depth <= ov->n; gi = ov->groups[gi].parent, depth++) {
                if (lo[gi] < 0 || t < lo[gi])
                    lo[gi] = t;
                if (t > hi[gi])
                    hi[gi] = t;
            }
    free(off);
    free(idx);
    free(fill);
}

void band_fill(const Overlay *ov, const Graph *g, const int *steps, int T, const unsigned char *rerun,
               int w, int rows, BandCell *cells)
{
    for (int i = 0; i < rows * w; i++)
        cells[i] = (BandCell){-1, 0, ' '};
    if (rows < 1 || w < 1 || T < 1)
        return;
    int *ng = xmallocarray((size_t)rows * (size_t)g->n + 1, sizeof *ng);
    for (int i = 0; i < rows * g->n; i++)
        ng[i] = -1;
    for (int i = 0; i < ov->n; i++) {
        const OverlayGroup *gr = &ov->groups[i];
        int r = gr->level < rows ? gr->level : rows - 1;
        for (int k = 0; !is_span(gr) && k < gr->n; k++)
            if (gr->nodes[k] >= 0 && gr->nodes[k] < g->n)
                ng[r * g->n + gr->nodes[k]] = i;
    }
    for (int t = 0; t < T; t++) {
        /* every column of the step when steps are wider than a column */
        int c0 = plot_col_of_step(t, T, w), c1 = t + 1 < T ? plot_col_of_step(t + 1, T, w) - 1 : w - 1;
        for (int c = c0; c <= (c1 > c0 ? c1 : c0); c++)
            for (int r = 0; r < rows; r++) {
                int gi = ng[r * g->n + steps[t]];
                if (gi < 0)
                    continue;
                BandCell *bc = &cells[r * w + c];
                bc->group = gi;
                bc->rerun = rerun ? rerun[t] : 0;
            }
    }
    free(ng);
    int *lo = xmallocarray((size_t)ov->n + 1, sizeof *lo), *hi = xmallocarray((size_t)ov->n + 1, sizeof *hi);
    span_steps(ov, g, steps, T, lo, hi);
    /* longest first, so that where spans of one row overlap (deeper
     * levels share the last row) the inner ones stay visible */
    int *ord = xmallocarray((size_t)ov->n + 1, sizeof *ord), m = 0;
    for (int i = 0; i < ov->n; i++)
        if (is_span(&ov->groups[i]) && lo[i] >= 0)
            ord[m++] = i;
    for (int a = 1; a < m; a++)
        for (int b = a; b > 0 && hi[ord[b]] - lo[ord[b]] > hi[ord[b - 1]] - lo[ord[b - 1]]; b--) {
            int x = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = x;
        }
    for (int k = 0; k < m; k++) {
        int i = ord[k];
        int r = ov->groups[i].level < rows ? ov->groups[i].level : rows - 1;
        int c1 = hi[i] + 1 < T ? plot_col_of_step(hi[i] + 1, T, w) - 1 : w - 1;
        for (int c = plot_col_of_step(lo[i], T, w); c <= c1 || c == plot_col_of_step(lo[i], T, w); c++)
            cells[r * w + c] = (BandCell){i, 0, ' '};
    }
    free(ord);
    free(lo);
    free(hi);
    /* runs of one (group, rerun) become "[label---]" or "label~~~" */
    for (int r = 0; r < rows; r++) {
        BandCell *row = &cells[r * w];
        for (int c0 = 0; c0 < w;) {
            int c1 = c0;
            while (c1 + 1 < w && row[c1 + 1].group == row[c0].group && row[c1 + 1].rerun == row[c0].rerun)
                c1++;
            if (row[c0].group >= 0) {
                int len = c1 - c0 + 1, re = row[c0].rerun;
                for (int c = c0; c <= c1; c++)
                    row[c].ch = re ? '~' : '-';
                if (!re && len >= 2) {
                    row[c0].ch = '[';
                    row[c1].ch = ']';
                }
                char lab[64];
                band_short_label(ov->groups[row[c0].group].label, lab, sizeof lab);
                int ll = (int)strlen(lab), at = re ? c0 : c0 + 1;
                if (ll > 0 && ll <= len - (re ? 0 : 2))
                    for (int k = 0; k < ll; k++)
                        row[at + k].ch = lab[k];
            }
            c0 = c1 + 1;
        }
    }
}

void band_group_steps(const Overlay *ov, int gi, const Graph *g, const int *steps, int T,
                      const unsigned char *rerun, int *first, int *last, int *reruns)
{
    *first = *last = -1;
    *reruns = 0;
    if (gi < 0 || gi >= ov->n)
        return;
    unsigned char *in = xcalloc((size_t)g->n + 1, 1);
    const OverlayGroup *gr = &ov->groups[gi];
    for (int k = 0; k < gr->n; k++)
        if (gr->nodes[k] >= 0 && gr->nodes[k] < g->n)
            in[gr->nodes[k]] = 1;
    for (int t = 0; t < T; t++) {
        if (!in[steps[t]])
            continue;
        if (rerun && rerun[t]) {
            (*reruns)++;
            continue;
        }
        if (*first < 0)
            *first = t;
        *last = t;
    }
    free(in);
}
