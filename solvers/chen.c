/* chen.c — Chen et al. 2016 sqrt(n) segment checkpointing on training graphs.
 *
 * Candidate boundaries are the forward nodes every path from the forward
 * sources to the loss passes through (cut vertices between a super-source
 * and a super-sink, found with an iterative Tarjan DFS). Some of them are
 * kept as checkpoints; the forward pass runs once, and the backward pass
 * goes segment by segment from the last, recomputing each segment's
 * interior forward nodes right before that segment's gradient nodes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/pairing.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/csr.h"
#include "src/base/heap.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_INT("segments", "auto", 1, 1e9, "auto",
              "number of segments; auto: ~sqrt(candidates), or with a budget the cheapest count that fits"),
    OPT_P_END,
};

typedef struct {
    int *cand;      /* candidate boundaries in forward order */
    int m;
    int *topo;      /* non-input nodes in the graph's topological order */
    int T;
    int *pos;       /* position of each node in topo, -1 for inputs */
    /* result of the last solve, for describe */
    int *seg;       /* segment of each forward node, -1 otherwise */
    unsigned char *ck;
    int nseg;
    /* the segment counts the budget search tried are the solver's
     * candidates (Solver.cands, tag = count): budget-independent */
} Chen;

static int is_fwd(const Graph *g, int v)
{
    return g->nodes[v].phase == PHASE_FWD;
}

/* Cut vertices between S (next to forward nodes without forward inputs) and
 * L (next to forward nodes the loss reads) in the undirected forward graph.
 * Input values are resident for the whole run, so they never tie segments
 * together and are left out. Iterative DFS: no recursion over depth. */
static int *find_candidates(const Graph *g, int *m)
{
    int n = g->n, S = n, L = n + 1, N = n + 2;
    int have_loss = 0;
    for (int v = 0; v < n; v++)
        have_loss |= g->nodes[v].phase == PHASE_LOSS;
    int *deg = xcalloc((size_t)N, sizeof *deg);
    unsigned char *toS = xcalloc((size_t)n, 1), *toL = xcalloc((size_t)n, 1);
    for (int v = 0; v < n; v++) {
        if (!is_fwd(g, v))
            continue;
        int fin = 0, fout = 0, loss = 0;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (is_fwd(g, g->in_idx[k]))
                fin++;
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
            int w = g->out_idx[k];
            fout += is_fwd(g, w);
            loss |= g->nodes[w].phase == PHASE_LOSS;
        }
        toS[v] = fin == 0;
        toL[v] = loss || (!have_loss && fout == 0);
        deg[v] = fin + fout + toS[v] + toL[v];
        deg[S] += toS[v];
        deg[L] += toL[v];
    }
    int *off = xmallocarray((size_t)N + 1, sizeof *off);
    off[0] = 0;
    for (int v = 0; v < N; v++)
        off[v + 1] = off[v] + deg[v];
    int *adj = xmallocarray((size_t)off[N] + 1, sizeof *adj);
    int *fill = xmallocarray((size_t)N, sizeof *fill);
    memcpy(fill, off, (size_t)N * sizeof *fill);
    for (int v = 0; v < n; v++) {
        if (!is_fwd(g, v))
            continue;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (is_fwd(g, g->in_idx[k]))
                adj[fill[v]++] = g->in_idx[k];
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++)
            if (is_fwd(g, g->out_idx[k]))
                adj[fill[v]++] = g->out_idx[k];
        if (toS[v]) {
            adj[fill[v]++] = S;
            adj[fill[S]++] = v;
        }
        if (toL[v]) {
            adj[fill[v]++] = L;
            adj[fill[L]++] = v;
        }
    }
    int *disc = xmallocarray((size_t)N, sizeof *disc);
    int *low = xmallocarray((size_t)N, sizeof *low);
    int *parent = xmallocarray((size_t)N, sizeof *parent);
    int *it = xmallocarray((size_t)N, sizeof *it);
    int *stack = xmallocarray((size_t)N, sizeof *stack);
    for (int v = 0; v < N; v++)
        disc[v] = -1;
    int time = 0, sp = 0;
    disc[S] = low[S] = time++;
    parent[S] = -1;
    it[S] = off[S];
    stack[sp++] = S;
    while (sp) {
        int v = stack[sp - 1];
        if (it[v] < off[v + 1]) {
            int w = adj[it[v]++];
            if (disc[w] < 0) {
                disc[w] = low[w] = time++;
                parent[w] = v;
                it[w] = off[w];
                stack[sp++] = w;
            } else if (w != parent[v] && disc[w] < low[v]) {
                low[v] = disc[w];
            }
        } else {
            sp--;
            if (parent[v] >= 0 && low[v] < low[parent[v]])
                low[parent[v]] = low[v];
        }
    }
    /* On the tree path S..L, c separates S from L iff its child on the path
     * cannot climb above c. */
    int *cand = xmallocarray((size_t)n + 1, sizeof *cand);
    int k = 0;
    if (disc[L] >= 0)
        for (int ch = L, c = parent[L]; c != S; ch = c, c = parent[c])
            if (low[ch] >= disc[c])
                cand[k++] = c;
    for (int i = 0; i < k / 2; i++) {
        int t = cand[i];
        cand[i] = cand[k - 1 - i];
        cand[k - 1 - i] = t;
    }
    free(deg);
    free(toS);
    free(toL);
    free(off);
    free(adj);
    free(fill);
    free(disc);
    free(low);
    free(parent);
    free(it);
    free(stack);
    *m = k;
    return cand;
}

static int chen_prepare(Solver *s, Err *e)
{
    const Graph *g = s->g;
    if (pairing_require(g, "chen", e))
        return e->code;
    int m;
    int *cand = find_candidates(g, &m);
    if (m == 0) {
        free(cand);
        return err_set(e, ERR_UNSUPPORTED,
                       "chen: no articulation points in the forward part: chen needs a chain-like graph");
    }
    Chen *st = s->state;
    st->cand = cand;
    st->m = m;
    st->topo = sim_baseline_order(g, &st->T);
    st->pos = xmallocarray((size_t)g->n, sizeof *st->pos);
    for (int v = 0; v < g->n; v++)
        st->pos[v] = -1;
    for (int t = 0; t < st->T; t++)
        st->pos[st->topo[t]] = t;
    st->seg = xmallocarray((size_t)g->n, sizeof *st->seg);
    st->ck = xcalloc((size_t)g->n, 1);
    return ERR_OK;
}

/* Max-heap of ready backward nodes: higher segment first, then earlier in
 * the topological order. */
typedef struct {
    const int *bseg, *pos;
} ReadyKey;

static inline int ready_first(const ReadyKey *k, const int *a, const int *b)
{
    return k->bseg[*a] != k->bseg[*b] ? k->bseg[*a] > k->bseg[*b] : k->pos[*a] < k->pos[*b];
}
HEAP_DEFINE(ready, int, ReadyKey, ready_first)

/* Schedule with nseg segments (nseg - 1 checkpoints spread evenly over the
 * candidates) into out; fills st->seg, st->ck and st->nseg. */
static void build(const Graph *g, Chen *st, int nseg, Plan *out)
{
    memset(st->ck, 0, (size_t)g->n);
    int K = 0, prev = -1;
    for (int j = 1; j < nseg; j++) {
        int i = (int)((long long)j * st->m / nseg);
        if (i <= prev || i >= st->m)
            continue;
        st->ck[st->cand[i]] = 1;
        prev = i;
        K++;
    }
    st->nseg = K + 1;
    for (int t = 0; t < st->T; t++) {
        int v = st->topo[t];
        st->seg[v] = -1;
        if (!is_fwd(g, v))
            continue;
        int sg = 0;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (is_fwd(g, u) && st->seg[u] + st->ck[u] > sg)
                sg = st->seg[u] + st->ck[u];
        }
        st->seg[v] = sg;
    }
    plan_reset(out);
    for (int t = 0; t < st->T; t++)
        if (is_fwd(g, st->topo[t]))
            plan_push(out, st->topo[t]);
    for (int t = 0; t < st->T; t++)
        if (g->nodes[st->topo[t]].phase == PHASE_LOSS)
            plan_push(out, st->topo[t]);
    /* forward nodes bucketed by segment, topological order kept inside */
    Csr c;
    csr_begin(&c, K + 1);
    do
        for (int t = 0; t < st->T; t++)
            if (is_fwd(g, st->topo[t]))
                csr_put(&c, st->seg[st->topo[t]], st->topo[t]);
    while (csr_next(&c));
    int *start = c.off, *bucket = c.adj;
    /* backward nodes: Kahn's algorithm over bwd-to-bwd edges, the ready
     * node of the highest segment first, then topological position */
    int *bseg = xmallocarray((size_t)g->n, sizeof *bseg);
    int *indeg = xcalloc((size_t)g->n, sizeof *indeg);
    int *heap = xmallocarray((size_t)g->n + 1, sizeof *heap);
    int nh = 0;
    const ReadyKey key = {bseg, st->pos};
    for (int t = 0; t < st->T; t++) {
        int b = st->topo[t];
        if (g->nodes[b].phase != PHASE_BWD)
            continue;
        int gf = g->nodes[b].pair;
        bseg[b] = gf >= 0 && is_fwd(g, gf) ? st->seg[gf] : K;
        for (int k = g->in_off[b]; k < g->in_off[b + 1]; k++)
            indeg[b] += g->nodes[g->in_idx[k]].phase == PHASE_BWD;
        if (indeg[b] == 0)
            ready_push(heap, &nh, b, &key);
    }
    for (int sg = K; sg >= 0; sg--) {
        /* the last segment's values are still held from the forward pass */
        if (sg < K)
            for (int i = start[sg]; i < start[sg + 1]; i++)
                if (!st->ck[bucket[i]])
                    plan_push(out, bucket[i]);
        while (nh && (sg == 0 || bseg[heap[0]] >= sg)) {
            int b = ready_pop(heap, &nh, &key);
            plan_push(out, b);
            for (int k = g->out_off[b]; k < g->out_off[b + 1]; k++) {
                int w = g->out_idx[k];
                if (g->nodes[w].phase == PHASE_BWD && --indeg[w] == 0)
                    ready_push(heap, &nh, w, &key);
            }
        }
    }
    free(start);
    free(bucket);
    free(bseg);
    free(indeg);
    free(heap);
}

static int rebuild(void *ctx, const Cand *c, Plan *out, Progress *p, Err *e)
{
    (void)p;
    (void)e;
    const Solver *s = ctx;
    build(s->g, s->state, c->tag, out);
    return ERR_OK;
}

/* Simulate every segment count of the budget search once (at most ~128:
 * every count on small graphs, an even spread on large ones) into the
 * solver's candidate set; a budget is then a pick (src/plan/cands.h). */
static int fill_table(Solver *s, Progress *p, Err *e)
{
    Chen *st = s->state;
    int span = st->m + 1, step = span > 128 ? (span + 127) / 128 : 1, nt = 0;
    int *tags = xmallocarray((size_t)span + 1, sizeof *tags);
    for (int k = 1; k <= span; k += step)
        tags[nt++] = k;
    s->cands.rebuild = rebuild;
    s->cands.ctx = s;
    int rc = cands_add_family(&s->cands, s->g, tags, nt, "chen", p, e);
    free(tags);
    return rc;
}

static int chen_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    const Graph *g = s->g;
    Chen *st = s->state;
    const char *sv = solver_opt_str(s, "segments");
    int k, rc = ERR_OK;
    if (strcmp(sv, "auto") != 0) {
        long long x;
        if (solver_opt_int(s, "segments", &x, e))
            return ERR_USAGE;
        k = x > st->m + 1 ? st->m + 1 : (int)x;
    } else if (budget == PLAN_NO_BUDGET) {
        k = (int)lround(sqrt((double)st->m));
        if (k < 1)
            k = 1;
    } else {
        if (!s->cands.n)
            rc = fill_table(s, p, e);
        k = rc ? 0 : s->cands.c[cands_pick(&s->cands, budget)].tag;
    }
    if (rc) {
        plan_reset(out);
        st->nseg = 0;
    } else {
        build(g, st, k, out);
    }
    return rc;
}

static void chen_describe(const Solver *s, Overlay *out)
{
    const Graph *g = s->g;
    const Chen *st = s->state;
    if (st->nseg == 0)
        return;   /* nothing solved yet: no structure */
    overlay_set_titlef(out, "segments (k=%d, %d candidate boundaries)", st->nseg, st->m);
    char buf[256];
    int *grp = xmallocarray((size_t)st->nseg, sizeof *grp);
    for (int sg = 0; sg < st->nseg; sg++) {
        int end = -1;
        for (int v = 0; v < g->n; v++)
            if (st->seg[v] == sg && st->ck[v])
                end = v;
        if (end >= 0)
            snprintf(buf, sizeof buf, "segment %d (checkpoint %s)", sg + 1, g->nodes[end].id);
        else
            snprintf(buf, sizeof buf, "segment %d (last, kept from the forward pass)", sg + 1);
        grp[sg] = overlay_add(out, OVERLAY_SEGMENT, buf, -1, 0);
    }
    for (int t = 0; t < st->T; t++) {
        int v = st->topo[t];
        if (is_fwd(g, v) && st->seg[v] >= 0)
            overlay_add_node(out, grp[st->seg[v]], v);
    }
    free(grp);
}

static void chen_release(Solver *s)
{
    Chen *st = s->state;
    free(st->cand);
    free(st->topo);
    free(st->pos);
    free(st->seg);
    free(st->ck);
}

const SolverClass solver_chen = {
    .name = "chen",
    .title = "Chen et al. sqrt(n) checkpointing: keep segment boundaries, recompute each segment in backward",
    .params = params,
    .state_size = sizeof(Chen),
    .prepare = chen_prepare,
    .solve = chen_solve,
    .describe = chen_describe,
    .release = chen_release,
};
