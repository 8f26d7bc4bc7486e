/* brute.h — the true optimum on tiny graphs: the cheapest valid schedule
 * whose peak (spec semantics, ../shared/spec/formats.md §3) fits a budget.
 *
 * Why it is exact. Under the spec a value stays in memory from its
 * production through its last read before it is produced again (outputs:
 * to the end). A schedule plus the spec's frees is therefore the same as a
 * schedule plus a choice, each time a value is touched (produced or read),
 * to keep it or drop it; dropping at the last touch is what the spec does,
 * and any other choice only holds values longer. The search runs Dijkstra
 * by cost over states H = the set of values held after a step; a move runs
 * a node v whose non-input inputs are in H (and v not in H), counts memory
 * as resident inputs + size(H ∪ {v}) + workspace(v) (must be <= budget),
 * then keeps or drops each value it touched. Goal: every output in H. The
 * cheapest goal is the cheapest spec-valid schedule within the budget.
 * States are bitmasks, so graphs are limited to BRUTE_MAX non-input nodes.
 */
#ifndef REMAT_BRUTE_H
#define REMAT_BRUTE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/heap.h"
#include "src/graph/graph.h"

#define BRUTE_MAX 20

typedef struct {
    double cost;
    uint32_t state;
} BruteItem;

static inline int brute_cheaper(const void *c, const BruteItem *a, const BruteItem *b)
{
    (void)c;
    return a->cost < b->cost;
}
HEAP_DEFINE(brute_heap, BruteItem, void, brute_cheaper)

/* Cheapest schedule within budget: returns its cost, or -1 when none fits
 * (or the graph is too large). If sched is non-NULL it receives the
 * schedule (node indices) and *T its length (sched needs room for
 * 4 * BRUTE_MAX steps). */
static inline double brute_optimum(const Graph *g, int64_t budget, int *sched, int *T)
{
    int idx[64], m = 0, pos[256];
    for (int v = 0; v < g->n && v < 256; v++) {
        pos[v] = -1;
        if (g->nodes[v].phase != PHASE_INPUT) {
            if (m == BRUTE_MAX)
                return -1;
            pos[v] = m;
            idx[m++] = v;
        }
    }
    if (g->n > 256)
        return -1;
    uint32_t need[BRUTE_MAX], goal = 0;
    for (int i = 0; i < m; i++) {
        int v = idx[i];
        need[i] = 0;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (pos[g->in_idx[k]] >= 0)
                need[i] |= 1u << pos[g->in_idx[k]];
        if (g->is_output[v])
            goal |= 1u << i;
    }
    size_t S = (size_t)1 << m;
    double *dist = malloc(S * sizeof *dist);
    int32_t *from = malloc(S * sizeof *from);
    int8_t *via = malloc(S);
    for (size_t s = 0; s < S; s++)
        dist[s] = -1;
    size_t cap = 1 << 16;
    int hn = 0;
    BruteItem *heap = malloc(cap * sizeof *heap);
    dist[0] = 0;
    from[0] = -1;
    brute_heap_push(heap, &hn, (BruteItem){0, 0}, NULL);
    double best = -1;
    uint32_t end = 0;
    while (hn) {
        BruteItem it = brute_heap_pop(heap, &hn, NULL);
        uint32_t H = it.state;
        if (it.cost > dist[H])
            continue;
        if ((H & goal) == goal) {
            best = it.cost;
            end = H;
            break;
        }
        int64_t held = g->input_bytes;
        for (int i = 0; i < m; i++)
            if (H >> i & 1)
                held += g->nodes[idx[i]].size;
        for (int i = 0; i < m; i++) {
            if ((H >> i & 1) || (need[i] & ~H))
                continue;
            const Node *nd = &g->nodes[idx[i]];
            if (held + nd->size + nd->workspace > budget)
                continue;
            /* touched: v and its inputs; keep or drop each */
            uint32_t touch = need[i] | 1u << i;
            uint32_t sub = touch;
            for (;;) { /* sub = the touched values dropped */
                uint32_t H2 = ((H | 1u << i) & ~sub);
                double c = it.cost + nd->cost;
                if (dist[H2] < 0 || c < dist[H2]) {
                    dist[H2] = c;
                    from[H2] = (int32_t)H;
                    via[H2] = (int8_t)i;
                    if ((size_t)hn == cap) {
                        cap *= 2;
                        heap = realloc(heap, cap * sizeof *heap);
                    }
                    brute_heap_push(heap, &hn, (BruteItem){c, H2}, NULL);
                }
                if (!sub)
                    break;
                sub = (sub - 1) & touch;
            }
        }
    }
    if (best >= 0 && sched && T) {
        int n = 0, tmp[1 << 12];
        for (uint32_t s = end; s != 0 && n < (int)(sizeof tmp / sizeof tmp[0]); s = (uint32_t)from[s])
            tmp[n++] = idx[(int)via[s]];
        for (int i = 0; i < n; i++)
            sched[i] = tmp[n - 1 - i];
        *T = n;
    }
    free(dist);
    free(from);
    free(via);
    free(heap);
    return best;
}

#define BRUTE_ORDER_MAX 14

/* The cheapest spec-valid schedule within budget whose first runs follow
 * order[0..m): Dijkstra over (values held, how many of the order have run),
 * a move runs the next node of the order or reruns an earlier one, then
 * keeps or drops each value it touched (exact for the reason above).
 * -1 when none fits. */
static inline double brute_order_optimum(const Graph *g, const int *order, int m, int64_t budget)
{
    int pos[256];
    uint32_t need[BRUTE_ORDER_MAX], goal = 0;
    for (int v = 0; v < g->n; v++)
        pos[v] = -1;
    for (int i = 0; i < m; i++)
        pos[order[i]] = i;
    for (int i = 0; i < m; i++) {
        need[i] = 0;
        for (int q = g->in_off[order[i]]; q < g->in_off[order[i] + 1]; q++)
            if (pos[g->in_idx[q]] >= 0)
                need[i] |= 1u << pos[g->in_idx[q]];
        if (g->is_output[order[i]])
            goal |= 1u << i;
    }
    size_t H = (size_t)1 << m, S = H * (size_t)(m + 1);
    double *dist = malloc(S * sizeof *dist);
    unsigned char *done = calloc(S, 1);
    for (size_t s = 0; s < S; s++)
        dist[s] = -1;
    dist[0] = 0;
    double best = -1;
    for (;;) {
        /* the cheapest open state (a linear scan: tiny graphs) */
        size_t u = S;
        for (size_t s = 0; s < S; s++)
            if (!done[s] && dist[s] >= 0 && (u == S || dist[s] < dist[u]))
                u = s;
        if (u == S)
            break;
        done[u] = 1;
        uint32_t held = (uint32_t)(u % H);
        int k = (int)(u / H);
        if (k == m && (held & goal) == goal) {
            best = dist[u];
            break;
        }
        int64_t mem = g->input_bytes;
        for (int i = 0; i < m; i++)
            if (held >> i & 1)
                mem += g->nodes[order[i]].size;
        for (int i = 0; i <= k && i < m; i++) {
            const Node *nd = &g->nodes[order[i]];
            if ((held >> i & 1) || (need[i] & ~held) || mem + nd->size + nd->workspace > budget)
                continue;
            uint32_t touch = need[i] | 1u << i, drop = touch;
            int k2 = i == k ? k + 1 : k;
            for (;;) {
                size_t s2 = (size_t)k2 * H + ((held | 1u << i) & ~drop);
                double c = dist[u] + nd->cost;
                if (!done[s2] && (dist[s2] < 0 || c < dist[s2]))
                    dist[s2] = c;
                if (!drop)
                    break;
                drop = (drop - 1) & touch;
            }
        }
    }
    free(dist);
    free(done);
    return best;
}

#endif
