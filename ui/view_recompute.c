/* view_recompute.c — the Recompute view: at the time cursor (the peak by
 * default), the held values ranked by bytes x idle steps / cost
 * (src/session/advice.c), with what the shown plan does with each; j/k select one,
 * P pins it, F forces it (the solver runs again with pin=/force=). Under
 * it, every node the plan runs more than once, with its runs and extra
 * cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/session/advice.h"
#include "src/base/units.h"
#include "ui/crt.h"
#include "ui/tui.h"

typedef struct RecomputeState {
    int sel;            /* row of the ranking */
    int scroll;         /* first row of the ranking shown */
    int scroll2;        /* first row of the recomputed list */
    int n;              /* rows of the last ranking */
} RecomputeState;

/* 1 when id is in the comma-separated list. */
static int in_list(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !strncmp(p, id, n))
            return 1;
        p += len + (c ? 1 : 0);
    }
    return 0;
}

static void ranking(View *v, Tui *t, int y, int h, int w)
{
    RecomputeState *st = v->st;
    Session *s = t->s;
    char line[512];
    Advice *a;
    int n = advice_at(s->g, s->plan.steps, &s->sim, t->cursor, &a);
    st->n = n > 0 ? n : 0;
    snprintf(line, sizeof line, "Worth recomputing at step %d (%s)%s: held values, bytes x idle steps / cost",
             t->cursor + 1, s->g->nodes[s->plan.steps[t->cursor]].id,
             t->cursor == s->sim.peak_step ? ", the peak" : "");
    tui_put_attr(y, 0, w, line, A_BOLD);
    if (n <= 0) {
        tui_put(y + 1, 2, w - 2, "nothing is held idle here: every value alive is read or made at this step");
        free(a);
        return;
    }
    snprintf(line, sizeof line, "  %-22s %10s %6s %9s %11s %-6s %s", "value", "size", "idle", "cost", "score",
             "inputs", "plan");
    tui_put_attr(y + 1, 0, w, line, A_UNDERLINE);
    int rows = h - 2;
    if (st->sel >= n)
        st->sel = n - 1;
    if (st->sel < st->scroll)
        st->scroll = st->sel;
    if (st->sel >= st->scroll + rows)
        st->scroll = st->sel - rows + 1;
    tui_clamp_scroll(&st->scroll, n, rows);
    t->sel_node = a[st->sel].node;
    for (int i = st->scroll, r = 0; i < n && r < rows; i++, r++) {
        const Advice *x = &a[i];
        const char *id = s->g->nodes[x->node].id;
        char sz[32], plan[48];
        units_format_bytes(x->bytes, sz, sizeof sz);
        int runs = s->facts.runs[x->node];
        if (in_list(s->pin, id))
            snprintf(plan, sizeof plan, "pinned, %d run%s", runs, runs > 1 ? "s" : "");
        else if (in_list(s->force, id))
            snprintf(plan, sizeof plan, "forced, %d runs", runs);
        else if (runs > 1)
            snprintf(plan, sizeof plan, "recomputes (%d runs)", runs);
        else
            snprintf(plan, sizeof plan, "keeps it");
        snprintf(line, sizeof line, "%c %-22.22s %10s %6d %9.4g %11.4g %-6s %s", i == st->sel ? '>' : ' ', id, sz,
                 x->idle, x->cost, x->score, x->inputs_held ? "held" : "gone", plan);
        tui_put_attr(y + 2 + r, 0, w, line,
                     i == st->sel ? A_REVERSE : runs > 1 ? crt_attr(CRT_RERUN) : A_NORMAL);
    }
    free(a);
}

static void recomputed(View *v, Tui *t, int y, int h, int w)
{
    RecomputeState *st = v->st;
    const Session *s = t->s;
    const PlanFacts *f = &s->facts;
    char line[512];
    snprintf(line, sizeof line, "Recomputed nodes: %d of %d, %d extra runs, cost %+.1f%% over the baseline",
             f->n_recomputed, s->g->n, s->sim.recomputations, plan_overhead(&s->plan) * 100);
    tui_put_attr(y, 0, w, line, A_BOLD);
    if (f->n_recomputed == 0) {
        tui_put(y + 1, 2, w - 2, "no node is recomputed: every value is kept until its last use");
        return;
    }
    if (h < 3)
        return;
    snprintf(line, sizeof line, "  %-24s %6s %14s", "node", "runs", "extra cost");
    tui_put_attr(y + 1, 0, w, line, A_UNDERLINE);
    int first = tui_clamp_scroll(&st->scroll2, f->n_recomputed, h - 2);
    for (int i = first, r = 0; i < f->n_recomputed && r < h - 2; i++, r++) {
        int u = f->recomputed[i];
        snprintf(line, sizeof line, "  %-24.24s %6d %14.6g", s->g->nodes[u].id, f->runs[u],
                 (f->runs[u] - 1) * s->g->nodes[u].cost);
        tui_put(y + 2 + r, 0, w, line);
    }
}

static void recompute_draw(View *v, Tui *t, int y, int h, int w)
{
    if (!t->s->have) {
        tui_put(y, 0, w, "waiting for the first plan...");
        return;
    }
    int top = h / 2 + 1;
    ranking(v, t, y, top, w);
    recomputed(v, t, y + top + 1, h - top - 1, w);
}

static Reaction recompute_key(View *v, Tui *t, int ch)
{
    (void)t;
    RecomputeState *st = v->st;
    switch (ch) {
    case 'j': case KEY_DOWN:
        if (st->sel + 1 < st->n)
            st->sel++;
        break;
    case 'k': case KEY_UP:
        if (st->sel > 0)
            st->sel--;
        break;
    case 'J': st->scroll2++; break;
    case 'K': if (st->scroll2 > 0) st->scroll2--; break;
    default: return R_NONE;
    }
    return R_BODY | R_TAKEN;
}

static const ViewKey recompute_keys[] = {
    {"j/k", "select a value of the ranking (P pins it, F forces it, C clears)"},
    {"J/K", "scroll the recomputed nodes"},
    {NULL, NULL},
};

const ViewOps view_recompute_ops = {
    .name = "Recompute",
    .help = "at the time cursor, the held values worth recomputing (bytes x idle steps / cost) and "
            "what the plan does with each; pin or force one and the solver runs again; then "
            "every node the plan recomputes, with its runs and extra cost",
    .keys = recompute_keys,
    .state_size = sizeof(RecomputeState),
    .draw = recompute_draw,
    .key = recompute_key,
};
