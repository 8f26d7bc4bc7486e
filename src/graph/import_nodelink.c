/* import_nodelink.c — networkx node-link JSON (Moccasin's data files).
 *
 * Node key: "id", else "name" (numbers or strings). Link endpoints:
 * "source"/"target", else the keys "0"/"1" that Moccasin's random layered
 * graphs use. Sizes: cost_ram or out_cost; costs: cost_cpu or duration.
 * Checkmate graphs mark backward nodes with "backward": true; "Loss" is the
 * loss node and "<layer>_backward" is the gradient of <layer>. A non-zero
 * param_cost becomes a resident parameter input read by its node. The
 * graph.order list, when present, is the graph's own order (the baseline).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/graph_import.h"
#include "src/graph/json_util.h"
#include "src/base/strmap.h"
#include "src/base/xalloc.h"

/* Node key or link endpoint as text, whole (caller frees): a string as it
 * is, an integral number in decimal, any other number in the shortest form
 * that reads back to it (so 1.5 and 2 stay two keys). NULL for other types. */
static char *key_text(const cJSON *it)
{
    if (cJSON_IsString(it))
        return xstrdup(it->valuestring);
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
        return NULL;
    char buf[40];
    int64_t v;
    int st = json_item_int(it, &v);
    if (st == 0)
        snprintf(buf, sizeof buf, "%lld", (long long)v);
    else if (it->valuestring) /* the literal of a number a double misreads */
        return xstrdup(it->valuestring);
    else
        snprintf(buf, sizeof buf, "%.17g", it->valuedouble);
    return xstrdup(buf);
}

static const cJSON *field(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return x ? x : (b ? cJSON_GetObjectItemCaseSensitive(o, b) : NULL);
}

/* The name of the first of keys a and b that o has; NULL for neither. */
static const char *which(const cJSON *o, const char *a, const char *b)
{
    return cJSON_GetObjectItemCaseSensitive(o, a) ? a
           : b && cJSON_GetObjectItemCaseSensitive(o, b) ? b : NULL;
}

/* Array indices of the nodes in the order to add them: graph.order (a
 * permutation of the node keys) when present, else 0..n-1. */
static int order_of(const cJSON *meta, const StrMap *kmap, int n, const char *fname, int **seq,
                    Err *e)
{
    *seq = xmallocarray((size_t)n + 1, sizeof **seq);
    const cJSON *ord = meta ? cJSON_GetObjectItemCaseSensitive(meta, "order") : NULL;
    if (!ord) {
        for (int i = 0; i < n; i++)
            (*seq)[i] = i;
        return ERR_OK;
    }
    if (!cJSON_IsArray(ord) || cJSON_GetArraySize(ord) != n)
        return err_set(e, ERR_INVALID, "%s: graph.order: must list each of the %d nodes once", fname, n);
    unsigned char *seen = xcalloc((size_t)n + 1, 1);
    int q = 0, rc = ERR_OK;
    const cJSON *it;
    cJSON_ArrayForEach(it, ord)
    {
        char *k = key_text(it);
        int i = k ? strmap_get(kmap, k) : -1;
        free(k);
        if (i < 0 || seen[i]) {
            rc = err_set(e, ERR_INVALID, "%s: graph.order[%d]: %s node", fname, q,
                         i < 0 ? "unknown" : "repeated");
            break;
        }
        seen[i] = 1;
        (*seq)[q++] = i;
    }
    free(seen);
    return rc;
}

static int seq_is_order(const cJSON *meta)
{
    return meta && cJSON_GetObjectItemCaseSensitive(meta, "order");
}

/* graph.order is the baseline schedule, so it must be a topological order:
 * nodes were added in it, and the stable topological sort keeps the add
 * order exactly when every edge between running nodes points forward. */
static int check_order_topological(const Graph *g, const char *fname, Err *e)
{
    for (int v = 0; v < g->n; v++)
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int w = g->in_idx[k];
            /* parameter inputs are added after their reader, and never run */
            if (w > v && g->nodes[w].phase != PHASE_INPUT)
                return err_set(e, ERR_INVALID, "%s: graph.order: node '%s' comes before its input '%s'",
                               fname, g->nodes[v].id, g->nodes[w].id);
        }
    return ERR_OK;
}

static void cleanup(char **keys, int n, const cJSON **jnode, const char **ids, int *seq,
                    StrMap *kmap)
{
    for (int i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(jnode);
    free(ids);
    free(seq);
    strmap_done(kmap);
}

Graph *graph_from_nodelink(const cJSON *root, const char *fname, Err *e)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(root, "links");
    if (!cJSON_IsArray(nodes) || !cJSON_IsArray(links)) {
        err_set(e, ERR_INVALID, "%s: node-link JSON needs arrays \"nodes\" and \"links\"", fname);
        return NULL;
    }
    Graph *g = graph_new();
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "graph");
    const cJSON *nm = meta ? cJSON_GetObjectItemCaseSensitive(meta, "name") : NULL;
    char src[1100];
    snprintf(src, sizeof src, "imported from networkx node-link JSON %s", fname);
    graph_set_info(g, cJSON_IsString(nm) ? nm->valuestring : "", src, "as in source", "as in source");

    int n = cJSON_GetArraySize(nodes);
    /* node keys -> our ids: the Checkmate graphs have unique layer names,
     * which read better than numbers */
    char **keys = xcalloc((size_t)n + 1, sizeof *keys);
    const cJSON **jnode = xcalloc((size_t)n + 1, sizeof *jnode);
    const char **ids = xcalloc((size_t)n + 1, sizeof *ids);
    int *seq = NULL;
    StrMap kmap;
    strmap_init(&kmap);
    int use_names = 1, i = 0;
    const cJSON *jn;
    cJSON_ArrayForEach(jn, nodes)
    {
        jnode[i++] = jn;
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(jn, "name")) ||
            !cJSON_GetObjectItemCaseSensitive(jn, "id"))
            use_names = 0;
    }
    int rc = ERR_OK;
    char path[64];
    for (i = 0; i < n; i++) {
        const cJSON *k = field(jnode[i], "id", "name");
        if (!cJSON_IsObject(jnode[i]) || !k || !(keys[i] = key_text(k))) {
            rc = err_set(e, ERR_INVALID, "%s: nodes[%d]: node needs an \"id\" or \"name\"", fname, i);
            goto out;
        }
        if (strmap_put(&kmap, keys[i], i) >= 0) {
            rc = err_set(e, ERR_INVALID, "%s: nodes[%d]: duplicate node key '%s'", fname, i, keys[i]);
            goto out;
        }
        ids[i] = use_names ? cJSON_GetObjectItemCaseSensitive(jnode[i], "name")->valuestring : keys[i];
    }
    /* the order nodes are added in is the graph's own order: graph.order
     * when the file gives one (Moccasin's RL graphs: the schedule their
     * baseline peak is measured on), else the file's node order */
    if ((rc = order_of(meta, &kmap, n, fname, &seq, e)))
        goto out;
    for (int q = 0; q < n; q++) {
        i = seq[q];
        jn = jnode[i];
        snprintf(path, sizeof path, "nodes[%d]", i);
        const char *id = ids[i];
        int64_t size, param;
        double cost;
        const char *ks = which(jn, "cost_ram", "out_cost"), *kc = which(jn, "cost_cpu", "duration");
        if ((rc = ks ? json_get_size(jn, ks, 1, &size, fname, path, e) : (size = 1, 0)) ||
            (rc = kc ? json_get_cost(jn, kc, 1, &cost, fname, path, e) : (cost = 1, 0)) ||
            (rc = json_get_size(jn, "param_cost", 0, &param, fname, path, e)))
            goto out;
        const cJSON *bw = cJSON_GetObjectItemCaseSensitive(jn, "backward");
        Phase ph = PHASE_FWD;
        if (cJSON_IsTrue(bw))
            ph = strcmp(id, "Loss") == 0 ? PHASE_LOSS : PHASE_BWD;
        Err ne;
        err_clear(&ne);
        int v = graph_add_node(g, id, ph == PHASE_BWD ? "backward" : ph == PHASE_LOSS ? "loss" : "op", ph,
                               size, cost, 0, path, &ne);
        if (v < 0) {
            rc = err_set(e, ne.code, "%s: %s", fname, ne.msg);
            goto out;
        }
        if (param > 0) {
            size_t L = strlen(id);
            char *pid = xmalloc(L + 7);
            memcpy(pid, id, L);
            memcpy(pid + L, ".param", 7);
            int pv = graph_add_node(g, pid, "param", PHASE_INPUT, param, 0, 0, path, &ne);
            if (pv >= 0)
                graph_add_input_name(g, v, pid);
            free(pid);
            if (pv < 0) {
                rc = err_set(e, ne.code, "%s: %s", fname, ne.msg);
                goto out;
            }
        }
    }
    int li = 0;
    const cJSON *jl;
    cJSON_ArrayForEach(jl, links)
    {
        const cJSON *a = field(jl, "source", "0"), *b = field(jl, "target", "1");
        char *s = a ? key_text(a) : NULL, *t = b ? key_text(b) : NULL;
        int si = s ? strmap_get(&kmap, s) : -1, ti = t ? strmap_get(&kmap, t) : -1;
        if (!s || !t)
            rc = err_set(e, ERR_INVALID, "%s: links[%d]: needs source/target (or \"0\"/\"1\")", fname, li);
        else if (si < 0 || ti < 0)
            rc = err_set(e, ERR_INVALID, "%s: links[%d]: unknown node '%s'", fname, li, si < 0 ? s : t);
        free(s);
        free(t);
        if (rc)
            goto out;
        /* node index in g: parameter inputs were interleaved, so look up by id */
        graph_add_input_name(g, graph_find(g, ids[ti]), ids[si]);
        li++;
    }
    /* "<layer>_backward" differentiates <layer> when that layer exists */
    for (int v = 0; v < g->n; v++) {
        const char *vid = g->nodes[v].id;
        size_t L = strlen(vid);
        if (g->nodes[v].phase != PHASE_BWD || L <= 9 || strcmp(vid + L - 9, "_backward") != 0)
            continue;
        char *fwd = xstrdup(vid);
        fwd[L - 9] = '\0';
        int f = graph_find(g, fwd);
        if (f >= 0 && g->nodes[f].phase == PHASE_FWD)
            graph_set_grad_of_name(g, v, fwd);
        free(fwd);
    }
    if ((rc = graph_finalize(g, e))) {
        err_prefix(e, fname);
        goto out;
    }
    if (seq_is_order(meta) && (rc = check_order_topological(g, fname, e)))
        goto out;
    cleanup(keys, n, jnode, ids, seq, &kmap);
    return g;
out:
    cleanup(keys, n, jnode, ids, seq, &kmap);
    graph_free(g);
    return NULL;
}
