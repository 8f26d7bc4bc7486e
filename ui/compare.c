/* compare.c — the Compare view: every registered solver at the current
 * budget side by side, the batch-fitting answer (fit_batch) for the current
 * solver, and its peak-vs-overhead trade-off over a budget sweep. All of it
 * runs in a background task (ui/bg.c), one (budget, solver) at a time;
 * answers are cached per key and the sweep's plans go into the session's
 * plan cache so the slider finds them at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/explore.h"
#include "src/fit.h"
#include "src/units.h"
#include "src/xalloc.h"
#include "ui/bg.h"
#include "ui/crt.h"
#include "ui/tui.h"

#define CMP_CACHE 16

typedef struct CmpEntry {
    int64_t budget;
    const SolverClass *cls;
    int n;
    CompareRow *rows;
    int fit_rc;
    char fit_err[256];
    FitResult fit;
    unsigned stamp;
} CmpEntry;

typedef struct SweepEntry {
    const SolverClass *cls;
    int rc;
    char err[256];
    int n;
    SweepPoint pts[COMPARE_SWEEP_N];
} SweepEntry;

/* what the task works on and writes; read by the UI after bg_reap only */
typedef struct CmpTask {
    const Graph *g;
    const SolverClass *cls, *opts_cls;
    const SolverOpts *opts;
    int64_t budget, lo, hi;
    int want_rows, want_sweep;
    atomic_int stage;       /* 0 solvers, 1 fit, 2 sweep */
    int n;
    CompareRow *rows;
    int cancelled;
    int fit_rc;
    Err fit_err;
    FitResult fit;
    int sweep_rc;
    Err sweep_err;
    SweepPoint pts[COMPARE_SWEEP_N];
    Progress *prog;
    atomic_int *at;
} CmpTask;

struct Compare {
    Bg bg;
    CmpTask task;
    int running;
    CmpEntry ent[CMP_CACHE];
    int n_ent;
    unsigned stamp;
    SweepEntry sweep[16];
    int n_sweep;
};

static const SolverOpts *opts_for(const Session *s, const SolverClass *cls)
{
    return cls == s->opts_cls ? &s->opts : NULL;
}

static void *cmp_work(void *arg)
{
    CmpTask *t = arg;
    if (t->want_rows) {
        atomic_store(&t->stage, 0);
        t->rows = xcalloc((size_t)solver_count(), sizeof *t->rows);
        t->n = compare_solvers(t->g, t->budget, t->opts_cls, t->opts, t->rows, t->prog, t->at);
        if (t->n < 0) {
            t->cancelled = 1;
            return NULL;
        }
        atomic_store(&t->stage, 1);
        err_clear(&t->fit_err);
        t->fit_rc = fit_batch(t->g, t->cls, t->cls == t->opts_cls ? t->opts : NULL, t->budget, -1, 1024,
                              &t->fit, t->prog, &t->fit_err);
        if (t->fit_rc == ERR_CANCELLED) {
            t->cancelled = 1;
            return NULL;
        }
    }
    if (t->want_sweep) {
        atomic_store(&t->stage, 2);
        int64_t b[COMPARE_SWEEP_N];
        sweep_budgets(t->lo, t->hi, COMPARE_SWEEP_N, b);
        err_clear(&t->sweep_err);
        t->sweep_rc = sweep_run(t->g, t->cls, t->cls == t->opts_cls ? t->opts : NULL, b, COMPARE_SWEEP_N,
                                t->pts, t->prog, t->at, &t->sweep_err);
        if (t->sweep_rc == ERR_CANCELLED)
            t->cancelled = 1;
    }
    return NULL;
}

Compare *compare_new(void)
{
    Compare *c = xcalloc(1, sizeof *c);
    if (bg_init(&c->bg)) {
        free(c);
        return NULL;
    }
    return c;
}

static void task_free(CmpTask *t)
{
    free(t->rows);
    t->rows = NULL;
    if (t->want_rows)
        fit_result_done(&t->fit);
    if (t->want_sweep)
        sweep_points_done(t->pts, COMPARE_SWEEP_N);
}

void compare_free(Compare *c)
{
    if (!c)
        return;
    if (c->running) {
        bg_free(&c->bg);
        task_free(&c->task);
    } else {
        bg_free(&c->bg);
    }
    for (int i = 0; i < c->n_ent; i++) {
        free(c->ent[i].rows);
        fit_result_done(&c->ent[i].fit);
    }
    for (int i = 0; i < c->n_sweep; i++)
        sweep_points_done(c->sweep[i].pts, c->sweep[i].n);
    free(c);
}

int compare_fd(const Compare *c)
{
    return c ? c->bg.fd[0] : -1;
}

static CmpEntry *find_ent(Compare *c, int64_t budget, const SolverClass *cls)
{
    for (int i = 0; i < c->n_ent; i++)
        if (c->ent[i].budget == budget && c->ent[i].cls == cls)
            return &c->ent[i];
    return NULL;
}

static SweepEntry *find_sweep(Compare *c, const SolverClass *cls)
{
    for (int i = 0; i < c->n_sweep; i++)
        if (c->sweep[i].cls == cls)
            return &c->sweep[i];
    return NULL;
}

/* Store a finished task's answers (ownership moves into the caches). */
static void take(Tui *t, Compare *c)
{
    CmpTask *k = &c->task;
    Session *s = t->s;
    if (k->want_rows && !k->cancelled) {
        CmpEntry *en;
        if (c->n_ent < CMP_CACHE) {
            en = &c->ent[c->n_ent++];
        } else {
            en = &c->ent[0];
            for (int i = 1; i < c->n_ent; i++)
                if (c->ent[i].stamp < en->stamp)
                    en = &c->ent[i];
            free(en->rows);
            fit_result_done(&en->fit);
        }
        en->budget = k->budget;
        en->cls = k->cls;
        en->n = k->n;
        en->rows = k->rows;
        k->rows = NULL;
        en->fit_rc = k->fit_rc;
        snprintf(en->fit_err, sizeof en->fit_err, "%.255s", k->fit_err.msg);
        en->fit = k->fit;
        fit_result_init(&k->fit);
        en->stamp = ++c->stamp;
    }
    if (k->want_sweep && !k->cancelled && c->n_sweep < 16) {
        SweepEntry *sw = &c->sweep[c->n_sweep++];
        sw->cls = k->cls;
        sw->rc = k->sweep_rc;
        snprintf(sw->err, sizeof sw->err, "%.255s", k->sweep_err.msg);
        sw->n = COMPARE_SWEEP_N;
        memcpy(sw->pts, k->pts, sizeof sw->pts);
        for (int i = 0; i < COMPARE_SWEEP_N; i++) {
            plan_init(&k->pts[i].plan);
            const SweepPoint *pt = &sw->pts[i];
            if (!sw->rc && !session_cached(s, k->cls, pt->budget) && pt->rc != ERR_CANCELLED)
                session_cache_put(s, k->cls, pt->budget, pt->rc, &pt->err, pt->has_plan ? &pt->plan : NULL,
                                  pt->secs);
        }
    }
    task_free(k);
}

void compare_tick(Tui *t)
{
    Compare *c = t->cmp;
    if (!c)
        return;
    Session *s = t->s;
    if (c->running && bg_reap(&c->bg)) {
        c->running = 0;
        take(t, c);
    }
    int want_rows = !find_ent(c, s->budget, s->cls);
    int want_sweep = !find_sweep(c, s->cls);
    if (c->running) {
        /* a task for another key: cancel it, the current key starts next */
        if ((c->task.want_rows && (c->task.budget != s->budget || c->task.cls != s->cls)) ||
            (!c->task.want_rows && want_rows))
            atomic_store(&c->bg.prog.cancel, 1);
        return;
    }
    if (t->view != VIEW_COMPARE || (!want_rows && !want_sweep))
        return;
    CmpTask *k = &c->task;
    memset(k, 0, sizeof *k);
    k->g = s->g;
    k->cls = s->cls;
    k->opts_cls = s->opts_cls;
    k->opts = opts_for(s, s->opts_cls);
    k->budget = s->budget;
    k->lo = s->min_peak;
    k->hi = s->base_peak;
    k->want_rows = want_rows;
    k->want_sweep = want_sweep;
    fit_result_init(&k->fit);
    for (int i = 0; i < COMPARE_SWEEP_N; i++)
        plan_init(&k->pts[i].plan);
    k->prog = &c->bg.prog;
    k->at = &c->bg.at;
    if (bg_start(&c->bg, cmp_work, k) == 0)
        c->running = 1;
    else
        task_free(k);
}

int compare_busy(const Tui *t)
{
    return t->cmp && t->cmp->running;
}

static void put_bold(int y, int x, int w, const char *s)
{
    attron(A_BOLD);
    tui_put(y, x, w, s);
    attroff(A_BOLD);
}

void view_compare_draw(Tui *t, int y, int h, int w)
{
    Compare *c = t->cmp;
    Session *s = t->s;
    char line[1200], bud[32], lo[32], hi[32];
    units_format_bytes(s->budget, bud, sizeof bud);
    if (!c) {
        tui_put(y, 0, w, "compare is not available (no background task)");
        return;
    }
    int row = y;
    snprintf(line, sizeof line, "Every solver at budget %s", bud);
    put_bold(row, 0, w, line);
    if (c->running) {
        static const char spin[] = "|/-\\";
        int at = atomic_load(&c->bg.at), st = atomic_load(&c->task.stage);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double el = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - c->bg.t0;
        if (st == 0)
            snprintf(line, sizeof line, "%c computing: solver %d/%d (%s) %.1fs", spin[t->spin % 4], at + 1,
                     solver_count(), solver_at(at < solver_count() ? at : 0)->name, el);
        else if (st == 1)
            snprintf(line, sizeof line, "%c computing: batch fit with %s %.1fs", spin[t->spin % 4],
                     c->task.cls->name, el);
        else
            snprintf(line, sizeof line, "%c computing: sweep %d/%d of %s %.1fs", spin[t->spin % 4], at + 1,
                     COMPARE_SWEEP_N, c->task.cls->name, el);
        attron(crt_attr(CRT_BUDGET));
        tui_put(row, 32, w - 32, line);
        attroff(crt_attr(CRT_BUDGET));
    }
    row++;
    CmpEntry *en = find_ent(c, s->budget, s->cls);
    if (en) {
        for (int i = 0; i < en->n && row < y + h; i++, row++) {
            compare_row_text(&en->rows[i], line + 2, sizeof line - 2);
            line[0] = en->rows[i].cls == s->cls ? '*' : ' ';
            line[1] = ' ';
            int bad = !en->rows[i].has_plan;
            if (bad)
                attron(crt_attr(CRT_ERROR));
            tui_put(row, 0, w, line);
            if (bad)
                attroff(crt_attr(CRT_ERROR));
        }
        if (row < y + h) {
            const FitResult *f = &en->fit;
            if (en->fit_rc)
                snprintf(line, sizeof line, "batch fit in %s: %s", bud, en->fit_err);
            else
                snprintf(line, sizeof line, "batch fit in %s: largest multiplier x%d without recomputation, "
                         "x%d with %s (cost %+.1f%%)", bud, f->b_plain, f->b_remat, en->cls->name,
                         f->overhead_remat * 100);
            row++;
            put_bold(row++, 0, w, line);
        }
    } else if (row < y + h) {
        tui_put(row++, 2, w - 2, "waiting for the comparison...");
    }
    row++;
    if (row >= y + h)
        return;
    SweepEntry *sw = find_sweep(c, s->cls);
    units_format_bytes(s->min_peak, lo, sizeof lo);
    units_format_bytes(s->base_peak, hi, sizeof hi);
    snprintf(line, sizeof line, "Trade-off of %s: peak (up) vs cost overhead (right), %d budgets %s .. %s",
             s->cls->name, COMPARE_SWEEP_N, lo, hi);
    put_bold(row++, 0, w, line);
    if (!sw) {
        if (row < y + h)
            tui_put(row, 2, w - 2, "waiting for the sweep...");
        return;
    }
    if (sw->rc) {
        if (row < y + h)
            tui_put(row, 2, w - 2, sw->err);
        return;
    }
    int gh = y + h - row - 1, gw = w - 12;
    if (gh > 12)
        gh = 12;
    if (gh < 2 || gw < 10)
        return;
    char *grid = xmalloc((size_t)gw * (size_t)gh);
    tradeoff_grid(sw->pts, sw->n, s->min_peak, s->base_peak, gw, gh, grid);
    double omax = 0;
    for (int i = 0; i < sw->n; i++)
        if (sw->pts[i].has_plan && plan_overhead(&sw->pts[i].plan) > omax)
            omax = plan_overhead(&sw->pts[i].plan);
    for (int r = 0; r < gh; r++) {
        char lab[48] = "";
        if (r == 0)
            snprintf(lab, sizeof lab, "%10s", hi);
        else if (r == gh - 1)
            snprintf(lab, sizeof lab, "%10s", lo);
        tui_put(row + r, 0, 10, lab);
        mvaddstr(row + r, 10, crt_ascii() ? "|" : "\u2502");
        for (int k = 0; k < gw; k++)
            if (grid[(size_t)r * gw + k] != ' ') {
                attron(crt_attr(CRT_CURVE) | A_BOLD);
                mvaddch(row + r, 11 + k, '*');
                attroff(crt_attr(CRT_CURVE) | A_BOLD);
            }
    }
    free(grid);
    snprintf(line, sizeof line, "+0%%%*s%+.1f%%", gw - 10, "", omax * 100);
    tui_put(row + gh, 11, w - 11, line);
}
