/* view_compare.c — the Compare view: every registered solver at the
 * current budget side by side, the batch fit (fit_batch_units) for the
 * current solver with the budget as the memory, and its peak-vs-overhead
 * trade-off over a budget sweep. None of it is computed here: while the
 * view is shown it queues the work it lacks as background tasks of the
 * session's worker (src/session/session.h), whose answers land in the session's
 * cache, so a swept budget is instant on the slider and a solver picked
 * after comparing needs no new prepare. The gap column measures each
 * cost against the cover bound on the graph's order at the budget
 * (solvers/checkmate/cover.c), computed by a one-shot task of the view (a
 * child process that cancel stops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/explore.h"
#include "solvers/checkmate/checkmate.h"
#include "src/plan/sim.h"
#include "src/session/sweep.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "ui/bg.h"
#include "ui/crt.h"
#include "ui/tui.h"

/* points of the trade-off sweep */
#define SWEEP_N 10
/* An exact or annealing solver compared with its default time limit could
 * hold the table for a minute: rows of solvers with a time_limit option the
 * user did not set get this one (and say so). */
#define COMPARE_TIME_LIMIT "3"

#define BOUNDS_MAX 8

/* The cover bound at one budget (solvers/checkmate/checkmate.h). */
typedef struct Bound {
    int64_t budget;
    int rc;
    double lb;
    char msg[200];
} Bound;

typedef struct CompareState {
    unsigned long long sig;     /* of the task list last queued */
    /* the bound is a child process of its own, run from a one-shot task on
     * a copy of the graph (src/ cannot call solvers/) */
    Bg bg;
    int bg_ok, running;
    Graph *g;
    Bound task;
    Bound bounds[BOUNDS_MAX];
    int n_bounds, next;
} CompareState;

static void *bound_work(void *arg)
{
    CompareState *st = arg;
    Err e;
    err_clear(&e);
    int n;
    int *ord = sim_baseline_order(st->g, &n);
    st->task.rc = cover_bound(st->g, ord, n, st->task.budget, COVER_BOUND_SECONDS, &st->bg.prog, &st->task.lb, &e);
    free(ord);
    snprintf(st->task.msg, sizeof st->task.msg, "%.199s", e.msg);
    return NULL;
}

static const Bound *bound_find(const CompareState *st, int64_t budget)
{
    for (int i = 0; i < st->n_bounds; i++)
        if (st->bounds[i].budget == budget)
            return &st->bounds[i];
    return NULL;
}

/* Collect a finished bound; start the one for budget when missing. */
static Reaction bound_tick(CompareState *st, const Session *s, int shown)
{
    Reaction r = R_NONE;
    if (!st->bg_ok)
        return r;
    if (st->running && bg_reap(&st->bg)) {
        st->running = 0;
        if (st->task.rc != ERR_CANCELLED) {
            int at = st->n_bounds < BOUNDS_MAX ? st->n_bounds++ : st->next++ % BOUNDS_MAX;
            st->bounds[at] = st->task;
        }
        r |= R_BODY;
    }
    if (st->running && st->task.budget != s->budget && shown)
        atomic_store(&st->bg.prog.cancel, 1);   /* another budget now */
    if (shown && !st->running && !bound_find(st, s->budget)) {
        if (!st->g)
            st->g = graph_clone(s->g);
        st->task = (Bound){.budget = s->budget, .rc = ERR_CANCELLED};
        if (bg_start(&st->bg, bound_work, st) == 0)
            st->running = 1;
    }
    return r;
}

static void compare_init(View *v, Tui *t)
{
    (void)t;
    CompareState *st = v->st;
    st->bg_ok = bg_init(&st->bg) == 0;
}

static void compare_free_view(View *v)
{
    CompareState *st = v->st;
    if (st->bg_ok)
        bg_free(&st->bg);   /* CBC runs in a child process that cancel stops */
    graph_free(st->g);
}

static int compare_fd(const View *v)
{
    const CompareState *st = v->st;
    return st->bg_ok ? st->bg.fd[0] : -1;
}

/* Options of cls's row: its effective options, plus the time limit. */
static int row_opts(Session *s, const SolverClass *cls, SolverOpts *o)
{
    session_effective_opts(s, cls, o);
    int has = 0;
    for (const SolverParam *p = cls->params; p && p->name; p++)
        has |= !strcmp(p->name, "time_limit");
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->key[i], "time_limit"))
            return 0;
    if (!has)
        return 0;
    Err e;
    solver_opts_add(o, "time_limit=" COMPARE_TIME_LIMIT, &e);
    return 1;
}

/* The lower bound on the cost at the budget for the gap column: the
 * bound, 0 while it is computed ("gap -"), -1 when there is none (no
 * column). */
static double bound_cost(const CompareState *st, const Session *s)
{
    const Bound *b = bound_find(st, s->budget);
    if (b)
        return b->rc == ERR_OK && b->lb > 0 ? b->lb : -1;
    return st->running ? 0 : -1;
}

static unsigned long long hash(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Queue what the view shows and the cache lacks: every solver's row, the
 * sweep of the current solver, its batch fit. */
static void queue_work(CompareState *st, Session *s)
{
    int n = solver_count();
    int cap = n + SWEEP_N + 1;
    JobTask *tk = xcalloc((size_t)cap, sizeof *tk);
    SolverOpts *op = xcalloc((size_t)n + 1, sizeof *op);
    int m = 0;
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        row_opts(s, solver_at(i), &op[i]);
        tk[m++] = (JobTask){JOB_PLAN, solver_at(i), &op[i], s->budget};
    }
    SolverOpts cur;
    session_effective_opts(s, s->cls, &cur);
    int64_t b[SWEEP_N];
    sweep_budgets(s->min_peak, s->base_peak, SWEEP_N, b);
    for (int i = 0; i < SWEEP_N; i++)
        tk[m++] = (JobTask){JOB_PLAN, s->cls, &cur, b[i]};
    tk[m++] = (JobTask){JOB_FIT, s->cls, &cur, s->budget};
    for (int i = 0; i < m; i++) {
        char *k = job_opts_key(tk[i].opts);
        h = hash(h, &tk[i].cls, sizeof tk[i].cls);
        h = hash(h, &tk[i].budget, sizeof tk[i].budget);
        h = hash(h, &tk[i].kind, sizeof tk[i].kind);
        h = hash(h, k, strlen(k));
        free(k);
    }
    if (h != st->sig) {
        session_background(s, tk, m);
        st->sig = h;
    }
    for (int i = 0; i < n; i++)
        solver_opts_done(&op[i]);
    solver_opts_done(&cur);
    free(op);
    free(tk);
}

static Reaction compare_tick(View *v, Tui *t, int shown)
{
    if (shown)
        queue_work(v->st, t->s);
    return bound_tick(v->st, t->s, shown);
}

static int compare_busy(const View *v, const Tui *t)
{
    const CompareState *cs = v->st;
    JobStatus st;
    session_status(t->s, &st);
    return st.bg_left > 0 || cs->running;
}

static void draw_rows(const CompareState *cs, Tui *t, int *row, int y, int h, int w)
{
    Session *s = t->s;
    int n = solver_count(), nw = 8;
    for (int i = 0; i < n; i++)
        if ((int)strlen(solver_at(i)->name) > nw)
            nw = (int)strlen(solver_at(i)->name);
    JobStatus js;
    session_status(s, &js);
    char line[1400];
    for (int i = 0; i < n && *row < y + h; i++, (*row)++) {
        const SolverClass *c = solver_at(i);
        SolverOpts o;
        int limited = row_opts(s, c, &o);
        const SessionEntry *en = session_find(s, c, &o, s->budget);
        solver_opts_done(&o);
        if (!en) {
            int now = js.running && js.running_bg && js.kind == JOB_PLAN && js.cls == c && js.budget == s->budget;
            snprintf(line + 2, sizeof line - 2, "%-*s %s", nw, c->name, now ? "solving..." : "waiting");
            line[0] = c == s->cls ? '*' : ' ';
            line[1] = ' ';
            tui_put_attr(*row, 0, w, line, A_DIM);
            continue;
        }
        CompareRow r = {.cls = c, .rc = en->rc, .has_plan = en->has_plan, .secs = en->secs};
        snprintf(r.msg, sizeof r.msg, "%s", en->err.msg);
        if (en->has_plan) {
            r.peak = en->sim.peak;
            r.overhead = plan_overhead(&en->plan);
            r.cost = en->plan.cost;
        }
        compare_row_text(&r, s->budget, bound_cost(cs, s), nw, line + 2, sizeof line - 2);
        if (limited && en->has_plan)
            snprintf(line + strlen(line), sizeof line - strlen(line), "  (%s s limit)", COMPARE_TIME_LIMIT);
        line[0] = c == s->cls ? '*' : ' ';
        line[1] = ' ';
        tui_put_attr(*row, 0, w, line, !en->has_plan ? crt_attr(CRT_ERROR)
                                       : r.peak > s->budget ? crt_attr(CRT_OVER) : A_NORMAL);
    }
}

/* The batch fit for the current solver with the budget as the memory:
 * two lines, without and with recomputation. Returns the rows used. */
static int draw_fit(Tui *t, int row, int rows, int w, const char *bud)
{
    Session *s = t->s;
    SolverOpts cur;
    session_effective_opts(s, s->cls, &cur);
    const SessionFit *f = session_fit_find(s, s->cls, &cur, s->budget);
    solver_opts_done(&cur);
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
    SolverOpts cur;
    session_effective_opts(s, s->cls, &cur);
    int64_t b[SWEEP_N];
    sweep_budgets(s->min_peak, s->base_peak, SWEEP_N, b);
    TradeoffPoint pts[SWEEP_N];
    int have = 0;
    const char *err = NULL;
    double omax = 0;
    for (int i = 0; i < SWEEP_N; i++) {
        const SessionEntry *en = session_find(s, s->cls, &cur, b[i]);
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
    solver_opts_done(&cur);
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
static void draw_bound(const CompareState *cs, Tui *t, int row, int w)
{
    const Session *s = t->s;
    const Bound *b = bound_find(cs, s->budget);
    char line[400];
    if (b && b->rc == ERR_OK)
        snprintf(line, sizeof line, "gap: cost over the cover bound %.6g (no plan in the graph's order costs less; "
                 "other orders can)", b->lb);
    else if (b)
        snprintf(line, sizeof line, "no bound for the gap column: %.300s", b->msg);
    else if (cs->running)
        snprintf(line, sizeof line, "%c computing the cover bound for the gap column...", tui_spinner(t));
    else
        return;
    tui_put_attr(row, 0, w, line, A_DIM);
}

static void compare_draw(View *v, Tui *t, int y, int h, int w)
{
    const CompareState *cs = v->st;
    Session *s = t->s;
    char line[300], bud[32];
    units_format_bytes(s->budget, bud, sizeof bud);
    int row = y;
    snprintf(line, sizeof line, "Every solver at budget %s", bud);
    tui_put_attr(row, 0, w, line, A_BOLD);
    JobStatus js;
    session_status(s, &js);
    if (js.bg_left) {
        snprintf(line, sizeof line, "%c computing: %s %s, %d left", tui_spinner(t),
                 js.kind == JOB_FIT ? "batch fit with" : "solving", js.cls ? js.cls->name : "-", js.bg_left);
        tui_put_attr(row, 32, w - 32, line, crt_attr(CRT_BUDGET));
    }
    row++;
    draw_rows(cs, t, &row, y, h, w);
    if (row < y + h)
        draw_bound(cs, t, row, w);
    row++;
    if (row < y + h)
        row += draw_fit(t, row, y + h - row, w, bud);
    row++;
    if (row < y + h)
        draw_tradeoff(t, row, y, h, w);
}

const ViewOps view_compare_ops = {
    .name = "Compare",
    .help = "every solver at the budget (peak, cost overhead, solve time, OVER when its best plan "
            "does not fit, or why it refused), the largest batch that fits the budget with and "
            "without recomputation, and the current solver's peak against cost over 10 budgets; "
            "computed in the background while shown, kept for the slider",
    .state_size = sizeof(CompareState),
    .init = compare_init,
    .draw = compare_draw,
    .tick = compare_tick,
    .fd = compare_fd,
    .busy = compare_busy,
    .free = compare_free_view,
};
