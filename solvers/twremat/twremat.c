/* twremat.c — TWRemat (Kumar et al. 2019, Algorithm 1): rematerialization
 * by divide and conquer over a tree decomposition.
 *
 * prepare: the undirected graph of the non-input nodes (inputs are resident
 * and never scheduled, so they constrain nothing) is decomposed by min-fill
 * (treedec.c), shrunk by Lemma 1, and its bag tree cut recursively at
 * balanced separator bags (Lemma 3). The separators do not depend on what a
 * call must compute, so they are found once: the recursion of Algorithm 1
 * follows the centroid decomposition of the bag tree, and a node is a
 * "separator node" of exactly one centroid, the shallowest bag holding it
 * (the bags holding a node are connected, so that bag is unique). The node
 * set V' of a component is then the nodes owned inside its centroid
 * subtree, tested in O(1) through Euler-tour intervals.
 *
 * A call (component c, set S to compute) computes, in topological order,
 * the separator nodes of c that S needs (Algorithm 1 computes all of X*;
 * the unneeded ones only cost time and memory), each right after computing
 * its inputs in every child component by a recursive call, then S's other
 * nodes per child component. Below k bags (TWRemat(k), §4) the ancestors
 * of S inside V' are run once in topological order instead. The recursion
 * depth is the centroid depth, < log2(bags) + 2, and is checked.
 *
 * The algorithm has no budget. To serve one, schedules for a descending
 * list of k are generated once, simulated (sim.c), and cached in the
 * state; a budget picks the cheapest whose simulated peak fits, else the
 * lowest peak. Smaller k recurses deeper and is longer; the scan stops at
 * the first k whose schedule exceeds max_steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/twremat/treedec.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/csr.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"

/* Schedules up to this many steps are kept; longer ones are rebuilt when
 * chosen (generation is deterministic and linear in the output). */
#ifndef KEEP_STEPS
#define KEEP_STEPS (1 << 20)
#endif
#define DEPTH_GUARD 64

static const SolverParam params[] = {
    OPT_P_INT("k", "auto", 1, 1e9, "auto",
              "stop recursing in components of fewer than k bags (1 = full Algorithm 1); "
              "auto: scan k and keep the cheapest schedule whose peak meets the budget"),
    OPT_P_INT("max_steps", "5000000", 1, 1e9, NULL, "refuse schedules longer than this many steps"),
    OPT_P_END,
};

typedef struct {
    int k;
    int too_long;       /* generation stopped at max_steps */
    int64_t peak;
    double cost;
    int T;
    int *steps;         /* NULL when T > KEEP_STEPS: rebuilt on demand */
} TwCand;

typedef struct {
    int m;              /* non-input nodes = vertices */
    int *vert_node;     /* vertex -> node */
    TreeDec td;         /* over vertices */
    int *cpar, *cdepth, *csize;
    int top, maxdepth;
    int *tin, *tout;    /* centroid-tree Euler intervals, per bag */
    int *owner;         /* node -> bag it is a separator node of; -1 inputs */
    int *sep_off, *sep; /* per bag: nodes it owns, topological order */
    int *rank;          /* node -> position in the graph's topological order */
    long long kopt;     /* 0: auto */
    long long max_steps;
    TwCand *cand;
    int ncand, ndone;   /* candidates listed / generated so far */
    int chosen;         /* index into cand of the last solve, -1 none */
} TW;

/* ---- the recursion ---------------------------------------------------- */

typedef struct {
    const Graph *g;
    const TW *st;
    int k;
    long long max_steps;
    int *out;
    int T, cap;
    int over, cancelled, deep;
    Progress *p;
    int *stamp;
    int gen;
} Gen;

typedef struct {
    int child;
    int node;
    int rank;
} Pair;

static int in_component(const TW *st, int c, int v)
{
    int b = st->owner[v];
    return b >= 0 && st->tin[c] <= st->tin[b] && st->tin[b] < st->tout[c];
}

/* The child component of c (a centroid below c) that holds bag b. */
static int child_toward(const TW *st, int c, int b)
{
    while (st->cpar[b] != c)
        b = st->cpar[b];
    return b;
}

static void emit(Gen *G, int v)
{
    if (G->T >= G->max_steps) {
        G->over = 1;
        return;
    }
    if (G->T == G->cap) {
        G->cap = G->cap ? 2 * G->cap : 1024;
        G->out = xreallocarray(G->out, (size_t)G->cap, sizeof *G->out);
    }
    G->out[G->T++] = v;
    if ((G->T & 0xffff) == 0 && progress_cancelled(G->p))
        G->cancelled = 1;
}

static int cmp_pair(const void *a, const void *b)
{
    const Pair *x = a, *y = b;
    if (x->child != y->child)
        return x->child < y->child ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void twr(Gen *G, int c, const int *S, int nS, int depth);

/* Pairs grouped by child component: one recursive call per group. */
static void run_groups(Gen *G, Pair *pr, int np, int depth)
{
    if (!np)
        return;
    qsort(pr, (size_t)np, sizeof *pr, cmp_pair);
    int *set = xmallocarray((size_t)np, sizeof *set);
    for (int i = 0; i < np && !G->over && !G->cancelled;) {
        int j = i, ns = 0;
        while (j < np && pr[j].child == pr[i].child)
            set[ns++] = pr[j++].node;
        twr(G, pr[i].child, set, ns, depth + 1);
        i = j;
    }
    free(set);
}

/* Add (child, u) for u in V'(c) outside c's own separator nodes. */
static void add_pair(const TW *st, int c, int u, Pair **pr, int *np, int *cap)
{
    if (st->owner[u] == c || !in_component(st, c, u))
        return;
    xgrow((void **)pr, cap, *np + 1, sizeof **pr);
    (*pr)[*np].child = child_toward(st, c, st->owner[u]);
    (*pr)[*np].node = u;
    (*pr)[*np].rank = st->rank[u];
    (*np)++;
}

/* Algorithm 1 on component c (V' = nodes owned in c's centroid subtree):
 * compute every node of S. Inputs of V' from outside it are separator
 * nodes of enclosing calls, already computed (Lemma 4). */
static void twr(Gen *G, int c, const int *S, int nS, int depth)
{
    const TW *st = G->st;
    const Graph *g = G->g;
    if (G->over || G->cancelled || !nS)
        return;
    if (depth > st->maxdepth || depth > DEPTH_GUARD) {
        G->deep = 1;    /* cannot happen: centroid depths are logarithmic */
        return;
    }
    /* what S needs inside V': its ancestors there, S included */
    int gen = ++G->gen;
    int cap = nS + 16, nl = 0;
    int *L = xmallocarray((size_t)cap, sizeof *L);
    for (int i = 0; i < nS; i++)
        if (G->stamp[S[i]] != gen) {
            G->stamp[S[i]] = gen;
            L[nl++] = S[i];
        }
    for (int i = 0; i < nl; i++) {
        int v = L[i];
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
            int u = g->in_idx[q];
            if (G->stamp[u] == gen || !in_component(st, c, u))
                continue;
            G->stamp[u] = gen;
            xgrow((void **)&L, &cap, nl + 1, sizeof *L);
            L[nl++] = u;
        }
    }
    if (st->csize[c] < G->k) {
        /* TWRemat(k) base case: one topological pass */
        Pair *ord = xmallocarray((size_t)nl, sizeof *ord);
        for (int i = 0; i < nl; i++)
            ord[i] = (Pair){.child = 0, .node = L[i], .rank = st->rank[L[i]]};
        qsort(ord, (size_t)nl, sizeof *ord, cmp_pair);
        for (int i = 0; i < nl && !G->over; i++)
            emit(G, ord[i].node);
        free(ord);
        free(L);
        return;
    }
    /* separator nodes S needs, in topological order (sep is sorted) */
    int nneed = 0;
    for (int q = st->sep_off[c]; q < st->sep_off[c + 1]; q++)
        if (G->stamp[st->sep[q]] == gen)
            L[nneed++] = st->sep[q];   /* L's closure is no longer needed */
    Pair *pr = NULL;
    int np = 0, pcap = 0;
    for (int i = 0; i < nneed && !G->over && !G->cancelled; i++) {
        int v = L[i];
        np = 0;
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++)
            add_pair(st, c, g->in_idx[q], &pr, &np, &pcap);
        run_groups(G, pr, np, depth);
        emit(G, v);
    }
    np = 0;
    for (int i = 0; i < nS; i++)
        add_pair(st, c, S[i], &pr, &np, &pcap);
    run_groups(G, pr, np, depth);
    free(pr);
    free(L);
}

/* Schedule for TWRemat(k) into *out (owned by the caller). Returns ERR_OK,
 * ERR_LIMIT (longer than max_steps) or ERR_CANCELLED. */
static int generate(const Solver *s, int k, Progress *p, int **out, int *T)
{
    const TW *st = s->state;
    const Graph *g = s->g;
    Gen G = {.g = g, .st = st, .k = k, .max_steps = st->max_steps, .p = p};
    G.stamp = xcalloc((size_t)g->n, sizeof *G.stamp);
    int *S = xmallocarray((size_t)g->n_outputs + 1, sizeof *S);
    int nS = 0;
    for (int i = 0; i < g->n_outputs; i++)
        if (g->nodes[g->outputs[i]].phase != PHASE_INPUT)
            S[nS++] = g->outputs[i];
    twr(&G, st->top, S, nS, 0);
    free(S);
    free(G.stamp);
    *out = G.out;
    *T = G.T;
    if (G.cancelled)
        return ERR_CANCELLED;
    if (G.over || G.deep)
        return ERR_LIMIT;
    return ERR_OK;
}

/* ---- prepare ---------------------------------------------------------- */

/* The undirected graph over the running nodes (vertices), each edge listed
 * from its head: off/adj in CSR form (caller frees). */
static void vertex_graph(const Graph *g, const int *node_vert, int m, int **off_out, int **adj_out)
{
    Csr c;
    csr_begin(&c, m);
    do
        for (int v = 0; v < g->n; v++)
            if (node_vert[v] >= 0)
                for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++)
                    if (node_vert[g->in_idx[q]] >= 0)
                        csr_put(&c, node_vert[v], node_vert[g->in_idx[q]]);
    while (csr_next(&c));
    *off_out = c.off;
    *adj_out = c.adj;
}

/* Euler intervals tin/tout of the centroid tree (explicit stack). */
static void euler_intervals(TW *st)
{
    int B = st->td.nbags;
    Csr c;
    csr_begin(&c, B);
    do
        for (int b = 0; b < B; b++)
            if (st->cpar[b] >= 0)
                csr_put(&c, st->cpar[b], b);
    while (csr_next(&c));
    int *choff = c.off, *ch = c.adj;
    st->tin = xmallocarray((size_t)B, sizeof *st->tin);
    st->tout = xmallocarray((size_t)B, sizeof *st->tout);
    int *stack = xmallocarray((size_t)B * 2 + 2, sizeof *stack);
    int sp = 0, clock = 0;
    stack[sp++] = st->top;
    stack[sp++] = 0;   /* 0: enter, 1: leave */
    while (sp) {
        int phase = stack[--sp], b = stack[--sp];
        if (phase) {
            st->tout[b] = clock;
            continue;
        }
        st->tin[b] = clock++;
        stack[sp++] = b;
        stack[sp++] = 1;
        for (int q = choff[b]; q < choff[b + 1]; q++) {
            stack[sp++] = ch[q];
            stack[sp++] = 0;
        }
    }
    free(stack);
    free(choff);
    free(ch);
}

/* owner: the shallowest bag holding each node; rank: topological rank;
 * sep: each bag's owned nodes in topological order. */
static void owners(TW *st, const Graph *g)
{
    int n = g->n, B = st->td.nbags;
    st->owner = xmallocarray((size_t)n, sizeof *st->owner);
    for (int v = 0; v < n; v++)
        st->owner[v] = -1;
    for (int b = 0; b < B; b++)
        for (int q = st->td.off[b]; q < st->td.off[b + 1]; q++) {
            int v = st->vert_node[st->td.nodes[q]];
            if (st->owner[v] < 0 || st->cdepth[b] < st->cdepth[st->owner[v]])
                st->owner[v] = b;
        }
    st->rank = xmallocarray((size_t)n, sizeof *st->rank);
    for (int t = 0; t < n; t++)
        st->rank[g->topo[t]] = t;
    Csr c;
    csr_begin(&c, B);
    do
        for (int t = 0; t < n; t++) {
            int v = g->topo[t];
            if (st->owner[v] >= 0)
                csr_put(&c, st->owner[v], v);
        }
    while (csr_next(&c));
    st->sep_off = c.off;
    st->sep = c.adj;
}

/* The k of the scan, largest first: every k past the bag count is one
 * topological pass; then ~x1.5 steps down to 1. An explicit k is the one
 * candidate. */
static void candidate_ks(TW *st)
{
    int B = st->td.nbags, nc = 0, kc[80];
    for (long long k = 1; k <= B && nc < 70;) {
        kc[nc++] = (int)k;
        k = k < 4 ? k + 1 : (k * 3 + 1) / 2;
    }
    kc[nc++] = B + 1;
    if (st->kopt) {
        nc = 1;
        kc[0] = st->kopt > B + 1 ? B + 1 : (int)st->kopt;
    }
    st->cand = xcalloc((size_t)nc, sizeof *st->cand);
    for (int i = 0; i < nc; i++)
        st->cand[i].k = kc[nc - 1 - i];
    st->ncand = nc;
}

static int tw_prepare(Solver *s, Err *e)
{
    const Graph *g = s->g;
    long long kopt = 0, max_steps = 0;   /* ranges checked by the option table */
    if (strcmp(solver_opt_str(s, "k"), "auto") != 0 && solver_opt_int(s, "k", &kopt, e))
        return ERR_USAGE;
    if (solver_opt_int(s, "max_steps", &max_steps, e))
        return ERR_USAGE;
    int n = g->n, m = 0;
    int *node_vert = xmallocarray((size_t)n, sizeof *node_vert);
    for (int v = 0; v < n; v++)
        node_vert[v] = g->nodes[v].phase == PHASE_INPUT ? -1 : m++;
    if (m == 0 || m > TREEDEC_MAX_N) {
        free(node_vert);
        return m ? err_set(e, ERR_UNSUPPORTED,
                           "twremat: %d nodes to schedule, more than the %d the tree decomposition "
                           "handles", m, TREEDEC_MAX_N)
                 : err_set(e, ERR_UNSUPPORTED, "twremat: the graph has only input nodes");
    }
    TW *st = s->state;
    st->m = m;
    st->kopt = kopt;
    st->max_steps = max_steps;
    st->chosen = -1;
    st->vert_node = xmallocarray((size_t)m, sizeof *st->vert_node);
    for (int v = 0; v < n; v++)
        if (node_vert[v] >= 0)
            st->vert_node[node_vert[v]] = v;
    int *off, *adj;
    vertex_graph(g, node_vert, m, &off, &adj);
    free(node_vert);
    treedec_init(&st->td);
    int rc = treedec_min_fill(m, off, adj, &st->td, s->prepare_progress, e);
    free(off);
    free(adj);
    if (rc)
        return rc;
    treedec_shrink(&st->td);
    int B = st->td.nbags;
    st->cpar = xmallocarray((size_t)B, sizeof *st->cpar);
    st->cdepth = xmallocarray((size_t)B, sizeof *st->cdepth);
    st->csize = xmallocarray((size_t)B, sizeof *st->csize);
    st->top = treedec_centroids(&st->td, st->cpar, st->cdepth, st->csize);
    for (int b = 0; b < B; b++)
        if (st->cdepth[b] + 1 > st->maxdepth)
            st->maxdepth = st->cdepth[b] + 1;
    euler_intervals(st);
    owners(st, g);
    candidate_ks(st);
    return ERR_OK;
}

/* ---- solve ------------------------------------------------------------ */

/* A candidate's schedule (tag: index into TW.cand): kept when short,
 * else generated again. */
static int rebuild(void *ctx, const Cand *cd, Plan *out, Progress *p, Err *e)
{
    const Solver *s = ctx;
    const TwCand *c = &((const TW *)s->state)->cand[cd->tag];
    plan_reset(out);
    if (c->steps) {
        plan_set_steps(out, c->steps, c->T);
        return ERR_OK;
    }
    int *steps = NULL, T = 0;
    int rc = generate((Solver *)s, c->k, p, &steps, &T);
    for (int t = 0; rc == ERR_OK && t < T; t++)
        plan_push(out, steps[t]);
    free(steps);
    if (rc == ERR_CANCELLED)
        return err_set(e, rc, "twremat: cancelled");
    return rc ? err_set(e, rc, "twremat: schedule for k=%d could not be rebuilt", c->k) : ERR_OK;
}

/* Generate and simulate the candidates not done yet (an earlier solve may
 * have been cancelled halfway); each one that fits max_steps joins the
 * solver's candidate set, where budgets pick from. */
static int fill_cands(Solver *s, Progress *p, Err *e)
{
    TW *st = s->state;
    int stopped = 0;
    for (int i = 0; i < st->ndone; i++)
        stopped |= st->cand[i].too_long;
    for (; st->ndone < st->ncand; st->ndone++) {
        TwCand *c = &st->cand[st->ndone];
        if (stopped) {
            c->too_long = 1;    /* a smaller k than one already too long */
            continue;
        }
        progress_set(p, 0.5 + 0.5 * st->ndone / st->ncand);
        int *steps = NULL, T = 0;
        int rc = generate(s, c->k, p, &steps, &T);
        if (rc == ERR_CANCELLED) {
            free(steps);
            return err_set(e, ERR_CANCELLED, "twremat: cancelled");
        }
        if (rc == ERR_LIMIT) {
            free(steps);
            c->too_long = stopped = 1;
            continue;
        }
        Sim sim;
        if ((rc = sim_run(s->g, steps, T, &sim, e)) != ERR_OK) {
            free(steps);
            return rc;   /* a bug: Lemma 4 says the schedule is valid */
        }
        c->peak = sim.peak;
        c->cost = sim.cost;
        c->T = T;
        sim_done(&sim);
        s->cands.rebuild = rebuild;
        s->cands.ctx = s;
        cands_add(&s->cands, NULL, T, c->peak, c->cost, st->ndone, NULL, "twremat");
        if (T <= KEEP_STEPS)
            c->steps = steps;
        else
            free(steps);
    }
    return ERR_OK;
}

static int tw_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    TW *st = s->state;
    int rc = fill_cands(s, p, e);
    if (rc)
        return rc;
    if (!s->cands.n)
        return err_set(e, ERR_LIMIT,
                       "twremat: the schedule for k=%d is longer than max_steps=%lld "
                       "(each recursion level repeats work); use a larger k or raise max_steps",
                       st->cand[0].k, st->max_steps);
    /* no budget asks for TWRemat's point: the lowest peak */
    int i = budget == PLAN_NO_BUDGET ? cands_pick_lowest(&s->cands) : cands_pick(&s->cands, budget);
    st->chosen = s->cands.c[i].tag;
    return cands_emit(&s->cands, i, out, p, e);
}

/* ---- describe --------------------------------------------------------- */

static void tw_describe(const Solver *s, Overlay *out)
{
    const TW *st = s->state;
    int B = st->td.nbags;
    int k = st->chosen >= 0 ? st->cand[st->chosen].k : 1;
    int levels = 0;
    for (int b = 0; b < B; b++)
        if (st->csize[b] >= k && st->cdepth[b] + 1 > levels)
            levels = st->cdepth[b] + 1;
    overlay_set_titlef(out, "tree decomposition: %d bag%s, width %d; TWRemat(k=%d), %d level%s", B, plural_s(B),
                       st->td.width, k, levels, plural_s(levels));
    char buf[160];
    out->width = st->td.width;
    int base = out->n;
    for (int b = 0; b < B; b++) {
        snprintf(buf, sizeof buf, "bag %d: %d nodes", b, st->td.off[b + 1] - st->td.off[b]);
        int gi = overlay_add(out, OVERLAY_BAG, buf,
                             st->td.parent[b] >= 0 ? base + st->td.parent[b] : -1,
                             st->cdepth[b]);
        for (int q = st->td.off[b]; q < st->td.off[b + 1]; q++)
            overlay_add_node(out, gi, st->vert_node[st->td.nodes[q]]);
    }
    /* separators the chosen k recursed through, parent = enclosing one */
    int *gid = xmallocarray((size_t)B + 1, sizeof *gid);
    int *order = xmallocarray((size_t)B + 1, sizeof *order);
    for (int b = 0; b < B; b++)
        order[st->tin[b]] = b;   /* preorder: parents first */
    for (int i = 0; i < B; i++) {
        int b = order[i];
        gid[b] = -1;
        if (st->csize[b] < k)
            continue;
        snprintf(buf, sizeof buf, "separator, level %d: %d nodes of bag %d (component of %d bags)",
                 st->cdepth[b], st->sep_off[b + 1] - st->sep_off[b], b, st->csize[b]);
        int par = st->cpar[b] >= 0 ? gid[st->cpar[b]] : -1;
        gid[b] = overlay_add(out, OVERLAY_SEPARATOR, buf, par, st->cdepth[b]);
        for (int q = st->sep_off[b]; q < st->sep_off[b + 1]; q++)
            overlay_add_node(out, gid[b], st->sep[q]);
    }
    free(gid);
    free(order);
}

static void tw_release(Solver *s)
{
    TW *st = s->state;
    treedec_done(&st->td);
    free(st->vert_node);
    free(st->cpar);
    free(st->cdepth);
    free(st->csize);
    free(st->tin);
    free(st->tout);
    free(st->owner);
    free(st->sep_off);
    free(st->sep);
    free(st->rank);
    for (int i = 0; i < st->ncand; i++)
        free(st->cand[i].steps);
    free(st->cand);
}

const SolverClass solver_twremat = {
    .name = "twremat",
    .title = "TWRemat: divide and conquer over a min-fill tree decomposition (Kumar et al. 2019)",
    .params = params,
    .state_size = sizeof(TW),
    .prepare = tw_prepare,
    .solve = tw_solve,
    .describe = tw_describe,
    .release = tw_release,
};
