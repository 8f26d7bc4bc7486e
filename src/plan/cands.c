/* cands.c — the candidate set and its pick rule (see cands.h). */
#include "src/plan/cands.h"

#include <stdlib.h>
#include <string.h>

#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/xalloc.h"

void cands_init(CandSet *cs)
{
    memset(cs, 0, sizeof *cs);
}

void cands_clear(CandSet *cs)
{
    for (int i = 0; i < cs->n; i++) {
        free(cs->c[i].steps);
        if (cs->free_data)
            cs->free_data(cs->c[i].data);
    }
    cs->n = 0;
}

void cands_done(CandSet *cs)
{
    cands_clear(cs);
    free(cs->c);
    cands_init(cs);
}

int cands_add(CandSet *cs, int *steps, int T, int64_t peak, double cost, int tag, void *data,
              const char *origin)
{
    xgrow((void **)&cs->c, &cs->cap, cs->n + 1, sizeof *cs->c);
    cs->c[cs->n] = (Cand){steps, T, peak, cost, tag, data, origin};
    return cs->n++;
}

int cands_add_steps(CandSet *cs, const Graph *g, const int *steps, int T, int keep, int tag,
                    void *data, const char *origin, Err *e)
{
    Sim sim;
    if (sim_run(g, steps, T, &sim, e) != ERR_OK)
        return -1;
    int *own = NULL;
    if (keep) {
        own = xmallocarray((size_t)T + 1, sizeof *own);
        if (T)
            memcpy(own, steps, (size_t)T * sizeof *own);
    }
    int i = cands_add(cs, own, T, sim.peak, sim.cost, tag, data, origin);
    sim_done(&sim);
    return i;
}

int cands_add_family(CandSet *cs, const Graph *g, const int *tags, int n, const char *origin,
                     Progress *p, Err *e)
{
    Plan tmp;
    plan_init(&tmp);
    int rc = ERR_OK;
    for (int i = 0; i < n && rc == ERR_OK; i++) {
        if (progress_cancelled(p)) {
            rc = err_set(e, ERR_CANCELLED, "%s: cancelled", origin);
            break;
        }
        Err se;
        err_clear(&se);
        Cand k = {.tag = tags[i]};
        if ((rc = cs->rebuild(cs->ctx, &k, &tmp, p, &se)) != ERR_OK ||
            cands_add_steps(cs, g, tmp.steps, tmp.T, 0, tags[i], NULL, origin, &se) < 0)
            rc = err_set(e, rc == ERR_CANCELLED ? rc : ERR_INVALID, "%s: internal error: %s", origin,
                         se.msg);
        progress_set(p, (double)(i + 1) / n);
    }
    plan_done(&tmp);
    if (rc)
        cands_clear(cs);
    return rc;
}

int cands_better(int64_t budget, int64_t peak, double cost, int64_t bpeak, double bcost)
{
    int f = budget == PLAN_NO_BUDGET || peak <= budget;
    int bf = budget == PLAN_NO_BUDGET || bpeak <= budget;
    if (f != bf)
        return f;
    if (f)
        return cost < bcost || (cost == bcost && peak < bpeak);
    return peak < bpeak || (peak == bpeak && cost < bcost);
}

int cands_pick(const CandSet *cs, int64_t budget)
{
    int best = -1;
    for (int i = 0; i < cs->n; i++)
        if (best < 0 ||
            cands_better(budget, cs->c[i].peak, cs->c[i].cost, cs->c[best].peak, cs->c[best].cost))
            best = i;
    return best;
}

int cands_pick_lowest(const CandSet *cs)
{
    /* a budget of 0 fits nothing, so the rule falls to the lowest peak */
    return cands_pick(cs, 0);
}

int cands_emit(const CandSet *cs, int i, Plan *out, struct Progress *p, Err *e)
{
    const Cand *c = &cs->c[i];
    plan_reset(out);
    if (c->steps) {
        plan_set_steps(out, c->steps, c->T);
        return ERR_OK;
    }
    if (!cs->rebuild)
        return err_set(e, ERR_INVALID, "candidate %d has no steps and its set no rebuild", i);
    return cs->rebuild(cs->ctx, c, out, p, e);
}
