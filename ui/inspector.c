/* inspector.c — what is alive at the cursor step (sim_live_at): producer,
 * size, why it is held, when produced, next read, and whether the plan
 * recomputes it. Compact under the curve, full as the Inspector view. */
#include <stdio.h>
#include <stdlib.h>

#include "render/plot.h"
#include "src/base/units.h"
#include "ui/crt.h"
#include "ui/tui.h"
#include "ui/widgets.h"

void inspector_table(Tui *t, int y, int h, int w, int compact, int *scroll)
{
    Session *s = t->s;
    if (!s->have || h < 2) {
        tui_put(y, 0, w, s->have ? "" : "waiting for the first plan...");
        return;
    }
    LiveValue *lv;
    int n = sim_live_at(s->g, s->plan.steps, &s->sim, t->cursor, &lv);
    if (n < 0)
        return;
    const int *runs = s->facts.runs;
    char tot[48], bud[48], line[512];
    plot_bytes_pair(s->sim.mem[t->cursor], s->budget, tot, sizeof tot, bud, sizeof bud);
    int over = s->sim.mem[t->cursor] > s->budget;
    snprintf(line, sizeof line, "step %d (%s): %s alive in %d value%s%s%s%s", t->cursor + 1,
             s->g->nodes[s->plan.steps[t->cursor]].id, tot, n, plural_s(n), over ? ", over the budget " : "",
             over ? bud : "", t->cursor == s->sim.peak_step ? "  <- peak" : "");
    tui_put_attr(y, 0, w, line, over ? crt_attr(CRT_OVER) : A_BOLD);
    snprintf(line, sizeof line, "  %-22s %10s %-9s %9s %9s %s", "value", "size", "why", "produced",
             "next read", "recomputed");
    tui_put_attr(y + 1, 0, w, line, A_UNDERLINE);
    int rows = h - 2;
    int first = compact ? 0 : tui_clamp_scroll(scroll, n, rows);
    for (int i = first, r = 0; i < n && r < rows; i++, r++) {
        char rc[24];
        LiveCells c;
        live_cells(&lv[i], s->sim.T, &c);
        int k = runs[lv[i].node];
        if (k > 1)
            snprintf(rc, sizeof rc, "yes, %d runs", k);
        else
            snprintf(rc, sizeof rc, "%s", lv[i].reason == LIVE_INPUT ? "" : "no");
        if (compact && r == rows - 1 && n - i > 1)
            snprintf(line, sizeof line, "  ... %d more (Tab: inspector view)", n - i);
        else
            snprintf(line, sizeof line, "  %-22.22s %10s %-9s %9s %9s %s", s->g->nodes[lv[i].node].id,
                     c.size, live_reason_name(lv[i].reason), c.produced, c.next_read, rc);
        tui_put(y + 2 + r, 0, w, line);
    }
    free(lv);
}

typedef struct InspectState {
    int scroll;
} InspectState;

static void inspect_draw(View *v, Tui *t, int y, int h, int w)
{
    InspectState *st = v->st;
    inspector_table(t, y, h, w, 0, &st->scroll);
}

static Reaction inspect_key(View *v, Tui *t, int ch)
{
    (void)t;
    InspectState *st = v->st;
    if (ch == 'j' || ch == KEY_DOWN)
        st->scroll++;
    else if ((ch == 'k' || ch == KEY_UP) && st->scroll > 0)
        st->scroll--;
    else
        return R_NONE;
    return R_BODY | R_TAKEN;
}

static const ViewKey inspect_keys[] = {{"j/k", "scroll the values"}, {NULL, NULL}};

const ViewOps view_inspect_ops = {
    .name = "Inspector",
    .help = "every value alive at the time cursor: what holds the memory there and why (columns below)",
    .keys = inspect_keys,
    .state_size = sizeof(InspectState),
    .draw = inspect_draw,
    .key = inspect_key,
};
