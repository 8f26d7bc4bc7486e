/* view_compare.c — the Compare view: every registered solver at the
 * current budget side by side, the batch fit (fit_batch_units) for the
 * current solver with the budget as the memory, and its peak-vs-overhead
 * trade-off over a budget sweep. None of it is computed here: while the
 * view is shown it asks the session for these answers in the background
 * (session_background), and they are the solve service's final answers with each
 * solver's own options — the plans `remat solve` gives — so the current
 * solver's row is the status line's plan, a swept budget is instant on
 * the slider, and a solver picked after comparing needs no new solve. The
 * gap column measures each cost against the lower bound over the graph's
 * order at the budget, raised to the bound over every order where that is
 * higher (src/plan/bound.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/compare.h"
#include "src/plan/sim.h"
#include "src/session/sweep.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "ui/crt.h"
#include "ui/tui.h"

/* points of the trade-off sweep */
#define SWEEP_N 10
/* The lower bound on the cost at the budget for the gap column: the
 * bound, 0 while it is computed ("gap -"), -1 when there is none (no
 * column). */
static double bound_cost(Session *s)
{
    int rc;
    double lb;
    Err e;
    if (session_bound(s, s->budget, &rc, &lb, NULL, &e))
        return rc == ERR_OK && lb > 0 ? lb : -1;
    return 0;
}

/* What the view shows, asked of the session: every solver's row, the
 * bound, the batch fit of the current solver, its sweep. */
static void queue_work(Session *s)
{
    int n = solver_count();
    SessionWant *w = xcalloc((size_t)n + SWEEP_N + 2, sizeof *w);
    int m = 0;
    for (int i = 0; i < n; i++)
        w[m++] = (SessionWant){WANT_PLAN, solver_at(i), s->budget};
    w[m++] = (SessionWant){WANT_BOUND, NULL, s->budget};
    w[m++] = (SessionWant){WANT_FIT, s->cls, s->budget};
    int64_t b[SWEEP_N];
    sweep_budgets(s->min_peak, s->base_peak, SWEEP_N, b);
    for (int i = 0; i < SWEEP_N; i++)
        w[m++] = (SessionWant){WANT_PLAN, s->cls, b[i]};
    session_background(s, w, m);
    free(w);
}

static Reaction compare_tick(View *v, Tui *t, int shown)
{
    (void)v;
    if (shown)
        queue_work(t->s);
    return R_NONE;
}

static int compare_busy(const View *v, const Tui *t)
{
    (void)v;
    SessionStatus st;
    session_status(t->s, &st);
    return st.bg_left > 0;
}

static void draw_rows(Tui *t, int *row, int y, int h, int w)
{
    Session *s = t->s;
    int n = solver_count(), nw = 8;
    for (int i = 0; i < n; i++)
        if ((int)strlen(solver_at(i)->name) > nw)
            nw = (int)strlen(solver_at(i)->name);
    char line[1400];
    double lb = bound_cost(s);
    for (int i = 0; i < n && *row < y + h; i++, (*row)++) {
        const SolverClass *c = solver_at(i);
        const Answer *a = session_answer(s, c, s->budget);
        if (!a) {
            SessionWant want = {WANT_PLAN, c, s->budget};
            snprintf(line + 2, sizeof line - 2, "%-*s %s", nw, c->name,
                     session_computing(s, &want) ? "solving..." : "waiting");
            line[0] = c == s->cls ? '*' : ' ';
            line[1] = ' ';
            tui_put_attr(*row, 0, w, line, A_DIM);
            continue;
        }
        CompareRow r = {.cls = c, .rc = a->rc, .has_plan = a->has_plan, .secs = a->secs};
        snprintf(r.msg, sizeof r.msg, "%s", a->err.msg);
        if (a->has_plan) {
            r.peak = a->sim.peak;
            r.overhead = plan_overhead(&a->plan);
            r.cost = a->plan.cost;
        }
        compare_row_text(&r, s->budget, lb, nw, line + 2, sizeof line - 2);
        line[0] = c == s->cls ? '*' : ' ';
        line[1] = ' ';
        tui_put_attr(*row, 0, w, line, !a->has_plan ? crt_attr(CRT_ERROR)
                                       : r.peak > s->budget ? crt_attr(CRT_OVER) : A_NORMAL);
    }
}

/* The batch fit for the current solver with the budget as the memory:
 * two lines, without and with recomputation. Returns the rows used. */
static int draw_fit(Tui *t, int row, int rows, int w, const char *bud)
{
    Session *s = t->s;
    const SessionFit *f = session_fit(s, s->cls, s->budget);
    char line[1024];
    if (!f || f->rc) {
        snprintf(line, sizeof line, "batch fit in %s: %.900s", bud, f ? f->err.msg : "waiting...");
        tui_put_attr(row, 0, w, line, A_BOLD);
        return 1;
    }
    const FitResult *r = &f->fit;
    char one[32];
    units_format_bytes(r->peak_one, one, sizeof one);
    if (r->m_plain > 0)
        snprintf(line, sizeof line, "batch fit in %s: x%.2f of the batch without recomputation (x1 peaks at %s)", bud,
                 r->m_plain, one);
    else
        snprintf(line, sizeof line, "batch fit in %s: no batch without recomputation (x1 peaks at %s)", bud, one);
    tui_put_attr(row, 0, w, line, A_BOLD);
    if (rows < 2)
        return 1;
    if (r->m_remat > 0)
        snprintf(line, sizeof line, "%*s x%.2f with %s, cost %+.1f%%", 12 + (int)strlen(bud), "", r->m_remat,
                 s->cls->name, r->overhead_remat * 100);
    else
        snprintf(line, sizeof line, "%*s nothing fits with %s", 12 + (int)strlen(bud), "", s->cls->name);
    tui_put_attr(row + 1, 0, w, line, A_BOLD);
    return 2;
}

static void draw_tradeoff(Tui *t, int row, int y, int h, int w)
{
    Session *s = t->s;
    char line[600], lo[32], hi[32];
    units_format_bytes(s->min_peak, lo, sizeof lo);
    units_format_bytes(s->base_peak, hi, sizeof hi);
    snprintf(line, sizeof line, "Trade-off of %s: peak (up) vs cost overhead (right), %d budgets %s .. %s",
             s->cls->name, SWEEP_N, lo, hi);
    tui_put_attr(row++, 0, w, line, A_BOLD);
    int64_t b[SWEEP_N];
    sweep_budgets(s->min_peak, s->base_peak, SWEEP_N, b);
    TradeoffPoint pts[SWEEP_N];
    int have = 0;
    const char *err = NULL;
    double omax = 0;
    for (int i = 0; i < SWEEP_N; i++) {
        const Answer *en = session_answer(s, s->cls, b[i]);
        pts[i] = (TradeoffPoint){0, 0, 0};
        if (!en)
            continue;
        have++;
        if (en->has_plan) {
            pts[i] = (TradeoffPoint){1, en->sim.peak, plan_overhead(&en->plan)};
            if (pts[i].overhead > omax)
                omax = pts[i].overhead;
        } else if (en->rc != ERR_OVER_BUDGET) {
            err = en->err.msg;
        }
    }
    if (err && row < y + h) {
        tui_put(row, 2, w - 2, err);
        return;
    }
    if (have < SWEEP_N && row < y + h) {
        snprintf(line, sizeof line, "%c sweeping: %d of %d budgets", tui_spinner(t), have, SWEEP_N);
        tui_put(row++, 2, w - 2, line);
    }
    int gh = y + h - row - 1, gw = w - 12;
    if (gh > 12)
        gh = 12;
    if (gh < 2 || gw < 10 || !have)
        return;
    char *grid = xmalloc((size_t)gw * (size_t)gh);
    tradeoff_grid(pts, SWEEP_N, s->min_peak, s->base_peak, gw, gh, grid);
    for (int r = 0; r < gh; r++) {
        char lab[48] = "";
        if (r == 0)
            snprintf(lab, sizeof lab, "%10s", hi);
        else if (r == gh - 1)
            snprintf(lab, sizeof lab, "%10s", lo);
        tui_put(row + r, 0, 10, lab);
        mvaddstr(row + r, 10, crt_ascii() ? "|" : "\u2502");
        for (int k = 0; k < gw; k++)
            if (grid[(size_t)r * gw + k] != ' ')
                tui_put_attr(row + r, 11 + k, 1, "*", crt_attr(CRT_CURVE) | A_BOLD);
    }
    free(grid);
    snprintf(line, sizeof line, "+0%%%*s%+.1f%%", gw - 10, "", omax * 100);
    tui_put(row + gh, 11, w - 11, line);
}

/* What the gap column measures against, or why it is missing. */
static void draw_bound(Tui *t, int row, int w)
{
    Session *s = t->s;
    int rc;
    double lb;
    Err e;
    err_clear(&e);
    char line[400];
    SessionWant want = {WANT_BOUND, NULL, s->budget};
    int every, known = session_bound(s, s->budget, &rc, &lb, &every, &e);
    if (known && rc == ERR_OK)
        snprintf(line, sizeof line, every ? "gap: cost over the lower bound %.6g (no schedule in any order costs less)"
                                          : "gap: cost over the lower bound %.6g (no plan in the graph's order costs "
                                            "less; other orders can)",
                 lb);
    else if (known)
        snprintf(line, sizeof line, "no bound for the gap column: %.300s", e.msg);
    else if (session_computing(s, &want))
        snprintf(line, sizeof line, "%c computing the lower bound for the gap column...", tui_spinner(t));
    else
        return;
    tui_put_attr(row, 0, w, line, A_DIM);
}

static void compare_draw(View *v, Tui *t, int y, int h, int w)
{
    (void)v;
    Session *s = t->s;
    char line[300], bud[32];
    units_format_bytes(s->budget, bud, sizeof bud);
    int row = y;
    snprintf(line, sizeof line, "Every solver at budget %s", bud);
    tui_put_attr(row, 0, w, line, A_BOLD);
    SessionStatus st;
    session_status(s, &st);
    if (st.bg_left) {
        snprintf(line, sizeof line, "%c computing: %s, %d left", tui_spinner(t), st.bg_what[0] ? st.bg_what : "-",
                 st.bg_left);
        tui_put_attr(row, 32, w - 32, line, crt_attr(CRT_BUDGET));
    }
    row++;
    draw_rows(t, &row, y, h, w);
    if (row < y + h)
        draw_bound(t, row, w);
    row++;
    if (row < y + h)
        row += draw_fit(t, row, y + h - row, w, bud);
    row++;
    if (row < y + h)
        draw_tradeoff(t, row, y, h, w);
}

const ViewOps view_compare_ops = {
    .name = "Compare",
    .help = "every solver at the budget with its own options (peak, cost overhead, solve time, OVER "
            "when its best plan does not fit, or why it refused): the plans `remat solve` gives, so the "
            "current solver's row is the status line's plan; the largest batch that fits the budget with "
            "and without recomputation, and the current solver's peak against cost over 10 budgets; "
            "computed in the background while shown, kept for the slider",
    .draw = compare_draw,
    .tick = compare_tick,
    .busy = compare_busy,
};
