/* explore.c — the compare/sweep runs, the measured-curve placement, the
 * per-step allocate/free line and the graph viewport arithmetic behind the
 * explorer's newer views (see explore.h). No terminal here. */
#include "render/explore.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/plot.h"
#include "src/units.h"
#include "src/xalloc.h"

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Options for one compare run: the user's for the current solver; and a
 * short time_limit for any solver that has one and was not given one, so
 * an exact or annealing solver cannot hold the comparison for a minute. */
#define COMPARE_TIME_LIMIT "time_limit=3"
static void compare_opts(const SolverClass *cls, const SolverClass *opts_cls, const SolverOpts *opts,
                         SolverOpts *out)
{
    Err e;
    solver_opts_init(out);
    int has_limit = 0, given = 0;
    for (const SolverParam *q = cls->params; q && q->name; q++)
        has_limit |= strcmp(q->name, "time_limit") == 0;
    if (cls == opts_cls && opts)
        for (int i = 0; i < opts->n; i++) {
            char kv[512];
            snprintf(kv, sizeof kv, "%s=%s", opts->key[i], opts->val[i]);
            solver_opts_add(out, kv, &e);
            given |= strcmp(opts->key[i], "time_limit") == 0;
        }
    if (has_limit && !given)
        solver_opts_add(out, COMPARE_TIME_LIMIT, &e);
}

int compare_solvers(const Graph *g, int64_t budget, const SolverClass *opts_cls,
                    const SolverOpts *opts, CompareRow *rows, Progress *p, atomic_int *at)
{
    int n = solver_count();
    for (int i = 0; i < n; i++) {
        if (progress_cancelled(p))
            return -1;
        if (at)
            atomic_store(at, i);
        CompareRow *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->cls = solver_at(i);
        Err e;
        err_clear(&e);
        double t0 = mono_s();
        SolverOpts o;
        compare_opts(r->cls, opts_cls, opts, &o);
        Solver *s = solver_new_cancellable(r->cls, g, &o, p, &e);
        solver_opts_done(&o);
        if (!s) {
            r->rc = e.code ? e.code : ERR_INVALID;
        } else {
            Plan pl;
            plan_init(&pl);
            /* the solver polls its own Progress; ours only carries cancel */
            r->rc = solver_plan(s, budget, NULL, &pl, p, &e);
            if ((r->rc == ERR_OK || r->rc == ERR_OVER_BUDGET) && pl.T > 0) {
                r->has_plan = 1;
                r->peak = pl.peak;
                r->overhead = plan_overhead(&pl);
            }
            plan_done(&pl);
            solver_free(s);
        }
        r->secs = mono_s() - t0;
        if (r->rc == ERR_CANCELLED)
            return -1;
        if (r->rc)
            snprintf(r->msg, sizeof r->msg, "%s", e.msg);
    }
    return n;
}

void compare_row_text(const CompareRow *r, char *buf, size_t n)
{
    if (!r->has_plan) {
        snprintf(buf, n, "%-10s refused: %s", r->cls->name, r->msg[0] ? r->msg : "no plan");
        return;
    }
    char pk[32];
    units_format_bytes(r->peak, pk, sizeof pk);
    snprintf(buf, n, "%-10s peak %10s  cost %+7.1f%%  %8.3fs%s", r->cls->name, pk, r->overhead * 100,
             r->secs, r->rc == ERR_OVER_BUDGET ? "  OVER budget" : "");
}

void sweep_budgets(int64_t lo, int64_t hi, int n, int64_t *out)
{
    if (n == 1) {
        out[0] = lo;
        return;
    }
    for (int i = 0; i < n; i++)
        out[i] = lo + (int64_t)((double)(hi - lo) * i / (n - 1) + 0.5);
    out[n - 1] = hi;
}

int sweep_run(const Graph *g, const SolverClass *cls, const SolverOpts *opts, const int64_t *budgets,
              int n, SweepPoint *pts, Progress *p, atomic_int *at, Err *e)
{
    for (int i = 0; i < n; i++) {
        memset(&pts[i], 0, sizeof pts[i]);
        plan_init(&pts[i].plan);
        pts[i].budget = budgets[i];
    }
    Solver *s = solver_new_cancellable(cls, g, opts, p, e);
    if (!s)
        return e->code ? e->code : ERR_INVALID;
    const Plan *prev = NULL;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (progress_cancelled(p)) {
            rc = ERR_CANCELLED;
            break;
        }
        if (at)
            atomic_store(at, i);
        SweepPoint *pt = &pts[i];
        err_clear(&pt->err);
        double t0 = mono_s();
        pt->rc = solver_plan(s, budgets[i], prev, &pt->plan, p, &pt->err);
        pt->secs = mono_s() - t0;
        if (pt->rc == ERR_CANCELLED) {
            rc = ERR_CANCELLED;
            break;
        }
        pt->has_plan = (pt->rc == ERR_OK || pt->rc == ERR_OVER_BUDGET) && pt->plan.T > 0;
        if (pt->has_plan)
            prev = &pt->plan;
    }
    solver_free(s);
    return rc;
}

void sweep_points_done(SweepPoint *pts, int n)
{
    for (int i = 0; i < n; i++)
        plan_done(&pts[i].plan);
}

int tradeoff_grid(const SweepPoint *pts, int n, int64_t lo, int64_t hi, int w, int h, char *grid)
{
    memset(grid, ' ', (size_t)w * (size_t)h);
    if (w < 1 || h < 1)
        return 0;
    double omax = 0;
    for (int i = 0; i < n; i++)
        if (pts[i].has_plan && plan_overhead(&pts[i].plan) > omax)
            omax = plan_overhead(&pts[i].plan);
    int drawn = 0;
    for (int i = 0; i < n; i++) {
        if (!pts[i].has_plan)
            continue;
        double o = plan_overhead(&pts[i].plan);
        int c = omax > 0 ? (int)lround(o / omax * (w - 1)) : 0;
        double f = hi > lo ? (double)(pts[i].plan.peak - lo) / (double)(hi - lo) : 0;
        if (f < 0)
            f = 0;
        if (f > 1)
            f = 1;
        int r = (h - 1) - (int)lround(f * (h - 1));
        grid[(size_t)r * w + c] = '*';
        drawn++;
    }
    return drawn;
}

void measured_rows(const int64_t *meas, int T, int steps, int w, int h, int64_t top, int *rows)
{
    for (int c = 0; c < w; c++) {
        int t = plot_step_of_col(c, steps, w);
        if (t < 0 || t >= T || top <= 0) {
            rows[c] = -1;
            continue;
        }
        /* row r covers values (top*(h-r-1)/h, top*(h-r)/h] */
        double f = (double)meas[t] / (double)top;
        int r = h - (int)ceil(f * h);
        if (r < 0)
            r = 0;
        if (r > h - 1)
            r = h - 1;
        rows[c] = r;
    }
}

double measured_diff(int64_t measured_peak, int64_t simulated_peak)
{
    if (simulated_peak <= 0)
        return 0;
    return (double)(measured_peak - simulated_peak) / (double)simulated_peak;
}

void play_step_text(const Graph *g, const int *sched, const Sim *s, int t, char *buf, size_t n)
{
    if (t < 0 || t >= s->T) {
        snprintf(buf, n, "no step %d", t + 1);
        return;
    }
    const Node *v = &g->nodes[sched[t]];
    char sz[32], ws[32];
    units_format_bytes(v->size, sz, sizeof sz);
    size_t u = (size_t)snprintf(buf, n, "step %d/%d runs %s: allocates %s", t + 1, s->T, v->id, sz);
    if (v->workspace > 0 && u < n) {
        units_format_bytes(v->workspace, ws, sizeof ws);
        u += (size_t)snprintf(buf + u, n - u, " (+%s workspace, freed at once)", ws);
    }
    int freed = 0;
    for (int p = 0; p <= t && u < n; p++)
        if (s->held_until[p] == t && !(t == s->T - 1 && g->is_output[sched[p]])) {
            u += (size_t)snprintf(buf + u, n - u, "%s%s", freed ? ", " : "; frees ", g->nodes[sched[p]].id);
            freed++;
        }
    if (!freed && u < n)
        snprintf(buf + u, n - u, "; frees nothing");
}

static double cell_x(const Viewport *v)
{
    double sx = v->w > 0 && v->width > 0 ? v->width / v->w : 1;
    return sx / v->zoom;
}

void viewport_fit(Viewport *v, double width, double height, int w, int h)
{
    v->width = width;
    v->height = height;
    v->w = w;
    v->h = h;
    v->zoom = 1;
    v->pan_x = 0;
    v->pan_y = 0;
}

int viewport_cell(const Viewport *v, double x, double y, int *col, int *row)
{
    double cx = cell_x(v), cy = 2 * cx;
    double c = floor((x - v->pan_x) / cx), r = floor((v->height - y - v->pan_y) / cy);
    if (c < 0 || r < 0 || c >= v->w || r >= v->h)
        return 0;
    *col = (int)c;
    *row = (int)r;
    return 1;
}

void viewport_center(Viewport *v, double x, double y)
{
    double cx = cell_x(v), cy = 2 * cx;
    v->pan_x = x - cx * v->w / 2;
    v->pan_y = (v->height - y) - cy * v->h / 2;
}

void viewport_pan(Viewport *v, int dc, int dr)
{
    double cx = cell_x(v);
    v->pan_x += dc * cx;
    v->pan_y += dr * 2 * cx;
}
