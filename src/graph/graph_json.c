/* graph_json.c — remat-graph JSON (../shared/spec/formats.md §1) in and out.
 *
 * Syntax errors are reported as file:line:col; problems found after parsing
 * by JSON path (nodes[12].size), since cJSON keeps no positions per item.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/graph_import.h"
#include "src/graph/graph_io.h"
#include "src/graph/json_util.h"
#include "src/base/xalloc.h"

static int load_node(Graph *g, const cJSON *jn, int i, const char *fname, Err *e)
{
    char path[48];
    snprintf(path, sizeof path, "nodes[%d]", i);
    if (!cJSON_IsObject(jn))
        return err_set(e, ERR_INVALID, "%s: %s: expected an object", fname, path);
    const cJSON *jid = cJSON_GetObjectItemCaseSensitive(jn, "id");
    if (!cJSON_IsString(jid))
        return err_set(e, ERR_INVALID, "%s: %s.id: missing or not a string", fname, path);
    const char *op, *phase_s, *grad;
    int64_t size, ws;
    double cost;
    int rc;
    if ((rc = json_get_str(jn, "op", NULL, &op, fname, path, e)) ||
        (rc = json_get_str(jn, "phase", "fwd", &phase_s, fname, path, e)) ||
        (rc = json_get_size(jn, "size", 1, &size, fname, path, e)) ||
        (rc = json_get_cost(jn, "cost", 1, &cost, fname, path, e)) ||
        (rc = json_get_size(jn, "workspace", 0, &ws, fname, path, e)) ||
        (rc = json_get_str(jn, "grad_of", NULL, &grad, fname, path, e)))
        return rc;
    int phase = phase_parse(phase_s);
    if (phase < 0)
        return err_set(e, ERR_INVALID, "%s: %s.phase: unknown phase '%s' (input, fwd, loss, bwd)",
                       fname, path, phase_s);
    if (!op)
        op = phase == PHASE_INPUT ? "input" : "op";
    Err ne;
    err_clear(&ne);
    int v = graph_add_node(g, jid->valuestring, op, (Phase)phase, size, cost, ws, path, &ne);
    if (v < 0)
        return err_set(e, ne.code, "%s: %s", fname, ne.msg);
    const cJSON *ins = cJSON_GetObjectItemCaseSensitive(jn, "inputs");
    if (ins && !cJSON_IsNull(ins)) {
        if (!cJSON_IsArray(ins))
            return err_set(e, ERR_INVALID, "%s: %s.inputs: expected an array of ids", fname, path);
        int k = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, ins)
        {
            if (!cJSON_IsString(x))
                return err_set(e, ERR_INVALID, "%s: %s.inputs[%d]: expected a string id", fname,
                               path, k);
            graph_add_input_name(g, v, x->valuestring);
            k++;
        }
    }
    if (grad)
        graph_set_grad_of_name(g, v, grad);
    return ERR_OK;
}

Graph *graph_from_json(const char *text, size_t len, const char *fname, Err *e)
{
    cJSON *root = json_parse(text, len, fname, e);
    if (!root)
        return NULL;
    Graph *g = graph_new();
    const char *fmt = NULL, *name, *source;
    int rc = ERR_OK;
    if (!cJSON_IsObject(root)) {
        rc = err_set(e, ERR_INVALID, "%s: top level must be an object", fname);
        goto fail;
    }
    if ((rc = json_get_str(root, "format", NULL, &fmt, fname, "$", e)))
        goto fail;
    if (!fmt && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "links"))) {
        /* networkx node-link JSON (Moccasin's graphs): imported by content */
        graph_free(g);
        g = graph_from_nodelink(root, fname, e);
        cJSON_Delete(root);
        return g;
    }
    if (!fmt || strcmp(fmt, "remat-graph") != 0) {
        rc = err_set(e, ERR_INVALID, "%s: $.format: expected \"remat-graph\"%s%s%s", fname,
                     fmt ? ", got \"" : "", fmt ? fmt : "", fmt ? "\"" : "");
        goto fail;
    }
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (ver && (!cJSON_IsNumber(ver) || ver->valuedouble != 1)) {
        rc = err_set(e, ERR_INVALID, "%s: $.version: only version 1 is supported", fname);
        goto fail;
    }
    if ((rc = json_get_str(root, "name", NULL, &name, fname, "$", e)) ||
        (rc = json_get_str(root, "source", NULL, &source, fname, "$", e)))
        goto fail;
    const char *cu = NULL, *su = NULL;
    const cJSON *units = cJSON_GetObjectItemCaseSensitive(root, "units");
    if (units && cJSON_IsObject(units)) {
        if ((rc = json_get_str(units, "cost", NULL, &cu, fname, "$.units", e)) ||
            (rc = json_get_str(units, "size", NULL, &su, fname, "$.units", e)))
            goto fail;
    }
    graph_set_info(g, name, source, cu, su);
    const cJSON *recipe = cJSON_GetObjectItemCaseSensitive(root, "recipe");
    if (recipe && !cJSON_IsNull(recipe)) {
        if (!cJSON_IsObject(recipe)) {
            rc = err_set(e, ERR_INVALID, "%s: $.recipe: expected an object", fname);
            goto fail;
        }
        char *txt = cJSON_PrintUnformatted(recipe);
        graph_set_recipe(g, txt);
        cJSON_free(txt);
    }

    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    if (!cJSON_IsArray(nodes)) {
        rc = err_set(e, ERR_INVALID, "%s: $.nodes: missing or not an array", fname);
        goto fail;
    }
    int i = 0;
    const cJSON *jn;
    cJSON_ArrayForEach(jn, nodes)
    {
        if ((rc = load_node(g, jn, i, fname, e)))
            goto fail;
        i++;
    }
    const cJSON *outs = cJSON_GetObjectItemCaseSensitive(root, "outputs");
    if (outs && !cJSON_IsNull(outs)) {
        if (!cJSON_IsArray(outs)) {
            rc = err_set(e, ERR_INVALID, "%s: $.outputs: expected an array of ids", fname);
            goto fail;
        }
        int k = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, outs)
        {
            if (!cJSON_IsString(x)) {
                rc = err_set(e, ERR_INVALID, "%s: outputs[%d]: expected a string id", fname, k);
                goto fail;
            }
            graph_add_output_name(g, x->valuestring);
            k++;
        }
    }
    cJSON_Delete(root);
    root = NULL;
    if ((rc = graph_finalize(g, e))) {
        err_prefix(e, fname);
        goto fail;
    }
    return g;
fail:
    cJSON_Delete(root);
    graph_free(g);
    return NULL;
}

char *graph_to_json(const Graph *g)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "remat-graph");
    cJSON_AddItemToObject(root, "version", json_int(1));
    cJSON_AddStringToObject(root, "name", g->name);
    cJSON_AddStringToObject(root, "source", g->source);
    cJSON *units = cJSON_AddObjectToObject(root, "units");
    cJSON_AddStringToObject(units, "cost", g->cost_unit);
    cJSON_AddStringToObject(units, "size", g->size_unit);
    cJSON *recipe = g->recipe ? cJSON_Parse(g->recipe) : NULL;
    if (recipe)
        cJSON_AddItemToObject(root, "recipe", recipe);
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    for (int v = 0; v < g->n; v++) {
        const Node *nd = &g->nodes[v];
        cJSON *jn = cJSON_CreateObject();
        cJSON_AddStringToObject(jn, "id", nd->id);
        cJSON_AddStringToObject(jn, "op", nd->op);
        cJSON_AddStringToObject(jn, "phase", phase_name(nd->phase));
        cJSON_AddItemToObject(jn, "cost", json_num(nd->cost));
        cJSON_AddItemToObject(jn, "size", json_int(nd->size));
        if (nd->workspace)
            cJSON_AddItemToObject(jn, "workspace", json_int(nd->workspace));
        if (g->in_off[v + 1] > g->in_off[v]) {
            cJSON *ins = cJSON_AddArrayToObject(jn, "inputs");
            for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
                cJSON_AddItemToArray(ins, cJSON_CreateString(g->nodes[g->in_idx[k]].id));
        }
        if (nd->grad_of >= 0)
            cJSON_AddStringToObject(jn, "grad_of", g->nodes[nd->grad_of].id);
        cJSON_AddItemToArray(nodes, jn);
    }
    if (g->outputs_explicit) {
        cJSON *outs = cJSON_AddArrayToObject(root, "outputs");
        for (int i = 0; i < g->n_outputs; i++)
            cJSON_AddItemToArray(outs, cJSON_CreateString(g->nodes[g->outputs[i]].id));
    }
    return json_print_line(root, 1);
}
