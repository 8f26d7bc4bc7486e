/* view_structure.c — two list views over the plan: the recomputed nodes
 * (runs, extra cost) and the solver's overlay from describe() (groups with
 * labels, indented by level), for whichever solver provides one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/units.h"
#include "src/xalloc.h"
#include "ui/crt.h"
#include "ui/tui.h"

static const Session *sort_s;
static const int *sort_runs;

static int by_extra(const void *a, const void *b)
{
    int u = *(const int *)a, v = *(const int *)b;
    double eu = (sort_runs[u] - 1) * sort_s->g->nodes[u].cost;
    double ev = (sort_runs[v] - 1) * sort_s->g->nodes[v].cost;
    return eu < ev ? 1 : eu > ev ? -1 : u - v;
}

/* Clamp t->scroll for n lines in rows and return it. */
static int clamp_scroll(Tui *t, int n, int rows)
{
    if (t->scroll > n - rows)
        t->scroll = n - rows;
    if (t->scroll < 0)
        t->scroll = 0;
    return t->scroll;
}

void view_recomputed_draw(Tui *t, int y, int h, int w)
{
    const Session *s = t->s;
    char line[512];
    if (!s->have) {
        tui_put(y, 0, w, "waiting for the first plan...");
        return;
    }
    int n = s->g->n;
    int *runs = xcalloc((size_t)n, sizeof *runs);
    int *list = xmallocarray((size_t)n, sizeof *list);
    int m = 0;
    for (int i = 0; i < s->plan.T; i++)
        runs[s->plan.steps[i]]++;
    for (int v = 0; v < n; v++)
        if (runs[v] > 1)
            list[m++] = v;
    sort_s = s;
    sort_runs = runs;
    qsort(list, (size_t)m, sizeof *list, by_extra);
    snprintf(line, sizeof line, "Recomputed nodes: %d of %d, %d extra runs, cost %+.1f%% over the baseline",
             m, n, s->sim.recomputations, plan_overhead(&s->plan) * 100);
    attron(A_BOLD);
    tui_put(y, 0, w, line);
    attroff(A_BOLD);
    if (m == 0) {
        tui_put(y + 2, 2, w - 2, "no node is recomputed: every value is kept until its last use");
    } else {
        snprintf(line, sizeof line, "  %-24s %6s %14s", "node", "runs", "extra cost");
        attron(A_UNDERLINE);
        tui_put(y + 1, 0, w, line);
        attroff(A_UNDERLINE);
        int first = clamp_scroll(t, m, h - 2);
        for (int i = first, r = 0; i < m && r < h - 2; i++, r++) {
            int v = list[i];
            snprintf(line, sizeof line, "  %-24.24s %6d %14.6g", s->g->nodes[v].id, runs[v],
                     (runs[v] - 1) * s->g->nodes[v].cost);
            tui_put(y + 2 + r, 0, w, line);
        }
    }
    free(runs);
    free(list);
}

void view_structure_draw(Tui *t, int y, int h, int w)
{
    const Session *s = t->s;
    const Overlay *ov = &s->ov;
    char line[1024];
    snprintf(line, sizeof line, "Structure of %s: %s", s->have_cls ? s->have_cls->name : s->cls->name,
             ov->title ? ov->title : ov->n ? "groups" : "");
    attron(A_BOLD);
    tui_put(y, 0, w, line);
    attroff(A_BOLD);
    if (!s->have || ov->n == 0) {
        snprintf(line, sizeof line, "solver %s shows no structure (it has no describe); plan of %d steps",
                 s->have_cls ? s->have_cls->name : s->cls->name, s->have ? s->plan.T : 0);
        tui_put(y + 2, 2, w - 2, line);
        return;
    }
    if (ov->width)
        snprintf(line, sizeof line, "%d groups, width %d", ov->n, ov->width);
    else
        snprintf(line, sizeof line, "%d groups", ov->n);
    tui_put(y + 1, 0, w, line);
    int first = clamp_scroll(t, ov->n, h - 2);
    for (int i = first, r = 0; i < ov->n && r < h - 2; i++, r++) {
        const OverlayGroup *gr = &ov->groups[i];
        int ind = gr->level * 2;
        if (ind > 20)
            ind = 20;
        /* bytes the group's values take (a block's activations, a cache's
         * checkpoints, a bag's values): what a recomputation choice weighs */
        int64_t bytes = 0;
        for (int k = 0; k < gr->n; k++)
            bytes += s->g->nodes[gr->nodes[k]].size;
        char bb[32];
        units_format_bytes(bytes, bb, sizeof bb);
        int u = snprintf(line, sizeof line, "%*s[%s] %s (%d, %s): ", ind, "",
                         overlay_kind_name(gr->kind), gr->label, gr->n, bb);
        for (int k = 0; k < gr->n && u < (int)sizeof line - 40; k++)
            u += snprintf(line + u, sizeof line - (size_t)u, "%s%s", k ? " " : "", s->g->nodes[gr->nodes[k]].id);
        tui_put(y + 2 + r, 2, w - 2, line);
    }
}
