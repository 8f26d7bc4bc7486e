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

#include "src/graph_import.h"
#include "src/strmap.h"
#include "src/xalloc.h"

/* Node key or link endpoint as text. */
static int key_text(const cJSON *it, char *buf, size_t n)
{
    if (cJSON_IsString(it)) {
        snprintf(buf, n, "%s", it->valuestring);
        return 0;
    }
    if (cJSON_IsNumber(it) && isfinite(it->valuedouble)) {
        snprintf(buf, n, "%.0f", it->valuedouble);
        return 0;
    }
    return -1;
}

static const cJSON *field(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return x ? x : (b ? cJSON_GetObjectItemCaseSensitive(o, b) : NULL);
}

static int num_field(const cJSON *o, const char *a, const char *b, double def, double *out)
{
    const cJSON *x = field(o, a, b);
    if (!x) {
        *out = def;
        return 0;
    }
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
        return -1;
    *out = x->valuedouble;
    return 0;
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
        char k[64];
        int i = key_text(it, k, sizeof k) ? -1 : strmap_get(kmap, k);
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

static void cleanup(char (*keys)[64], const cJSON **jnode, const char **ids, int *seq, StrMap *kmap)
{
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
    char (*keys)[64] = calloc((size_t)n + 1, sizeof *keys);
    const cJSON **jnode = calloc((size_t)n + 1, sizeof *jnode);
    const char **ids = calloc((size_t)n + 1, sizeof *ids);
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
        if (!cJSON_IsObject(jnode[i]) || !k || key_text(k, keys[i], sizeof keys[i])) {
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
        double size, cost, param;
        if (num_field(jn, "cost_ram", "out_cost", 1, &size) || size > 9007199254740992.0 ||
            size != floor(size)) {
            rc = err_set(e, ERR_INVALID, "%s: %s: size (cost_ram/out_cost) must be a non-negative integer",
                         fname, path);
            goto out;
        }
        if (num_field(jn, "cost_cpu", "duration", 1, &cost)) {
            rc = err_set(e, ERR_INVALID, "%s: %s: cost (cost_cpu/duration) must be a non-negative number",
                         fname, path);
            goto out;
        }
        if (num_field(jn, "param_cost", NULL, 0, &param) || param != floor(param) ||
            param > 9007199254740992.0) {
            rc = err_set(e, ERR_INVALID, "%s: %s: param_cost must be a non-negative integer", fname, path);
            goto out;
        }
        const cJSON *bw = cJSON_GetObjectItemCaseSensitive(jn, "backward");
        Phase ph = PHASE_FWD;
        if (cJSON_IsTrue(bw))
            ph = strcmp(id, "Loss") == 0 ? PHASE_LOSS : PHASE_BWD;
        Err ne;
        err_clear(&ne);
        int v = graph_add_node(g, id, ph == PHASE_BWD ? "backward" : ph == PHASE_LOSS ? "loss" : "op", ph,
                               (int64_t)size, cost, 0, path, &ne);
        if (v < 0) {
            rc = err_set(e, ne.code, "%s: %s", fname, ne.msg);
            goto out;
        }
        if (param > 0) {
            char pid[600];
            snprintf(pid, sizeof pid, "%s.param", id);
            if (graph_add_node(g, pid, "param", PHASE_INPUT, (int64_t)param, 0, 0, path, &ne) < 0) {
                rc = err_set(e, ne.code, "%s: %s", fname, ne.msg);
                goto out;
            }
            graph_add_input_name(g, v, pid);
        }
    }
    int li = 0;
    const cJSON *jl;
    cJSON_ArrayForEach(jl, links)
    {
        char s[64], t[64];
        const cJSON *a = field(jl, "source", "0"), *b = field(jl, "target", "1");
        if (!a || !b || key_text(a, s, sizeof s) || key_text(b, t, sizeof t)) {
            rc = err_set(e, ERR_INVALID, "%s: links[%d]: needs source/target (or \"0\"/\"1\")", fname, li);
            goto out;
        }
        int si = strmap_get(&kmap, s), ti = strmap_get(&kmap, t);
        if (si < 0 || ti < 0) {
            rc = err_set(e, ERR_INVALID, "%s: links[%d]: unknown node '%s'", fname, li, si < 0 ? s : t);
            goto out;
        }
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
        char fwd[512];
        snprintf(fwd, sizeof fwd, "%.*s", (int)(L - 9), vid);
        int f = graph_find(g, fwd);
        if (f >= 0 && g->nodes[f].phase == PHASE_FWD)
            graph_set_grad_of_name(g, v, fwd);
    }
    if ((rc = graph_finalize(g, e))) {
        err_prefix(e, fname);
        goto out;
    }
    if (seq_is_order(meta) && (rc = check_order_topological(g, fname, e)))
        goto out;
    cleanup(keys, jnode, ids, seq, &kmap);
    return g;
out:
    cleanup(keys, jnode, ids, seq, &kmap);
    graph_free(g);
    return NULL;
}
