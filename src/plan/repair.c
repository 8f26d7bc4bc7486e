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
