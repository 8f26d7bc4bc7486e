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
 *
 * Where no chain of REPAIR_CHAIN nodes makes the value again, the deep
 * rerun (plan_rerun_deep) does, from a cone of its ancestors that a
 * minimum cut picks (cone_of): on regnet_y_400mf at 25 % (unit costs) the
 * shortcut's gradient is made again from the next block's gradient (half
 * its size, held) with that block's forward and backward run again, where
 * the whole backward from the loss had been replayed; FastSA's answer
 * went from +42..61 % to about +15 %.
 */
#include "src/plan/repair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/maxflow.h"
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
/* Work (simulated steps and edges) for the repair of each replay's best. */
#define DEEP_REPAIR_WORK 3000000

/* The schedule with v made again before step q (pk < q <= T) into out[]:
 * the steps of (pk, q) that do not depend on v's old copy stay, then the
 * replay rep[0 .. nr) that makes v again, then the steps of (pk, q) that
 * depend on v, then the rest. dep (per node) and late (per step) are
 * scratch. Returns the length. */
static int deep_at(const Graph *g, const int *steps, int T, int pk, int v, int q, const int *rep, int nr,
                   unsigned char *dep, unsigned char *late, int *out)
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
    memcpy(out + k, rep, (size_t)nr * sizeof *out);
    k += nr;
    for (int t = pk + 1; t < q; t++)
        if (late[t])
            out[k++] = steps[t];
    memcpy(out + k, steps + q, (size_t)(T - q) * sizeof *out);
    return k + T - q;
}

/* How a replay runs the nodes marked to make v again. Each is valid
 * wherever v's old copy is still made: an input the replay does not run
 * is resident or has a copy held from the prefix. */
enum {
    REPLAY_EVERY,   /* every run of the prefix up to v's production, in its
                     * order: the memory the prefix kept to */
    REPLAY_FIRST,   /* each node at its first run only (first runs come in
                     * an order the graph allows: a node's first run read
                     * its inputs' earlier ones) */
    REPLAY_DEPTH,   /* each node once, just before the first node that
                     * needs it (depth first from v, inputs in their
                     * order): a forward value waits for its backward
                     * reader instead of beside the whole forward */
    N_REPLAY
};

/* The replay of the marked nodes (mark) into rep[]; returns its length.
 * p is v's production step; seen (per node, zero) and stack (2 per node)
 * are scratch and left as they were. */
static int replay_of(const Graph *g, const int *steps, int p, int v, const unsigned char *mark, int how,
                     unsigned char *seen, int *stack, int *rep)
{
    int nr = 0;
    if (how == REPLAY_DEPTH) {
        int sp = 0;
        seen[v] = 1;
        stack[sp++] = v;
        stack[sp++] = g->in_off[v];
        while (sp > 0) {
            int x = stack[sp - 2], j = stack[sp - 1];
            if (j == g->in_off[x + 1]) {
                rep[nr++] = x;
                sp -= 2;
                continue;
            }
            stack[sp - 1] = j + 1;
            int u = g->in_idx[j];
            if (mark[u] && !seen[u]) {
                seen[u] = 1;
                stack[sp++] = u;
                stack[sp++] = g->in_off[u];
            }
        }
    } else {
        for (int t = 0; t <= p; t++)
            if (mark[steps[t]] && !seen[steps[t]]) {
                rep[nr++] = steps[t];
                seen[steps[t]] = (unsigned char)(how == REPLAY_FIRST);
            }
    }
    for (int i = 0; i < nr; i++)
        seen[rep[i]] = 0;
    return nr;
}

/* Marks v and every node it depends on (not the graph's inputs) in anc;
 * 0 when one of them is pinned (rule), which the whole replay would run
 * again (a cone holds it instead). */
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

/* Weights tried for a byte held across the peak against a unit of cost
 * (both scaled to the graph's largest) by cone_of: from nearly free,
 * where only v's own chain runs again, to dear, where the whole of what
 * is not held runs again. */
static const double CONE_LAMBDA[] = {0.25, 1, 4, 16, 64, 256, 1024, 4096, 16384};
#define N_LAMBDA ((int)(sizeof CONE_LAMBDA / sizeof *CONE_LAMBDA))

/* The cheapest cone to make v again after the peak: a set P of v's
 * ancestors (anc), v among them, to run again, every input of P being in
 * P, resident, or held across the peak. Holding a value the peak holds
 * already (live) is free, holding another costs lambda times its size; P
 * costs its nodes' costs; a pinned node never runs again. On regnet at 25 %
 * the gradient that the whole backward from the loss would make again is
 * made from the next block's (half its size, held) and the forward
 * values that block's backward reads, run again from the input.
 *
 * That is a closure problem, so a minimum cut: vertex A(x) on the source
 * side runs x again (edge A(x) -> sink, its cost), A(w) -> H(u) (never
 * cut) for each input u of w, and H(u) -> A(u) costs u's hold: an input
 * needed but not run again is held. Sets cone[] to P's marks (1 in P, 0
 * elsewhere). id[] is scratch per node. */
static void cone_of(const Graph *g, int v, const unsigned char *anc, const unsigned char *live,
                   const unsigned char *rule, double lambda, int *id, unsigned char *cone)
{
    int m = 0;
    double cmax = 0, smax = 0;
    for (int x = 0; x < g->n; x++)
        if (anc[x]) {
            id[x] = m++;
            cmax = fmax(cmax, g->nodes[x].cost);
            smax = fmax(smax, (double)g->nodes[x].size);
        }
    cmax = cmax > 0 ? cmax : 1;
    smax = smax > 0 ? smax : 1;
    int src = 2 * m, snk = 2 * m + 1;
    MaxFlow *f = maxflow_new(2 * m + 2);
    maxflow_edge(f, src, id[v], MAXFLOW_INF);
    for (int x = 0; x < g->n; x++) {
        if (!anc[x])
            continue;
        int pinned = rule && rule[x] == NODE_PIN && x != v;
        maxflow_edge(f, id[x], snk, pinned ? MAXFLOW_INF : g->nodes[x].cost / cmax);
        if (!live[x] || x == v)
            maxflow_edge(f, m + id[x], id[x], lambda * (double)g->nodes[x].size / smax);
        for (int j = g->in_off[x]; j < g->in_off[x + 1]; j++)
            if (anc[g->in_idx[j]])
                maxflow_edge(f, id[x], m + id[g->in_idx[j]], MAXFLOW_INF);
    }
    maxflow_run(f, src, snk);
    for (int x = 0; x < g->n; x++)
        cone[x] = (unsigned char)(anc[x] && maxflow_source_side(f, id[x]));
    maxflow_free(f);
}

/* A value made before the peak step and held across it for a later read. */
static int held_later(const LiveValue *lv)
{
    return lv->reason == LIVE_HELD && lv->next_read >= 0 && lv->produced_at >= 0;
}

/* Within the limit, the cheaper; otherwise as score_less. */
static int deep_less(Score a, Score b, int64_t limit)
{
    int fa = a.peak <= limit, fb = b.peak <= limit;
    if (fa && fb)
        return a.cost < b.cost;
    if (fa != fb)
        return fa;
    return score_less(a, b);
}

/* What plan_rerun_deep tries and keeps. */
typedef struct {
    const Graph *g;
    const unsigned char *rule;
    const int *steps;
    int n, pk;
    int64_t limit, work;
    unsigned char *dep, *late;
    int *buf, *cand, cand_T;
    int *best, best_T;   /* malloc'd, repaired */
    Score ctop, top;
} Deep;

/* lv's value made again by the replay rep[0 .. nr) at positions from just
 * after the peak to the end, evenly; the one that peaks lowest is then
 * repaired (plan_repair: the replay beside what is held after the peak
 * may peak anew) and kept in D when it is the best so far. */
static void deep_positions(Deep *D, const LiveValue *lv, const int *rep, int nr)
{
    int n = D->n, pk = D->pk;
    D->cand_T = 0;
    for (int j = 0; j < DEEP_POSITIONS && D->work > 0; j++) {
        int q = pk + 1 + (int)((int64_t)(n - pk - 1) * j / (DEEP_POSITIONS - 1));
        if (j > 0 && q == pk + 1 + (int)((int64_t)(n - pk - 1) * (j - 1) / (DEEP_POSITIONS - 1)))
            continue;
        int nt = deep_at(D->g, D->steps, n, pk, lv->node, q, rep, nr, D->dep, D->late, D->buf);
        Score x;
        D->work -= nt + D->g->n_edges;
        if (simulate(D->g, D->buf, nt, D->limit, &x, NULL) && (!D->cand_T || deep_less(x, D->ctop, D->limit))) {
            D->ctop = x;
            D->cand_T = nt;
            int *t = D->cand;
            D->cand = D->buf;
            D->buf = t;
        }
    }
    if (!D->cand_T)
        return;
    int T = D->cand_T, *steps = xmallocarray((size_t)T, sizeof *steps);
    memcpy(steps, D->cand, (size_t)T * sizeof *steps);
    if (D->ctop.peak > D->limit) {
        /* a share of what is left, so later replays get theirs */
        int64_t w = D->work / 4 < DEEP_REPAIR_WORK ? D->work / 4 : DEEP_REPAIR_WORK;
        plan_repair(D->g, &steps, &T, D->limit, D->rule, w);
        D->work -= w;
    }
    Score x;
    if (simulate(D->g, steps, T, D->limit, &x, NULL) && (!D->best_T || deep_less(x, D->top, D->limit))) {
        D->top = x;
        D->best_T = T;
        free(D->best);
        D->best = steps;
    } else {
        free(steps);
    }
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
    unsigned char *anc = xcalloc((size_t)g->n, 1), *cone = xcalloc((size_t)g->n, 1);
    unsigned char *prev = xcalloc((size_t)g->n, 1), *at_peak = xcalloc((size_t)g->n, 1);
    unsigned char *seen = xcalloc((size_t)g->n, 1);
    int *stack = xmallocarray((size_t)2 * g->n + 2, sizeof *stack), *id = xmallocarray((size_t)g->n, sizeof *id);
    int *rep = xmallocarray((size_t)n + 1, sizeof *rep);
    for (int i = 0; i < nl; i++)
        if (live[i].reason != LIVE_WORKSPACE)
            at_peak[live[i].node] = 1;
    /* a replay runs each step of the prefix at most once more */
    Deep D = {.g = g, .rule = rule, .steps = *steps, .n = n, .pk = pk, .limit = limit, .work = work,
              .dep = xcalloc((size_t)g->n, 1), .late = xcalloc((size_t)n, 1),
              .buf = xmallocarray((size_t)2 * n, sizeof(int)), .cand = xmallocarray((size_t)2 * n, sizeof(int))};
    int fits = 0;
    for (int i = 0; i < nl; i++)
        fits += held_later(&live[i]) && sc.peak - live[i].size <= limit;
    for (int i = 0, tried = 0; i < nl && tried < DEEP_CANDIDATES && D.work > 0; i++) {
        const LiveValue *lv = &live[i];
        /* a value whose release alone takes the peak step under the
         * limit (the largest alone when none does: live is largest
         * first): freeing a smaller one only moves the peak a little,
         * which the annealing does as well */
        if (!held_later(lv) || (fits ? sc.peak - lv->size > limit : tried > 0))
            continue;
        tried++;
        if (rule && rule[lv->node] == NODE_PIN)
            continue;
        int v = lv->node, p = lv->produced_at;
        memset(anc, 0, (size_t)g->n);
        /* every ancestor at every run, when none is pinned (the peak's
         * values run again too: where the cones hold them beside the
         * replay, this may fit where they do not) */
        if (mark_ancestors(g, v, rule, anc, stack))
            deep_positions(&D, lv, rep, replay_of(g, *steps, p, v, anc, REPLAY_EVERY, seen, stack, rep));
        /* the cones, from the cheapest hold up */
        for (int c = 0; c < N_LAMBDA && D.work > 0; c++) {
            cone_of(g, v, anc, at_peak, rule, CONE_LAMBDA[c], id, cone);
            D.work -= 4 * ((int64_t)g->n + g->n_edges);
            if (c > 0 && memcmp(cone, prev, (size_t)g->n) == 0)
                continue;
            memcpy(prev, cone, (size_t)g->n);
            for (int how = 0; how < N_REPLAY; how++)
                deep_positions(&D, lv, rep, replay_of(g, *steps, p, v, cone, how, seen, stack, rep));
        }
    }
    int made = D.best_T > 0;
    if (made) {
        free(*steps);
        *steps = D.best;
        *T = D.best_T;
    }
    free(live);
    free(anc);
    free(cone);
    free(prev);
    free(at_peak);
    free(seen);
    free(stack);
    free(id);
    free(rep);
    free(D.dep);
    free(D.late);
    free(D.buf);
    free(D.cand);
    return made;
}
