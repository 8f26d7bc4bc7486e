/* plan.c — Plan type, evaluation through the simulator, and checking. */
#include "src/plan/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/plan/sim.h"
#include "src/base/xalloc.h"

void plan_init(Plan *p)
{
    memset(p, 0, sizeof *p);
    p->budget = PLAN_NO_BUDGET;
    p->peak = -1;
    p->baseline_peak = -1;
    p->cost = -1;
    p->baseline_cost = -1;
    p->peak_step = -1;
    p->bound = -1;
}

void plan_done(Plan *p)
{
    free(p->graph);
    free(p->solver);
    free(p->origin);
    free(p->steps);
    plan_init(p);
}

void plan_reset(Plan *p)
{
    p->T = 0;
    plan_set_origin(p, NULL);
    p->peak = p->baseline_peak = -1;
    p->cost = p->baseline_cost = -1;
    p->peak_step = -1;
    p->recomputations = 0;
    p->bound = -1;
    p->optimal = 0;
}

void plan_push(Plan *p, int node)
{
    xgrow((void **)&p->steps, &p->cap, p->T + 1, sizeof *p->steps);
    p->steps[p->T++] = node;
}

void plan_set_steps(Plan *p, const int *steps, int T)
{
    plan_reset(p);
    xgrow((void **)&p->steps, &p->cap, T, sizeof *p->steps);
    if (T)
        memcpy(p->steps, steps, (size_t)T * sizeof *steps);
    p->T = T;
}

void plan_set_names(Plan *p, const char *graph, const char *solver)
{
    if (graph) {
        free(p->graph);
        p->graph = xstrdup(graph);
    }
    if (solver) {
        free(p->solver);
        p->solver = xstrdup(solver);
    }
}

void plan_set_origin(Plan *p, const char *origin)
{
    free(p->origin);
    p->origin = origin ? xstrdup(origin) : NULL;
}

void plan_copy(Plan *dst, const Plan *src)
{
    plan_done(dst);
    *dst = *src;
    dst->graph = src->graph ? xstrdup(src->graph) : NULL;
    dst->solver = src->solver ? xstrdup(src->solver) : NULL;
    dst->origin = src->origin ? xstrdup(src->origin) : NULL;
    dst->cap = src->T;
    dst->steps = xmallocarray((size_t)src->T + 1, sizeof *dst->steps);
    if (src->T)
        memcpy(dst->steps, src->steps, (size_t)src->T * sizeof *dst->steps);
}

void plan_swap_steps(Plan *a, Plan *b)
{
    int *s = a->steps, T = a->T, cap = a->cap;
    a->steps = b->steps;
    a->T = b->T;
    a->cap = b->cap;
    b->steps = s;
    b->T = T;
    b->cap = cap;
}

int plan_evaluate_with(Plan *p, const Graph *g, int64_t base_peak, double base_cost, Sim *keep,
                       Err *e)
{
    Sim s;
    int rc = sim_run(g, p->steps, p->T, &s, e);
    if (rc)
        return rc;
    p->peak = s.peak;
    p->cost = s.cost;
    p->peak_step = s.peak_step;
    p->recomputations = s.recomputations;
    p->baseline_peak = base_peak;
    p->baseline_cost = base_cost;
    if (keep)
        *keep = s;
    else
        sim_done(&s);
    return ERR_OK;
}

int plan_evaluate(Plan *p, const Graph *g, Err *e)
{
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    return plan_evaluate_with(p, g, bp, bc, NULL, e);
}

static int same_cost(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

int plan_check(const Plan *p, const Graph *g, Err *e)
{
    Plan q;
    plan_init(&q);
    plan_copy(&q, p);
    int rc = plan_evaluate(&q, g, e);
    if (!rc) {
        if (p->peak >= 0 && p->peak != q.peak)
            rc = err_set(e, ERR_INVALID, "plan states peak %lld but the schedule peaks at %lld",
                         (long long)p->peak, (long long)q.peak);
        else if (p->cost >= 0 && !same_cost(p->cost, q.cost))
            rc = err_set(e, ERR_INVALID, "plan states cost %.17g but the schedule costs %.17g",
                         p->cost, q.cost);
        else if (p->baseline_peak >= 0 && p->baseline_peak != q.baseline_peak)
            rc = err_set(e, ERR_INVALID, "plan states baseline_peak %lld but the baseline is %lld",
                         (long long)p->baseline_peak, (long long)q.baseline_peak);
        else if (p->baseline_cost >= 0 && !same_cost(p->baseline_cost, q.baseline_cost))
            rc = err_set(e, ERR_INVALID, "plan states baseline_cost %.17g but the baseline is %.17g",
                         p->baseline_cost, q.baseline_cost);
    }
    plan_done(&q);
    return rc;
}

int plan_recomputed_nodes(const Plan *p, const Graph *g)
{
    unsigned char *seen = xcalloc((size_t)g->n, 1);
    int r = 0;
    for (int t = 0; t < p->T; t++) {
        int v = p->steps[t];
        if (seen[v] == 1)
            r++;
        if (seen[v] < 2)
            seen[v]++;
    }
    free(seen);
    return r;
}

double plan_overhead(const Plan *p)
{
    if (p->baseline_cost <= 0)
        return 0;
    return p->cost / p->baseline_cost - 1.0;
}
