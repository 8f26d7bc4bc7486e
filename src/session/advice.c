/* advice.c — ranking the values held at a step for recomputation
 * (advice.h). One pass over the live set, one backward scan for last uses
 * and one forward scan for next reads: O(T * in-degree) per step asked. */
#include "src/session/advice.h"

#include <stdlib.h>

#include "src/base/xalloc.h"

static int by_score(const void *a, const void *b)
{
    const Advice *x = a, *y = b;
    int xf = x->cost <= 0, yf = y->cost <= 0;  /* free to recompute: first */
    if (xf != yf)
        return yf - xf;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->node - y->node;
}

int advice_at(const Graph *g, const int *sched, const Sim *s, int t, Advice **out)
{
    *out = NULL;
    if (t < 0 || t >= s->T)
        return -1;
    LiveValue *lv;
    int n = sim_live_at(g, sched, s, t, &lv);
    Advice *a = xmallocarray((size_t)(n > 0 ? n : 1), sizeof *a);
    int *slot = xmallocarray((size_t)g->n + 1, sizeof *slot);
    for (int v = 0; v < g->n; v++)
        slot[v] = -1;
    int m = 0;
    for (int i = 0; i < n; i++) {
        const LiveValue *x = &lv[i];
        if (x->reason != LIVE_HELD || x->next_read < 0)
            continue;   /* read or made now, resident, or an output kept to the end */
        const Node *nd = &g->nodes[x->node];
        a[m] = (Advice){.node = x->node, .bytes = x->size, .produced_at = x->produced_at,
                        .last_use = x->produced_at, .next_read = x->next_read, .cost = nd->cost};
        slot[x->node] = m++;
    }
    /* last use: the latest step in (produced_at, t] reading the copy */
    for (int q = t; q >= 0; q--) {
        int w = sched[q];
        for (int k = g->in_off[w]; k < g->in_off[w + 1]; k++) {
            int i = slot[g->in_idx[k]];
            if (i >= 0 && q > a[i].last_use && q > a[i].produced_at && a[i].last_use == a[i].produced_at)
                a[i].last_use = q;
        }
    }
    /* inputs held just before the next read: the copy alive at t lasts
     * through next_read - 1 (a value the plan runs again later counts as
     * not held: recomputing this one would need that one first) */
    int *until = xmallocarray((size_t)g->n + 1, sizeof *until);
    for (int v = 0; v < g->n; v++)
        until[v] = g->nodes[v].phase == PHASE_INPUT ? s->T : -1;
    for (int i = 0; i < n; i++)
        if (lv[i].reason != LIVE_WORKSPACE && lv[i].held_until > until[lv[i].node])
            until[lv[i].node] = lv[i].held_until;
    for (int i = 0; i < m; i++) {
        Advice *x = &a[i];
        x->idle = x->next_read - x->last_use;
        x->score = (double)x->bytes * x->idle / (x->cost > 0 ? x->cost : 1);
        x->inputs_held = 1;
        for (int k = g->in_off[x->node]; k < g->in_off[x->node + 1]; k++)
            if (until[g->in_idx[k]] < x->next_read - 1)
                x->inputs_held = 0;
    }
    free(until);
    free(slot);
    free(lv);
    qsort(a, (size_t)m, sizeof *a, by_score);
    *out = a;
    return m;
}
