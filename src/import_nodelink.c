/* import_nodelink.c — networkx node-link JSON (Moccasin's data files).
 *
 * Node key: "id", else "name" (numbers or strings). Link endpoints:
 * "source"/"target", else the keys "0"/"1" that Moccasin's random layered
 * graphs use. Sizes: cost_ram or out_cost; costs: cost_cpu or duration.
 * Checkmate graphs mark backward nodes with "backward": true; "Loss" is the
 * loss node and "<layer>_backward" is the gradient of <layer>. A non-zero
 * param_cost becomes a resident parameter input read by its node.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph_import.h"

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

/* Index of key s among the n node keys: keys are usually "0".."n-1" in
 * order, so try that first, then scan. -1 when absent. */
static int find_key(char (*keys)[64], int n, const char *s)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (!*end && x >= 0 && x < n && strcmp(keys[x], s) == 0)
        return (int)x;
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], s) == 0)
            return i;
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
    /* node keys → our ids: the Checkmate graphs have unique layer names,
     * which read better than numbers */
    char (*keys)[64] = calloc((size_t)n + 1, sizeof *keys);
    int use_names = 1, i = 0;
    const cJSON *jn;
    cJSON_ArrayForEach(jn, nodes)
    {
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(jn, "name")) ||
            !cJSON_GetObjectItemCaseSensitive(jn, "id"))
            use_names = 0;
    }
    int rc = ERR_OK;
    char path[64], id[512];
    i = 0;
    cJSON_ArrayForEach(jn, nodes)
    {
        snprintf(path, sizeof path, "nodes[%d]", i);
        const cJSON *k = field(jn, "id", "name");
        if (!cJSON_IsObject(jn) || !k || key_text(k, keys[i], sizeof keys[i])) {
            rc = err_set(e, ERR_INVALID, "%s: %s: node needs an \"id\" or \"name\"", fname, path);
            goto out;
        }
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(jn, "name");
        snprintf(id, sizeof id, "%s", use_names ? name->valuestring : keys[i]);
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
        if (num_field(jn, "param_cost", NULL, 0, &param) || param != floor(param)) {
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
        i++;
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
        int si = find_key(keys, n, s), ti = find_key(keys, n, t);
        if (si < 0 || ti < 0) {
            rc = err_set(e, ERR_INVALID, "%s: links[%d]: unknown node '%s'", fname, li, si < 0 ? s : t);
            goto out;
        }
        /* node index in g: parameter inputs were interleaved, so look up by id */
        const cJSON *ns = cJSON_GetArrayItem(nodes, si), *nt = cJSON_GetArrayItem(nodes, ti);
        char sid[512], tid[512];
        snprintf(sid, sizeof sid, "%s", use_names ? cJSON_GetObjectItemCaseSensitive(ns, "name")->valuestring : keys[si]);
        snprintf(tid, sizeof tid, "%s", use_names ? cJSON_GetObjectItemCaseSensitive(nt, "name")->valuestring : keys[ti]);
        graph_add_input_name(g, graph_find(g, tid), sid);
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
    free(keys);
    keys = NULL;
    if ((rc = graph_finalize(g, e))) {
        err_prefix(e, fname);
        goto out;
    }
    return g;
out:
    free(keys);
    graph_free(g);
    (void)rc;
    return NULL;
}
