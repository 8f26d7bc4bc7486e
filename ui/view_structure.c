/* view_structure.c — the solver's own structure (its describe() overlay:
 * lower-set blocks and the caches between them, tree-decomposition bags
 * and separators, stages, segments), one group a line, indented by level,
 * with its node count and bytes. j/k select a group; the selection is
 * highlighted on the curve, in its band and in the graph view. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/band.h"
#include "src/base/units.h"
#include "ui/crt.h"
#include "ui/tui.h"

typedef struct StructureState {
    int scroll;
} StructureState;

static void structure_draw(View *v, Tui *t, int y, int h, int w)
{
    StructureState *st = v->st;
    const Session *s = t->s;
    const Overlay *ov = &s->ov;
    char line[1024];
    snprintf(line, sizeof line, "Structure of %s: %s", s->have_cls ? s->have_cls->name : s->cls->name,
             ov->title ? ov->title : ov->n ? "groups" : "");
    tui_put_attr(y, 0, w, line, A_BOLD);
    if (!s->have || ov->n == 0) {
        snprintf(line, sizeof line, "solver %s shows no structure (it has no describe); plan of %d steps",
                 s->have_cls ? s->have_cls->name : s->cls->name, s->have ? s->plan.T : 0);
        tui_put(y + 2, 2, w - 2, line);
        return;
    }
    int n = snprintf(line, sizeof line, "%d group%s", ov->n, plural_s(ov->n));
    if (ov->width)
        n += snprintf(line + n, sizeof line - (size_t)n, ", width %d", ov->width);
    if (t->sel_group >= 0 && t->sel_group < ov->n) {
        int first, last, reruns;
        band_group_steps(ov, t->sel_group, s->g, s->plan.steps, s->plan.T, s->facts.rerun, &first, &last, &reruns);
        snprintf(line + n, sizeof line - (size_t)n, "; selected %s: first runs at steps %d-%d, %d recomputation step%s",
                 ov->groups[t->sel_group].label, first + 1, last + 1, reruns, plural_s(reruns));
    } else {
        snprintf(line + n, sizeof line - (size_t)n, "; j/k select a group to see it on the curve and the graph");
    }
    tui_put(y + 1, 0, w, line);
    int rows = h - 2;
    if (t->sel_group >= 0) {
        if (t->sel_group < st->scroll)
            st->scroll = t->sel_group;
        if (t->sel_group >= st->scroll + rows)
            st->scroll = t->sel_group - rows + 1;
    }
    int first = tui_clamp_scroll(&st->scroll, ov->n, rows);
    for (int i = first, r = 0; i < ov->n && r < rows; i++, r++) {
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
        int u = snprintf(line, sizeof line, "%c %*s[%s] %s (%d, %s): ", i == t->sel_group ? '>' : ' ', ind, "",
                         overlay_kind_name(gr->kind), gr->label, gr->n, bb);
        for (int k = 0; k < gr->n && u < (int)sizeof line - 40; k++)
            u += snprintf(line + u, sizeof line - (size_t)u, "%s%s", k ? " " : "", s->g->nodes[gr->nodes[k]].id);
        tui_put_attr(y + 2 + r, 0, w, line, i == t->sel_group ? crt_attr(CRT_SELECT) | A_REVERSE : A_NORMAL);
    }
}

static Reaction structure_key(View *v, Tui *t, int ch)
{
    (void)v;
    int n = t->s->have ? t->s->ov.n : 0;
    switch (ch) {
    case 'j': case KEY_DOWN:
        if (n)
            t->sel_group = t->sel_group + 1 < n ? t->sel_group + 1 : n - 1;
        break;
    case 'k': case KEY_UP:
        if (t->sel_group > 0)
            t->sel_group--;
        break;
    case 'c':
        t->sel_group = -1;
        break;
    default:
        return R_NONE;
    }
    return R_BODY | R_TAKEN;
}

static const ViewKey structure_keys[] = {
    {"j/k", "select a group: its steps and nodes are highlighted in every view"},
    {"c", "clear the selection"},
    {NULL, NULL},
};

const ViewOps view_structure_ops = {
    .name = "Structure",
    .help = "the solver's own structure: Kusumoto's lower-set blocks and the caches between them, "
            "TWRemat's bags and separators by recursion level, chain and join stages, segments; "
            "each with its node count and bytes",
    .keys = structure_keys,
    .state_size = sizeof(StructureState),
    .draw = structure_draw,
    .key = structure_key,
};
