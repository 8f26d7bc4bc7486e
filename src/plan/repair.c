/* repair.c — lower a schedule's peak by freeing what the peak holds.
 *
 * An annealed schedule can end above its budget for want of one move the
 * search rarely draws: on regnet_y_400mf at 25 % (unit costs) the peak is
 * the last batch norm's backward, holding the stem's ReLU output (784 MiB)
 * until the first convolution's backward reads it; freeing it there takes
 * conv, batch norm and ReLU all run again between the two, three slots
 * that random proposals seldom fill together.
 *
 * Here the move is made on purpose. A value held across the peak step and
 * not read there is released after its last read and produced again just
 * before its next one; the spec then ends the old copy at its last read
 * (sim.h), so the value leaves every step between. The rerun needs its
 * inputs at that point: an input whose copy is still held there is read
 * as it is, an input released by then runs again too (first), and so on
 * up the graph within a chain of REPAIR_CHAIN nodes. The other move
 * frees the value without a rerun: the steps that read it after the peak
 * move up, in their order, to just after its last read before (a value
 * held only for readers whose other inputs are ready early). Each move,
 * for each of the largest candidates, is simulated whole, and the best
 * one taken: the lowest peak, then the least memory above the limit (so
 * a plateau of steps at the peak is worn down a step at a time), then the
 * lowest cost. Rounds go on while one helps.
 *
 * The schedules it makes are dearer than they need be (a chain keeps its
 * nodes once the peak has moved on); callers anneal or tidy them after.
 */
#include "src/plan/repair.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"

/* The largest held values tried at each round's peak. */
#define REPAIR_CANDIDATES 12
/* Most nodes one rerun runs (the value and the inputs it must rerun). */
#define REPAIR_CHAIN 8
/* Most rounds (moves) one repair makes. */
#define REPAIR_ROUNDS 256

typedef struct {
    int64_t peak, over;
    double cost;
} Score;

static int score_less(Score a, Score b)
{
    if (a.peak != b.peak)
        return a.peak < b.peak;
    if (a.over != b.over)
        return a.over < b.over;
    return a.cost < b.cost;
}

static int simulate(const Graph *g, const int *steps, int T, int64_t limit, Score *out,
                    Sim *keep)
{
    Sim s;
    Err e;
    err_clear(&e);
    if (sim_run(g, steps, T, &s, &e) != ERR_OK)
        return 0;
    out->peak = s.peak;
    out->cost = s.cost;
    out->over = 0;
    for (int t = 0; t < T; t++)
        if (s.mem[t] > limit)
            out->over += s.mem[t] - limit;
    if (keep)
        *keep = s;
    else
        sim_done(&s);
    return 1;
}

/* Is a copy of u held at the gap before step r (made before r, held
 * through r - 1 at least)? */
static int held_before(const int *steps, const int *held, int r, int u)
{
    for (int t = r - 1; t >= 0; t--)
        if (steps[t] == u)
            return held[t] >= r - 1;
    return 0;
}

/* Appends to chain[] (inputs first) v and the inputs it must run again
 * to be made just before step r; *taken counts the nodes marked (each
 * takes a slot of chain[] when its own inputs are done). */
static void chain_of(const Graph *g, const int *steps, const int *held, int r, int v,
                     const unsigned char *rule, unsigned char *mark, int *chain, int *n,
                     int *taken)
{
    mark[v] = 1;
    ++*taken;
    for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
        int u = g->in_idx[k];
        if (mark[u] || g->nodes[u].phase == PHASE_INPUT || *taken >= REPAIR_CHAIN ||
            (rule && rule[u] == NODE_PIN) || held_before(steps, held, r, u))
            continue;
        chain_of(g, steps, held, r, u, rule, mark, chain, n, taken);
    }
    chain[(*n)++] = v;
}

/* The schedule with lv's value run again just before its next read
 * (chain_of) into out[]; returns its length. */
static int rerun(const Graph *g, const int *steps, int T, const int *held, const LiveValue *lv,
                 const unsigned char *rule, unsigned char *mark, int *out)
{
    int r = lv->next_read, chain[REPAIR_CHAIN], n = 0, taken = 0;
    chain_of(g, steps, held, r, lv->node, rule, mark, chain, &n, &taken);
    for (int k = 0; k < n; k++)
        mark[chain[k]] = 0;
    memcpy(out, steps, (size_t)r * sizeof *out);
    memcpy(out + r, chain, (size_t)n * sizeof *out);
    memcpy(out + r + n, steps + r, (size_t)(T - r) * sizeof *out);
    return T + n;
}

static int reads(const Graph *g, int w, int v)
{
    for (int k = g->in_off[w]; k < g->in_off[w + 1]; k++)
        if (g->in_idx[k] == v)
            return 1;
    return 0;
}

/* The schedule with the steps that read lv's copy after the peak step p
 * moved (in their order) to just after its last use before p, into out[];
 * returns its length, 0 when nothing moves. A value held only for late
 * readers whose other inputs are there early leaves the peak at no cost;
 * where they are not, the schedule is invalid or holds those inputs
 * longer, and the simulation says so. */
static int hoist(const Graph *g, const int *steps, int T, int p, const LiveValue *lv, int *out)
{
    int v = lv->node, a = lv->produced_at;
    for (int t = p - 1; t > a; t--)
        if (reads(g, steps[t], v)) {
            a = t;
            break;
        }
    int moved = 0, k = 0;
    for (int t = 0; t < T; t++) {
        if (t > p && t <= lv->held_until && reads(g, steps[t], v))
            continue;
        out[k++] = steps[t];
        if (t == a)
            for (int u = p + 1; u <= lv->held_until; u++)
                if (reads(g, steps[u], v)) {
                    out[k++] = steps[u];
                    moved++;
                }
    }
    return moved ? T : 0;
}

int plan_repair(const Graph *g, int **steps, int *T, int64_t limit, const unsigned char *rule,
                int64_t work)
{
    int made = 0;
    unsigned char *mark = xcalloc((size_t)g->n, 1);
    int *buf = NULL, *best = NULL;
    size_t cap = 0;
    for (int round = 0; round < REPAIR_ROUNDS && work > 0; round++) {
        Sim s;
        Score cur;
        if (!simulate(g, *steps, *T, limit, &cur, &s))
            break;
        work -= *T + g->n_edges;
        if (cur.peak <= limit) {
            sim_done(&s);
            break;
        }
        LiveValue *live = NULL;
        int nl = sim_live_at(g, *steps, &s, s.peak_step, &live);
        size_t need = (size_t)*T + REPAIR_CHAIN;
        if (need > cap) {
            cap = need;
            buf = xreallocarray(buf, cap, sizeof *buf);
            best = xreallocarray(best, cap, sizeof *best);
        }
        Score top = cur;
        int best_T = 0, tried = 0;
        for (int i = 0; i < nl && tried < REPAIR_CANDIDATES && work > 0; i++) {
            const LiveValue *lv = &live[i];
            if (lv->reason != LIVE_HELD || lv->next_read < 0)
                continue;
            tried++;
            for (int kind = 0; kind < 2; kind++) {
                int nt = kind == 1 ? hoist(g, *steps, *T, s.peak_step, lv, buf)
                         : rule && rule[lv->node] == NODE_PIN ? 0
                         : rerun(g, *steps, *T, s.held_until, lv, rule, mark, buf);
                if (nt <= 0)
                    continue;
                Score sc;
                work -= nt + g->n_edges;
                if (simulate(g, buf, nt, limit, &sc, NULL) && score_less(sc, top) &&
                    (sc.peak < cur.peak || sc.over < cur.over)) {
                    top = sc;
                    best_T = nt;
                    int *x = best;
                    best = buf;
                    buf = x;
                }
            }
        }
        free(live);
        sim_done(&s);
        if (!best_T)
            break;
        *steps = xreallocarray(*steps, (size_t)best_T, sizeof **steps);
        memcpy(*steps, best, (size_t)best_T * sizeof *best);
        *T = best_T;
        made++;
    }
    free(buf);
    free(best);
    free(mark);
    return made;
}

/* The deep rerun (plan_rerun_deep): the largest held values tried, and
 * the positions after the peak where each one's rerun may go. */
#define DEEP_CANDIDATES 4
#define DEEP_POSITIONS 32

/* The schedule with v made again before step q (pk < q <= T) into out[]:
 * the steps of (pk, q) that do not depend on v's old copy stay, then every
 * step up to v's production p whose node v depends on (R: the same runs in
 * the same order, valid as the prefix was), then the steps of (pk, q) that
 * depend on v, then the rest. anc marks v and its ancestors; dep (per
 * node) and late (per step) are scratch. Returns the length. */
static int deep_at(const Graph *g, const int *steps, int T, int pk, int p, int v, int q,
                   const unsigned char *anc, unsigned char *dep, unsigned char *late, int *out)
{
    dep[v] = 1;
    for (int t = pk + 1; t < q; t++) {
        int x = steps[t], d = 0;
        for (int j = g->in_off[x]; j < g->in_off[x + 1] && !d; j++)
            d = dep[g->in_idx[j]];
        late[t] = (unsigned char)d;
        dep[x] = (unsigned char)(d || x == v);
    }
    /* clear the marks for the next position */
    dep[v] = 0;
    for (int t = pk + 1; t < q; t++)
        dep[steps[t]] = 0;
    int k = pk + 1;
    memcpy(out, steps, (size_t)k * sizeof *out);
    for (int t = pk + 1; t < q; t++)
        if (!late[t])
            out[k++] = steps[t];
    for (int t = 0; t <= p; t++)
        if (anc[steps[t]])
            out[k++] = steps[t];
    for (int t = pk + 1; t < q; t++)
        if (late[t])
            out[k++] = steps[t];
    memcpy(out + k, steps + q, (size_t)(T - q) * sizeof *out);
    return k + T - q;
}

/* Marks v and every node it depends on (not the graph's inputs) in anc;
 * 0 when one of them is pinned (rule), which a replay would run again. */
static int mark_ancestors(const Graph *g, int v, const unsigned char *rule, unsigned char *anc,
                          int *stack)
{
    int n = 0, ok = 1;
    anc[v] = 1;
    stack[n++] = v;
    while (n > 0) {
        int x = stack[--n];
        if (rule && rule[x] == NODE_PIN)
            ok = 0;
        for (int j = g->in_off[x]; j < g->in_off[x + 1]; j++) {
            int u = g->in_idx[j];
            if (!anc[u] && g->nodes[u].phase != PHASE_INPUT) {
                anc[u] = 1;
                stack[n++] = u;
            }
        }
    }
    return ok;
}

/* A value made before the peak step and held across it for a later read. */
static int held_later(const LiveValue *lv)
{
    return lv->reason == LIVE_HELD && lv->next_read >= 0 && lv->produced_at >= 0;
}

int plan_rerun_deep(const Graph *g, int **steps, int *T, int64_t limit, const unsigned char *rule,
                    int64_t work)
{
    Sim s;
    Score sc;
    if (!simulate(g, *steps, *T, limit, &sc, &s))
        return 0;
    /* within the limit, or an empty schedule whose resident inputs alone
     * are over it (no peak step) */
    if (sc.peak <= limit || s.peak_step < 0) {
        sim_done(&s);
        return 0;
    }
    int pk = s.peak_step, n = *T;
    LiveValue *live = NULL;
    int nl = sim_live_at(g, *steps, &s, pk, &live);
    sim_done(&s);
    unsigned char *anc = xcalloc((size_t)g->n, 1), *dep = xcalloc((size_t)g->n, 1);
    unsigned char *late = xcalloc((size_t)n, 1);
    int *stack = xmallocarray((size_t)g->n, sizeof *stack);
    /* a replay runs each step of the prefix at most once more */
    int *buf = xmallocarray((size_t)2 * n, sizeof *buf), *best = xmallocarray((size_t)2 * n, sizeof *best);
    Score top = {0};
    int best_T = 0, fits = 0;
    for (int i = 0; i < nl; i++)
        fits += held_later(&live[i]) && sc.peak - live[i].size <= limit;
    for (int i = 0, tried = 0; i < nl && tried < DEEP_CANDIDATES && work > 0; i++) {
        const LiveValue *lv = &live[i];
        /* a value whose release alone takes the peak step under the
         * limit (the largest alone when none does: live is largest
         * first): freeing a smaller one only moves the peak a little,
         * which the annealing does as well */
        if (!held_later(lv) || (fits ? sc.peak - lv->size > limit : tried > 0))
            continue;
        tried++;
        memset(anc, 0, (size_t)g->n);
        if (!mark_ancestors(g, lv->node, rule, anc, stack))
            continue;
        for (int j = 0; j < DEEP_POSITIONS; j++) {
            /* positions from just after the peak to the end, evenly */
            int q = pk + 1 + (int)((int64_t)(n - pk - 1) * j / (DEEP_POSITIONS - 1));
            if (j > 0 && q == pk + 1 + (int)((int64_t)(n - pk - 1) * (j - 1) / (DEEP_POSITIONS - 1)))
                continue;
            int nt = deep_at(g, *steps, n, pk, lv->produced_at, lv->node, q, anc, dep, late, buf);
            Score x;
            work -= nt + g->n_edges;
            if (simulate(g, buf, nt, limit, &x, NULL) && (!best_T || score_less(x, top))) {
                top = x;
                best_T = nt;
                int *t = best;
                best = buf;
                buf = t;
            }
        }
    }
    if (best_T) {
        *steps = xreallocarray(*steps, (size_t)best_T, sizeof **steps);
        memcpy(*steps, best, (size_t)best_T * sizeof *best);
        *T = best_T;
        plan_repair(g, steps, T, limit, rule, work);
    }
    free(live);
    free(anc);
    free(dep);
    free(late);
    free(stack);
    free(buf);
    free(best);
    return best_T > 0;
}
