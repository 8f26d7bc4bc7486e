/* overlay_json.h — Overlay → JSON for the plan's optional "structure"
 * field (docs/formats.md). */
#ifndef REMAT_OVERLAY_JSON_H
#define REMAT_OVERLAY_JSON_H

#include "src/graph/graph.h"
#include "src/plan/overlay.h"

struct cJSON;
/* {"title", "width" (when set), "groups": [{"kind", "label", "parent" (when
 * set), "level", "nodes": [ids]}]}; the caller owns the result. */
struct cJSON *overlay_to_json(const Overlay *o, const Graph *g);

#endif
