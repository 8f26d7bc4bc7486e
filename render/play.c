/* play.c — the play line (play.h). */
#include "render/play.h"

#include <stdio.h>
#include <string.h>

#include "src/base/units.h"

void play_step_text(const Graph *g, const int *sched, const Sim *s, int t, char *buf, size_t n)
{
    if (t < 0 || t >= s->T) {
        snprintf(buf, n, "no step %d", t + 1);
        return;
    }
    const Node *v = &g->nodes[sched[t]];
    char sz[32], ws[32];
    units_format_bytes(v->size, sz, sizeof sz);
    size_t u = (size_t)snprintf(buf, n, "step %d/%d runs %s: allocates %s", t + 1, s->T, v->id, sz);
    if (v->workspace > 0 && u < n) {
        units_format_bytes(v->workspace, ws, sizeof ws);
        u += (size_t)snprintf(buf + u, n - u, " (+%s workspace, freed at once)", ws);
    }
    int freed = 0;
    for (int p = 0; p <= t && u < n; p++)
        if (s->held_until[p] == t && !(t == s->T - 1 && g->is_output[sched[p]])) {
            u += (size_t)snprintf(buf + u, n - u, "%s%s", freed ? ", " : "; frees ", g->nodes[sched[p]].id);
            freed++;
        }
    if (!freed && u < n)
        snprintf(buf + u, n - u, "; frees nothing");
}
