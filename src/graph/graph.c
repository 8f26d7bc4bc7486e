/* graph.c — building, validating and indexing a computation graph.
 *
 * Ids are resolved through a small open-addressing hash map. The topological
 * order is Kahn's algorithm with a min-heap on node index, so a file already
 * in topological order keeps its order (the spec's "graph's own order"), and
 * everything is iterative: graph depth never reaches the C stack.
 */
#include "src/graph/graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/pairing.h"
#include "src/base/heap.h"
#include "src/base/strbuf.h"
#include "src/base/strmap.h"
#include "src/base/xalloc.h"

typedef struct GraphPending {
    char **in_names;    /* flat list of input names */
    int *in_owner;      /* node index of each name */
    int n_in, cap_in;
    char **grad_names;  /* per node, may be NULL */
    char **where;       /* per node, may be NULL */
    char **out_names;
    int n_out, cap_out;
} GraphPending;

/* ---- id map ---------------------------------------------------------- */

static void map_insert_raw(IdMap *m, const Node *nodes, int v)
{
    unsigned mask = (unsigned)m->cap - 1;
    unsigned i = (unsigned)str_hash(nodes[v].id) & mask;
    while (m->slots[i] >= 0)
        i = (i + 1) & mask;
    m->slots[i] = v;
}

static void map_rehash(IdMap *m, const Node *nodes, int n, int cap)
{
    free(m->slots);
    m->cap = cap;
    m->slots = xmallocarray((size_t)cap, sizeof *m->slots);
    for (int i = 0; i < cap; i++)
        m->slots[i] = -1;
    for (int v = 0; v < n; v++)
        map_insert_raw(m, nodes, v);
}

static int map_find(const IdMap *m, const Node *nodes, const char *id)
{
    if (!m->cap)
        return -1;
    unsigned mask = (unsigned)m->cap - 1;
    unsigned i = (unsigned)str_hash(id) & mask;
    while (m->slots[i] >= 0) {
        if (strcmp(nodes[m->slots[i]].id, id) == 0)
            return m->slots[i];
        i = (i + 1) & mask;
    }
    return -1;
}

int graph_find(const Graph *g, const char *id)
{
    return map_find(&g->map, g->nodes, id);
}

/* ---- construction ---------------------------------------------------- */

Graph *graph_new(void)
{
    Graph *g = xcalloc(1, sizeof *g);
    g->name = xstrdup("");
    g->source = xstrdup("");
    g->cost_unit = xstrdup("flop");
    g->size_unit = xstrdup("byte");
    g->pending = xcalloc(1, sizeof *g->pending);
    return g;
}

static void pending_free(GraphPending *p, int n)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_in; i++)
        free(p->in_names[i]);
    free(p->in_names);
    free(p->in_owner);
    for (int v = 0; v < n; v++) {
        if (p->grad_names)
            free(p->grad_names[v]);
        if (p->where)
            free(p->where[v]);
    }
    free(p->grad_names);
    free(p->where);
    for (int i = 0; i < p->n_out; i++)
        free(p->out_names[i]);
    free(p->out_names);
    free(p);
}

void graph_free(Graph *g)
{
    if (!g)
        return;
    pending_free(g->pending, g->n);
    for (int v = 0; v < g->n; v++) {
        free(g->nodes[v].id);
        free(g->nodes[v].op);
    }
    free(g->nodes);
    free(g->name);
    free(g->source);
    free(g->cost_unit);
    free(g->size_unit);
    free(g->recipe);
    free(g->in_off);
    free(g->in_idx);
    free(g->out_off);
    free(g->out_idx);
    free(g->topo);
    free(g->outputs);
    free(g->is_output);
    free(g->map.slots);
    free(g);
}

static void replace(char **dst, const char *s)
{
    if (!s)
        return;
    free(*dst);
    *dst = xstrdup(s);
}

void graph_set_info(Graph *g, const char *name, const char *source,
                    const char *cost_unit, const char *size_unit)
{
    replace(&g->name, name);
    replace(&g->source, source);
    replace(&g->cost_unit, cost_unit);
    replace(&g->size_unit, size_unit);
}

static const char *where_of(const Graph *g, int v, char *buf, size_t n)
{
    if (g->pending && g->pending->where && g->pending->where[v])
        snprintf(buf, n, "%s (id '%s')", g->pending->where[v], g->nodes[v].id);
    else
        snprintf(buf, n, "node '%s'", g->nodes[v].id);
    return buf;
}

int graph_add_node(Graph *g, const char *id, const char *op, Phase phase,
                   int64_t size, double cost, int64_t workspace,
                   const char *where, Err *e)
{
    const char *at = where ? where : "node";
    if (!id || !*id)
        return err_set(e, ERR_INVALID, "%s: empty id", at), -1;
    if (map_find(&g->map, g->nodes, id) >= 0)
        return err_set(e, ERR_INVALID, "%s: duplicate id '%s'", at, id), -1;
    if (size < 0)
        return err_set(e, ERR_INVALID, "%s: negative size %lld for '%s'", at,
                       (long long)size, id), -1;
    if (size > GRAPH_SIZE_MAX)
        return err_set(e, ERR_INVALID, "%s: size of '%s' exceeds 2^53", at, id), -1;
    if (!(cost >= 0) || !(cost <= GRAPH_COST_MAX))
        return err_set(e, ERR_INVALID, "%s: cost of '%s' must be a number in 0..1e300", at, id), -1;
    if (workspace < 0 || workspace > GRAPH_SIZE_MAX)
        return err_set(e, ERR_INVALID, "%s: workspace of '%s' must be in 0..2^53", at, id), -1;
    if ((int)phase < 0 || phase >= PHASE_COUNT)
        return err_set(e, ERR_INVALID, "%s: bad phase", at), -1;

    int v = g->n;
    if (v >= g->cap) {
        int old = g->cap;
        xgrow((void **)&g->nodes, &g->cap, v + 1, sizeof *g->nodes);
        GraphPending *p = g->pending;
        p->grad_names = xreallocarray(p->grad_names, (size_t)g->cap, sizeof(char *));
        p->where = xreallocarray(p->where, (size_t)g->cap, sizeof(char *));
        for (int i = old; i < g->cap; i++)
            p->grad_names[i] = p->where[i] = NULL;
    }
    Node *nd = &g->nodes[v];
    nd->id = xstrdup(id);
    nd->op = xstrdup(op && *op ? op : "op");
    nd->phase = phase;
    nd->size = size;
    nd->cost = cost;
    nd->workspace = workspace;
    nd->grad_of = -1;
    nd->pair = -1;
    g->pending->where[v] = where ? xstrdup(where) : NULL;
    g->n++;
    /* keep load factor under 1/2 */
    if (2 * g->n > g->map.cap)
        map_rehash(&g->map, g->nodes, g->n, g->map.cap ? 2 * g->map.cap : 64);
    else
        map_insert_raw(&g->map, g->nodes, v);
    return v;
}

void graph_add_input_name(Graph *g, int v, const char *input)
{
    GraphPending *p = g->pending;
    if (p->n_in >= p->cap_in) {
        int c = p->cap_in;
        xgrow((void **)&p->in_names, &c, p->n_in + 1, sizeof(char *));
        p->in_owner = xreallocarray(p->in_owner, (size_t)c, sizeof(int));
        p->cap_in = c;
    }
    p->in_names[p->n_in] = xstrdup(input);
    p->in_owner[p->n_in] = v;
    p->n_in++;
}

void graph_set_grad_of_name(Graph *g, int v, const char *fwd_id)
{
    free(g->pending->grad_names[v]);
    g->pending->grad_names[v] = xstrdup(fwd_id);
}

void graph_add_output_name(Graph *g, const char *id)
{
    GraphPending *p = g->pending;
    xgrow((void **)&p->out_names, &p->cap_out, p->n_out + 1, sizeof(char *));
    p->out_names[p->n_out++] = xstrdup(id);
}

/* ---- finalize -------------------------------------------------------- */

/* Ready nodes, lowest index first, for the stable topological order. */
static inline int lower_index(const void *c, const int *a, const int *b)
{
    (void)c;
    return *a < *b;
}
HEAP_DEFINE(ready, int, void, lower_index)

/* Names the nodes of one cycle among the nodes left unsorted by Kahn's
 * algorithm: walk predecessors that are still unsorted until one repeats. */
static int report_cycle(const Graph *g, const int *indeg, Err *e)
{
    int start = -1;
    for (int v = 0; v < g->n && start < 0; v++)
        if (indeg[v] > 0)
            start = v;
    int *seen = xcalloc((size_t)g->n, sizeof *seen); /* 0 or position+1 */
    int *path = xmallocarray((size_t)g->n + 1, sizeof *path);
    int len = 0, v = start;
    while (!seen[v]) {
        seen[v] = len + 1;
        path[len++] = v;
        int next = -1;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (indeg[g->in_idx[k]] > 0) {
                next = g->in_idx[k];
                break;
            }
        v = next;
    }
    /* path[seen[v]-1 .. len) is the cycle, walked against the edges */
    char buf[600];
    size_t used = 0;
    int first = seen[v] - 1;
    buf[0] = '\0';
    for (int i = len - 1; i >= first && used < sizeof buf - 64; i--)
        fb_put(buf, sizeof buf, &used, "'%s' -> ", g->nodes[path[i]].id);
    fb_put(buf, sizeof buf, &used, "'%s'", g->nodes[path[len - 1]].id);
    char at[300];
    err_set(e, ERR_CYCLE, "cycle: %s; the graph must be acyclic (%s is on it)", buf,
            where_of(g, path[len - 1], at, sizeof at));
    free(seen);
    free(path);
    return ERR_CYCLE;
}

static int build_topo(Graph *g, Err *e)
{
    int n = g->n;
    int *indeg = xcalloc((size_t)n, sizeof *indeg);
    int *heap = xmallocarray((size_t)n, sizeof *heap);
    int hn = 0, cnt = 0;
    g->topo = xmallocarray((size_t)n, sizeof *g->topo);
    for (int v = 0; v < n; v++) {
        indeg[v] = g->in_off[v + 1] - g->in_off[v];
        if (!indeg[v])
            ready_push(heap, &hn, v, NULL);
    }
    while (hn) {
        int v = ready_pop(heap, &hn, NULL);
        g->topo[cnt++] = v;
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++)
            if (--indeg[g->out_idx[k]] == 0)
                ready_push(heap, &hn, g->out_idx[k], NULL);
    }
    int rc = ERR_OK;
    if (cnt < n)
        rc = report_cycle(g, indeg, e);
    free(indeg);
    free(heap);
    return rc;
}

int graph_finalize(Graph *g, Err *e)
{
    GraphPending *p = g->pending;
    int n = g->n;
    char at[300];
    if (n == 0)
        return err_set(e, ERR_INVALID, "empty graph: no nodes");

    /* resolve inputs, drop repeated reads of one value by one node */
    int *cnt = xcalloc((size_t)n + 1, sizeof *cnt);
    int *res = xmallocarray((size_t)p->n_in + 1, sizeof *res);
    for (int i = 0; i < p->n_in; i++) {
        int v = p->in_owner[i];
        int u = map_find(&g->map, g->nodes, p->in_names[i]);
        if (u < 0) {
            err_set(e, ERR_INVALID, "%s: unknown input id '%s'", where_of(g, v, at, sizeof at),
                    p->in_names[i]);
            free(cnt);
            free(res);
            return ERR_INVALID;
        }
        if (g->nodes[v].phase == PHASE_INPUT) {
            err_set(e, ERR_INVALID, "%s: an input node cannot read other values ('%s')",
                    where_of(g, v, at, sizeof at), p->in_names[i]);
            free(cnt);
            free(res);
            return ERR_INVALID;
        }
        res[i] = u;
    }
    /* bucket by owner, preserving listed order */
    for (int i = 0; i < p->n_in; i++)
        cnt[p->in_owner[i] + 1]++;
    g->in_off = xcalloc((size_t)n + 1, sizeof *g->in_off);
    for (int v = 0; v < n; v++)
        g->in_off[v + 1] = g->in_off[v] + cnt[v + 1];
    int *fill = xmallocarray((size_t)n, sizeof *fill);
    for (int v = 0; v < n; v++)
        fill[v] = g->in_off[v];
    int *tmp = xmallocarray((size_t)p->n_in + 1, sizeof *tmp);
    for (int i = 0; i < p->n_in; i++)
        tmp[fill[p->in_owner[i]]++] = res[i];
    /* dedupe within each node using a stamp array */
    int *stamp = xmallocarray((size_t)n, sizeof *stamp);
    for (int v = 0; v < n; v++)
        stamp[v] = -1;
    g->in_idx = xmallocarray((size_t)p->n_in + 1, sizeof *g->in_idx);
    int m = 0;
    int *newoff = xcalloc((size_t)n + 1, sizeof *newoff);
    for (int v = 0; v < n; v++) {
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = tmp[k];
            if (stamp[u] == v)
                continue;
            stamp[u] = v;
            g->in_idx[m++] = u;
        }
        newoff[v + 1] = m;
    }
    free(g->in_off);
    g->in_off = newoff;
    g->n_edges = m;
    free(tmp);
    free(fill);
    free(res);

    /* consumers */
    memset(cnt, 0, ((size_t)n + 1) * sizeof *cnt);
    for (int k = 0; k < m; k++)
        cnt[g->in_idx[k] + 1]++;
    g->out_off = xcalloc((size_t)n + 1, sizeof *g->out_off);
    for (int v = 0; v < n; v++)
        g->out_off[v + 1] = g->out_off[v] + cnt[v + 1];
    g->out_idx = xmallocarray((size_t)m + 1, sizeof *g->out_idx);
    for (int v = 0; v < n; v++)
        cnt[v] = g->out_off[v];
    for (int v = 0; v < n; v++)
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            g->out_idx[cnt[g->in_idx[k]]++] = v;
    free(cnt);
    free(stamp);

    int rc = build_topo(g, e);
    if (rc)
        return rc;

    /* grad_of */
    for (int v = 0; v < n; v++) {
        const char *name = p->grad_names[v];
        if (!name)
            continue;
        int u = map_find(&g->map, g->nodes, name);
        if (u < 0)
            return err_set(e, ERR_INVALID, "%s: grad_of names unknown id '%s'",
                           where_of(g, v, at, sizeof at), name);
        if (g->nodes[v].phase != PHASE_BWD)
            return err_set(e, ERR_INVALID, "%s: grad_of is only allowed on bwd nodes",
                           where_of(g, v, at, sizeof at));
        g->nodes[v].grad_of = u;
    }

    pairing_fill(g);

    /* outputs: listed, or every sink */
    g->is_output = xcalloc((size_t)n, 1);
    g->outputs_explicit = p->n_out > 0;
    for (int i = 0; i < p->n_out; i++) {
        int u = map_find(&g->map, g->nodes, p->out_names[i]);
        if (u < 0)
            return err_set(e, ERR_INVALID, "outputs[%d]: unknown id '%s'", i, p->out_names[i]);
        g->is_output[u] = 1;
    }
    if (!g->outputs_explicit)
        for (int v = 0; v < n; v++)
            if (g->out_off[v] == g->out_off[v + 1] && g->nodes[v].phase != PHASE_INPUT)
                g->is_output[v] = 1;
    g->outputs = xmallocarray((size_t)n, sizeof *g->outputs);
    g->n_outputs = 0;
    for (int v = 0; v < n; v++)
        if (g->is_output[v])
            g->outputs[g->n_outputs++] = v;

    /* every memory figure is a sum of at most all sizes and one workspace;
     * bounding the whole sum keeps each of them (and any two added) inside
     * int64. Each term is at most 2^54, so the check itself cannot wrap. */
    int64_t total = 0;
    for (int v = 0; v < n; v++) {
        total += g->nodes[v].size + g->nodes[v].workspace;
        if (total >= GRAPH_TOTAL_MAX)
            return err_set(e, ERR_INVALID,
                           "%s: the sizes and workspaces of the nodes up to this one sum to 2^62 "
                           "bytes or more, beyond what memory figures can hold",
                           where_of(g, v, at, sizeof at));
    }
    g->input_bytes = 0;
    for (int v = 0; v < n; v++)
        if (g->nodes[v].phase == PHASE_INPUT)
            g->input_bytes += g->nodes[v].size;

    pending_free(g->pending, n);
    g->pending = NULL;
    g->finalized = 1;
    return ERR_OK;
}

/* ---- queries --------------------------------------------------------- */

static const char *const phase_names[PHASE_COUNT] = {"input", "fwd", "loss", "bwd"};

const char *phase_name(Phase p)
{
    return (int)p >= 0 && p < PHASE_COUNT ? phase_names[p] : "?";
}

int phase_parse(const char *s)
{
    for (int i = 0; i < PHASE_COUNT; i++)
        if (strcmp(s, phase_names[i]) == 0)
            return i;
    return -1;
}

void graph_phase_counts(const Graph *g, int counts[PHASE_COUNT])
{
    for (int i = 0; i < PHASE_COUNT; i++)
        counts[i] = 0;
    for (int v = 0; v < g->n; v++)
        counts[g->nodes[v].phase]++;
}

int graph_is_forward_only(const Graph *g)
{
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase != PHASE_INPUT && g->nodes[v].phase != PHASE_FWD)
            return 0;
    return 1;
}

int graph_running_nodes(const Graph *g)
{
    int m = 0;
    for (int v = 0; v < g->n; v++)
        m += g->nodes[v].phase != PHASE_INPUT;
    return m;
}

void graph_mark_needed(const Graph *g, unsigned char *needed)
{
    memset(needed, 0, (size_t)g->n);
    int *stack = xmallocarray((size_t)g->n + 1, sizeof *stack), sp = 0;
    for (int i = 0; i < g->n_outputs; i++)
        if (!needed[g->outputs[i]]) {
            needed[g->outputs[i]] = 1;
            stack[sp++] = g->outputs[i];
        }
    while (sp) {
        int v = stack[--sp];
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (!needed[g->in_idx[k]]) {
                needed[g->in_idx[k]] = 1;
                stack[sp++] = g->in_idx[k];
            }
    }
    free(stack);
}

double graph_needed_cost(const Graph *g)
{
    unsigned char *needed = xmalloc((size_t)g->n + 1);
    graph_mark_needed(g, needed);
    double c = 0;
    for (int v = 0; v < g->n; v++)
        if (needed[v] && g->nodes[v].phase != PHASE_INPUT)
            c += g->nodes[v].cost;
    free(needed);
    return c;
}

int64_t graph_min_peak(const Graph *g, int *node)
{
    int64_t best = 0, outs = 0;
    int arg = -1;
    /* only the nodes some output needs must run (a schedule may leave the
     * others out, so their footprints bound nothing) */
    unsigned char *needed = xmalloc((size_t)g->n + 1);
    graph_mark_needed(g, needed);
    for (int v = 0; v < g->n; v++) {
        const Node *nd = &g->nodes[v];
        if (nd->phase == PHASE_INPUT || !needed[v])
            continue;
        int64_t need = nd->size + nd->workspace;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (g->nodes[g->in_idx[k]].phase != PHASE_INPUT)
                need += g->nodes[g->in_idx[k]].size;
        if (need > best || arg < 0) {
            best = need;
            arg = v;
        }
        if (g->is_output[v])
            outs += nd->size;
    }
    free(needed);
    /* at the last step every output is held at once */
    if (outs > best)
        best = outs;
    if (node)
        *node = arg;
    return g->input_bytes + best;
}

Graph *graph_scaled(const Graph *g, double mult, Err *e)
{
    Graph *c = graph_new();
    char at[300];
    int rc = ERR_OK;
    graph_set_info(c, g->name, g->source, g->cost_unit, g->size_unit);
    for (int v = 0; v < g->n && !rc; v++) {
        const Node *nd = &g->nodes[v];
        int fixed = nd->phase == PHASE_INPUT && strcmp(nd->op, "param") == 0;
        double m = fixed ? 1.0 : mult;
        double size = round((double)nd->size * m), ws = round((double)nd->workspace * m);
        double cost = nd->cost * m;
        if (!(size <= (double)GRAPH_SIZE_MAX && ws <= (double)GRAPH_SIZE_MAX && cost <= GRAPH_COST_MAX)) {
            rc = err_set(e, ERR_INVALID, "%s: multiplied by %g, its %s exceeds %s", where_of(g, v, at, sizeof at),
                         mult, cost <= GRAPH_COST_MAX ? (size <= (double)GRAPH_SIZE_MAX ? "workspace" : "size") : "cost",
                         cost <= GRAPH_COST_MAX ? "2^53" : "1e300");
            break;
        }
        if (graph_add_node(c, nd->id, nd->op, nd->phase, (int64_t)size, cost, (int64_t)ws, NULL, e) < 0) {
            rc = ERR_INVALID;
            break;
        }
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            graph_add_input_name(c, v, g->nodes[g->in_idx[k]].id);
        if (nd->grad_of >= 0)
            graph_set_grad_of_name(c, v, g->nodes[nd->grad_of].id);
    }
    if (!rc && g->outputs_explicit)
        for (int i = 0; i < g->n_outputs; i++)
            graph_add_output_name(c, g->nodes[g->outputs[i]].id);
    if (!rc && mult == 1.0)
        graph_set_recipe(c, g->recipe);
    if (!rc && (rc = graph_finalize(c, e)) == ERR_INVALID) {
        char m[64];
        snprintf(m, sizeof m, "multiplied by %g", mult);
        err_prefix(e, m);
    }
    if (rc) {
        graph_free(c);
        return NULL;
    }
    return c;
}

void graph_set_recipe(Graph *g, const char *json)
{
    free(g->recipe);
    g->recipe = json ? xstrdup(json) : NULL;
}

Graph *graph_clone(const Graph *g)
{
    /* a finalized graph scaled by 1 passes every check it passed before */
    return graph_scaled(g, 1.0, NULL);
}
