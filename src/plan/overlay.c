/* overlay.c — labelled node groups that solvers hand to the views. */
#include "src/plan/overlay.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

void overlay_init(Overlay *o)
{
    memset(o, 0, sizeof *o);
}

void overlay_done(Overlay *o)
{
    for (int i = 0; i < o->n; i++) {
        free(o->groups[i].label);
        free(o->groups[i].nodes);
    }
    free(o->groups);
    free(o->title);
    overlay_init(o);
}

void overlay_set_title(Overlay *o, const char *title)
{
    free(o->title);
    o->title = title ? xstrdup(title) : NULL;
}

void overlay_set_titlef(Overlay *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *t = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    va_start(ap, fmt);
    vsnprintf(t, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    free(o->title);
    o->title = t;
}

void overlay_copy(Overlay *dst, const Overlay *src)
{
    overlay_init(dst);
    for (int i = 0; i < src->n; i++) {
        const OverlayGroup *gr = &src->groups[i];
        int k = overlay_add(dst, gr->kind, gr->label, gr->parent, gr->level);
        for (int j = 0; j < gr->n; j++)
            overlay_add_node(dst, k, gr->nodes[j]);
    }
    overlay_set_title(dst, src->title);
    dst->width = src->width;
}

int overlay_add(Overlay *o, OverlayKind kind, const char *label, int parent, int level)
{
    xgrow((void **)&o->groups, &o->cap, o->n + 1, sizeof *o->groups);
    OverlayGroup *gr = &o->groups[o->n];
    memset(gr, 0, sizeof *gr);
    gr->kind = kind;
    gr->label = xstrdup(label ? label : "");
    gr->parent = parent;
    gr->level = level;
    return o->n++;
}

void overlay_add_node(Overlay *o, int group, int node)
{
    OverlayGroup *gr = &o->groups[group];
    xgrow((void **)&gr->nodes, &gr->cap, gr->n + 1, sizeof *gr->nodes);
    gr->nodes[gr->n++] = node;
}

const char *overlay_kind_name(OverlayKind k)
{
    static const char *const names[] = {"block", "bag", "separator", "segment", "other"};
    return (int)k >= 0 && k <= OVERLAY_OTHER ? names[k] : "?";
}
