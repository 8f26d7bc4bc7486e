/* sim.c — memory curve, peak and cost of a schedule, and the live set at a
 * step. One forward pass records for every production the last step that
 * reads it; a difference array over [produced, held_until] gives the curve.
 */
#include "src/plan/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/units.h"
#include "src/base/xalloc.h"

void sim_done(Sim *s)
{
    if (!s)
        return;
    free(s->mem);
    free(s->held_until);
    memset(s, 0, sizeof *s);
}

static int bad_step(Err *e, const Graph *g, const int *sched, int t, const char *what,
                    const char *id)
{
    return err_set(e, ERR_INVALID, "step %d (%s): %s '%s'", t + 1, g->nodes[sched[t]].id, what,
                   id);
}

int sim_run(const Graph *g, const int *sched, int T, Sim *s, Err *e)
{
    memset(s, 0, sizeof *s);
    int n = g->n;
    int *last_prod = xmallocarray((size_t)n, sizeof *last_prod);
    for (int v = 0; v < n; v++)
        last_prod[v] = -1;
    int *held = xmallocarray((size_t)T + 1, sizeof *held);
    int recompute = 0;
    double cost = 0;

    for (int t = 0; t < T; t++) {
        int v = sched[t];
        if (v < 0 || v >= n) {
            free(last_prod);
            free(held);
            return err_set(e, ERR_INVALID, "step %d: node index %d out of range", t + 1, v);
        }
        if (g->nodes[v].phase == PHASE_INPUT) {
            free(last_prod);
            free(held);
            return err_set(e, ERR_INVALID,
                           "step %d (%s): input nodes are resident and never scheduled", t + 1,
                           g->nodes[v].id);
        }
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (g->nodes[u].phase == PHASE_INPUT)
                continue;
            int p = last_prod[u];
            if (p < 0) {
                int rc = bad_step(e, g, sched, t, "reads a value no earlier step produced:",
                                  g->nodes[u].id);
                free(last_prod);
                free(held);
                return rc;
            }
            held[p] = t; /* reads come in step order, so this ends as the last read */
        }
        if (last_prod[v] >= 0)
            recompute++;
        last_prod[v] = t;
        held[t] = t;
        cost += g->nodes[v].cost;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        int o = g->outputs[i];
        if (g->nodes[o].phase == PHASE_INPUT)
            continue;
        if (last_prod[o] < 0) {
            free(last_prod);
            free(held);
            return err_set(e, ERR_INVALID, "output '%s' is never produced", g->nodes[o].id);
        }
        held[last_prod[o]] = T - 1;
    }
    free(last_prod);
    if (!isfinite(cost)) {
        free(held);
        return err_set(e, ERR_INVALID, "the schedule's %d steps cost more than a double holds "
                       "(node costs near the 1e300 limit)", T);
    }

    int64_t *mem = xcalloc((size_t)T + 1, sizeof *mem);
    for (int t = 0; t < T; t++) {
        int64_t sz = g->nodes[sched[t]].size;
        mem[t] += sz;
        mem[held[t] + 1] -= sz;
    }
    int64_t run = 0, peak = g->input_bytes;
    int peak_step = -1;
    for (int t = 0; t < T; t++) {
        run += mem[t];
        mem[t] = g->input_bytes + run + g->nodes[sched[t]].workspace;
        if (peak_step < 0 || mem[t] > peak) {
            peak = mem[t];
            peak_step = t;
        }
    }
    s->T = T;
    s->mem = mem;
    s->held_until = held;
    s->peak = peak;
    s->peak_step = peak_step;
    s->cost = cost;
    s->recomputations = recompute;
    return ERR_OK;
}

static int cmp_live(const void *a, const void *b)
{
    const LiveValue *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->reason - y->reason;
}

int sim_live_at(const Graph *g, const int *sched, const Sim *s, int t, LiveValue **out)
{
    *out = NULL;
    if (t < 0 || t >= s->T)
        return -1;
    int cap = 16, n = 0;
    LiveValue *lv = xmallocarray((size_t)cap, sizeof *lv);
    int v_t = sched[t];
    /* which steps read node v's current copy: first read after t */
    int *next = xmallocarray((size_t)g->n, sizeof *next);
    for (int v = 0; v < g->n; v++)
        next[v] = -1;
    /* production step currently holding each node's value, at step t */
    for (int u = 0; u < g->n; u++)
        if (g->nodes[u].phase == PHASE_INPUT) {
            xgrow((void **)&lv, &cap, n + 1, sizeof *lv);
            lv[n++] = (LiveValue){u, g->nodes[u].size, -1, -1, s->T - 1, LIVE_INPUT};
        }
    for (int p = 0; p <= t; p++) {
        if (s->held_until[p] < t)
            continue;
        int u = sched[p];
        int reason = p == t ? LIVE_PRODUCED : LIVE_HELD;
        if (reason == LIVE_HELD)
            for (int k = g->in_off[v_t]; k < g->in_off[v_t + 1]; k++)
                if (g->in_idx[k] == u)
                    reason = LIVE_READ;
        xgrow((void **)&lv, &cap, n + 1, sizeof *lv);
        lv[n++] = (LiveValue){u, g->nodes[u].size, p, -1, s->held_until[p], reason};
        next[u] = n - 1; /* entry index, to fill next_read below */
    }
    /* first read after t of each live copy: scan forward until it is freed */
    for (int q = t + 1; q < s->T; q++) {
        int w = sched[q];
        for (int k = g->in_off[w]; k < g->in_off[w + 1]; k++) {
            int u = g->in_idx[k];
            int idx = next[u];
            if (idx >= 0 && lv[idx].next_read < 0 && q <= lv[idx].held_until)
                lv[idx].next_read = q;
        }
    }
    if (g->nodes[v_t].workspace) {
        xgrow((void **)&lv, &cap, n + 1, sizeof *lv);
        lv[n++] = (LiveValue){v_t, g->nodes[v_t].workspace, t, -1, t, LIVE_WORKSPACE};
    }
    free(next);
    qsort(lv, (size_t)n, sizeof *lv, cmp_live);
    *out = lv;
    return n;
}

int *sim_baseline_order(const Graph *g, int *T)
{
    int *s = xmallocarray((size_t)g->n, sizeof *s);
    int m = 0;
    for (int i = 0; i < g->n; i++)
        if (g->nodes[g->topo[i]].phase != PHASE_INPUT)
            s[m++] = g->topo[i];
    *T = m;
    return s;
}

void sim_baseline(const Graph *g, int64_t *peak, double *cost)
{
    int T;
    int *s = sim_baseline_order(g, &T);
    Sim sim;
    Err e;
    /* the topological order of a finalized graph is always valid */
    if (sim_run(g, s, T, &sim, &e) == ERR_OK) {
        *peak = sim.peak;
        *cost = sim.cost;
        sim_done(&sim);
    } else {
        *peak = -1;
        *cost = -1;
    }
    free(s);
}

const char *live_reason_name(int reason)
{
    static const char *const names[] = {"input", "produced", "read", "held", "workspace"};
    return reason >= 0 && reason <= LIVE_WORKSPACE ? names[reason] : "?";
}

void live_cells(const LiveValue *lv, int T, LiveCells *out)
{
    units_format_bytes(lv->size, out->size, sizeof out->size);
    if (lv->produced_at < 0)
        snprintf(out->produced, sizeof out->produced, "resident");
    else
        snprintf(out->produced, sizeof out->produced, "step %d", lv->produced_at + 1);
    if (lv->next_read >= 0)
        snprintf(out->next_read, sizeof out->next_read, "step %d", lv->next_read + 1);
    else
        snprintf(out->next_read, sizeof out->next_read, "%s",
                 lv->reason == LIVE_INPUT || lv->held_until == T - 1 ? "end" : "-");
}
