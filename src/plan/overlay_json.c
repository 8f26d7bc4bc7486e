/* overlay_json.c — a solver's structure (lower-set blocks, bags,
 * separators, stages) as the optional "structure" field of a remat-plan.
 * The spec welcomes such extra fields as long as peak and cost stay
 * checkable from the schedule alone; readers that do not know the field
 * ignore it. Node references are ids, like the schedule's. */
#include "src/plan/overlay_json.h"

#include <cjson/cJSON.h>

#include "src/graph/json_util.h"

cJSON *overlay_to_json(const Overlay *o, const Graph *g)
{
    cJSON *root = cJSON_CreateObject();
    if (o->title)
        cJSON_AddStringToObject(root, "title", o->title);
    if (o->width)
        cJSON_AddItemToObject(root, "width", json_int(o->width));
    cJSON *groups = cJSON_AddArrayToObject(root, "groups");
    for (int i = 0; i < o->n; i++) {
        const OverlayGroup *gr = &o->groups[i];
        cJSON *it = cJSON_CreateObject();
        cJSON_AddStringToObject(it, "kind", overlay_kind_name(gr->kind));
        cJSON_AddStringToObject(it, "label", gr->label);
        if (gr->parent >= 0)
            cJSON_AddItemToObject(it, "parent", json_int(gr->parent));
        cJSON_AddItemToObject(it, "level", json_int(gr->level));
        cJSON *nodes = cJSON_AddArrayToObject(it, "nodes");
        for (int k = 0; k < gr->n; k++)
            if (gr->nodes[k] >= 0 && gr->nodes[k] < g->n)
                cJSON_AddItemToArray(nodes, cJSON_CreateString(g->nodes[gr->nodes[k]].id));
        cJSON_AddItemToArray(groups, it);
    }
    return root;
}
