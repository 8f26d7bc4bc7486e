/* band.c — the structure band under the curve (band.h). */
#include "render/band.h"

#include <stdlib.h>
#include <string.h>

#include "render/plot.h"
#include "src/xalloc.h"

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
        for (int k = 0; k < gr->n; k++)
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
