/* plan_json.c — remat-plan JSON (../shared/spec/formats.md §2) in and out. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/fileio.h"
#include "src/graph/json_util.h"
#include "src/plan/plan.h"
#include "src/base/xalloc.h"

char *plan_to_json(const Plan *p, const Graph *g, cJSON *extra)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "remat-plan");
    cJSON_AddItemToObject(root, "version", json_int(1));
    cJSON_AddStringToObject(root, "graph", p->graph ? p->graph : g->name);
    cJSON_AddStringToObject(root, "solver", p->solver ? p->solver : "");
    if (p->origin)
        cJSON_AddStringToObject(root, "origin", p->origin);
    if (p->budget == PLAN_NO_BUDGET)
        cJSON_AddNullToObject(root, "budget");
    else
        cJSON_AddItemToObject(root, "budget", json_int(p->budget));
    cJSON *sched = cJSON_AddArrayToObject(root, "schedule");
    for (int t = 0; t < p->T; t++)
        cJSON_AddItemToArray(sched, cJSON_CreateString(g->nodes[p->steps[t]].id));
    cJSON_AddItemToObject(root, "peak", json_int(p->peak));
    cJSON_AddItemToObject(root, "cost", json_num(p->cost));
    cJSON_AddItemToObject(root, "baseline_peak", json_int(p->baseline_peak));
    cJSON_AddItemToObject(root, "baseline_cost", json_num(p->baseline_cost));
    if (p->bound >= 0) {
        /* what a solver proved: optional, readers may ignore it */
        cJSON *o = cJSON_AddObjectToObject(root, "optimality");
        cJSON_AddBoolToObject(o, "optimal", p->optimal);
        cJSON_AddItemToObject(o, "bound", json_num(p->bound));
        cJSON_AddItemToObject(o, "gap", json_num(p->cost > 0 ? (p->cost - p->bound) / p->cost : 0));
    }
    if (extra) {
        cJSON *it = extra->child;
        while (it) {
            cJSON *next = it->next;
            cJSON_DetachItemViaPointer(extra, it);
            cJSON_AddItemToObject(root, it->string, it);
            it = next;
        }
        cJSON_Delete(extra);
    }
    /* one step per line would be long; keep the schedule compact but the
     * rest readable: print unformatted, which outside tools read equally */
    return json_print_line(root, 0);
}

int plan_from_json(Plan *p, const Graph *g, const char *text, size_t len, const char *fname,
                   Err *e)
{
    plan_done(p);
    cJSON *root = json_parse(text, len, fname, e);
    if (!root)
        return ERR_PARSE;
    int rc = ERR_OK;
    const char *fmt, *gname, *solver;
    if (!cJSON_IsObject(root)) {
        rc = err_set(e, ERR_INVALID, "%s: top level must be an object", fname);
        goto out;
    }
    if ((rc = json_get_str(root, "format", NULL, &fmt, fname, "$", e)))
        goto out;
    if (!fmt || strcmp(fmt, "remat-plan") != 0) {
        rc = err_set(e, ERR_INVALID, "%s: $.format: expected \"remat-plan\"", fname);
        goto out;
    }
    if ((rc = json_get_str(root, "graph", NULL, &gname, fname, "$", e)) ||
        (rc = json_get_str(root, "solver", NULL, &solver, fname, "$", e)))
        goto out;
    /* a plan names the graph it was made for; read against another one its
     * ids might still resolve and its figures be quietly wrong */
    if (gname && strcmp(gname, g->name) != 0) {
        char a[200], b[200];
        rc = err_set(e, ERR_INVALID, "%s: $.graph: the plan is for graph '%s', not for '%s'", fname,
                     text_safe(gname, a, sizeof a), text_safe(g->name, b, sizeof b));
        goto out;
    }
    plan_set_names(p, gname, solver);
    /* figures up to int64, read exactly: a graph may total 2^62 bytes and
     * costs add up past any one node's limit */
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "budget");
    if (b && !cJSON_IsNull(b)) {
        if ((rc = json_get_int(root, "budget", 0, INT64_MAX, &p->budget, fname, "$", e)))
            goto out;
    }
    const cJSON *sched = cJSON_GetObjectItemCaseSensitive(root, "schedule");
    if (!cJSON_IsArray(sched)) {
        rc = err_set(e, ERR_INVALID, "%s: $.schedule: missing or not an array", fname);
        goto out;
    }
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, sched)
    {
        if (!cJSON_IsString(x)) {
            rc = err_set(e, ERR_INVALID, "%s: schedule[%d]: expected a node id string", fname, i);
            goto out;
        }
        int v = graph_find(g, x->valuestring);
        if (v < 0) {
            rc = err_set(e, ERR_INVALID, "%s: schedule[%d]: unknown node id '%s'", fname, i,
                         x->valuestring);
            goto out;
        }
        if (g->nodes[v].phase == PHASE_INPUT) {
            rc = err_set(e, ERR_INVALID, "%s: schedule[%d]: '%s' is an input node and is never scheduled",
                         fname, i, x->valuestring);
            goto out;
        }
        plan_push(p, v);
        i++;
    }
    if ((rc = json_get_int(root, "peak", -1, INT64_MAX, &p->peak, fname, "$", e)) ||
        (rc = json_get_num(root, "cost", -1, DBL_MAX, &p->cost, fname, "$", e)) ||
        (rc = json_get_int(root, "baseline_peak", -1, INT64_MAX, &p->baseline_peak, fname, "$", e)) ||
        (rc = json_get_num(root, "baseline_cost", -1, DBL_MAX, &p->baseline_cost, fname, "$", e)))
        goto out;
out:
    cJSON_Delete(root);
    return rc;
}

int plan_load(Plan *p, const Graph *g, const char *path, Err *e)
{
    size_t len;
    char *text = file_read_all(path, &len, e);
    if (!text)
        return e ? e->code : ERR_IO;
    int rc = plan_from_json(p, g, text, len, path, e);
    free(text);
    return rc;
}
