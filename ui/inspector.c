/* inspector.c — what is alive at the cursor step (sim_live_at): producer,
 * size, why it is held, when produced, next read, and whether the plan
 * recomputes it. Compact under the curve, full as its own view. */
#include <stdio.h>
#include <stdlib.h>

#include "src/units.h"
#include "src/xalloc.h"
#include "ui/crt.h"
#include "ui/tui.h"

/* Runs of each node in the plan (caller frees). */
static int *run_counts(const Session *s)
{
    int *runs = xcalloc((size_t)s->g->n, sizeof *runs);
    for (int i = 0; i < s->plan.T; i++)
        runs[s->plan.steps[i]]++;
    return runs;
}

void inspector_draw(Tui *t, int y, int h, int w, int compact)
{
    Session *s = t->s;
    if (!s->have || h < 2) {
        tui_put(y, 0, w, s->have ? "" : "waiting for the first plan...");
        return;
    }
    if (t->cursor >= s->sim.T)
        t->cursor = s->sim.T - 1;
    if (t->cursor < 0)
        t->cursor = 0;
    LiveValue *lv;
    int n = sim_live_at(s->g, s->plan.steps, &s->sim, t->cursor, &lv);
    if (n < 0)
        return;
    int *runs = run_counts(s);
    char tot[32], line[512];
    units_format_bytes(s->sim.mem[t->cursor], tot, sizeof tot);
    snprintf(line, sizeof line, "step %d (%s): %s alive in %d values%s", t->cursor + 1,
             s->g->nodes[s->plan.steps[t->cursor]].id, tot, n,
             t->cursor == s->sim.peak_step ? "  <- peak" : "");
    attron(A_BOLD);
    tui_put(y, 0, w, line);
    attroff(A_BOLD);
    snprintf(line, sizeof line, "  %-22s %10s %-9s %9s %9s %s", "value", "size", "why", "produced",
             "next read", "recomputed");
    attron(A_UNDERLINE);
    tui_put(y + 1, 0, w, line);
    attroff(A_UNDERLINE);
    int rows = h - 2;
    int first = compact ? 0 : t->scroll;
    if (first > n - rows)
        first = n - rows > 0 ? n - rows : 0;
    if (!compact)
        t->scroll = first;
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
    free(runs);
    free(lv);
}
