/* export.c — DOT for people (labels, colours, clusters) and its rendering to
 * SVG/PNG through Graphviz's gvc. gvc/cgraph take `char *` for constant
 * strings, hence the casts kept in this file. */
#include "render/export.h"

#include <graphviz/gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/base/fileio.h"
#include "src/graph/graph_io.h"
#include "src/plan/sim.h"
#include "src/base/units.h"
#include "src/base/strbuf.h"
#include "src/base/xalloc.h"


static void put_id(StrBuf *b, const char *s)
{
    char *q = dot_quote(s);
    sb_put(b, "%s", q);
    free(q);
}

static const char *const palette[] = {"#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#ffff99",
                                      "#fb9a99", "#8dd3c7", "#bebada", "#80b1d3", "#fccde5"};

/* Run counts and the values alive at the plan's peak, computed here when
 * the caller has not computed them already. */
static void marks_compute(const Graph *g, const Plan *plan, int *runs, unsigned char *at_peak)
{
    if (!plan)
        return;
    for (int t = 0; t < plan->T; t++)
        runs[plan->steps[t]]++;
    Sim s;
    Err e;
    if (sim_run(g, plan->steps, plan->T, &s, &e) == ERR_OK) {
        if (s.peak_step >= 0) {
            LiveValue *lv;
            int n = sim_live_at(g, plan->steps, &s, s.peak_step, &lv);
            for (int i = 0; i < n; i++)
                if (lv[i].reason != LIVE_WORKSPACE)
                    at_peak[lv[i].node] = 1;
            free(lv);
        }
        sim_done(&s);
    }
}

char *export_dot(const Graph *g, const Plan *plan, const Overlay *ov)
{
    return export_dot_marked(g, plan, ov, NULL);
}

/* The drawing is the data DOT (graph_to_dot_ex) with labels, colours and
 * clusters added, so `remat` reads an exported drawing back as the very
 * graph it drew; Graphviz ignores the data attributes. */
char *export_dot_marked(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m)
{
    StrBuf head, tail;
    sb_init(&head, 1024);
    sb_init(&tail, 1024);
    int *runs = xcalloc((size_t)g->n + 1, sizeof *runs);
    unsigned char *at_peak = xcalloc((size_t)g->n + 1, 1);
    if (m && plan) {
        memcpy(runs, m->runs, (size_t)g->n * sizeof *runs);
        memcpy(at_peak, m->alive, (size_t)g->n);
    } else {
        marks_compute(g, plan, runs, at_peak);
    }
    sb_put(&head, "  rankdir=TB;\n  node [shape=box style=\"rounded,filled\" fillcolor=white fontname=Helvetica fontsize=10];\n");
    if (plan) {
        char pk[32];
        units_format_bytes(plan->peak, pk, sizeof pk);
        sb_put(&head, "  label=");
        char lab[256];
        snprintf(lab, sizeof lab, "%s: peak %s, cost %+.1f%%, red outline = alive at peak, orange = recomputed",
                 plan->solver ? plan->solver : "plan", pk, 100 * plan_overhead(plan));
        put_id(&head, lab);
        sb_put(&head, ";\n  labelloc=t;\n");
    }
    /* clusters for overlay groups that are flat (no nesting in DOT here),
     * after the node statements so the node order stays the graph's */
    unsigned char *in_cluster = xcalloc((size_t)g->n, 1);
    if (ov)
        for (int i = 0; i < ov->n; i++) {
            const OverlayGroup *gr = &ov->groups[i];
            if (gr->kind == OVERLAY_SEPARATOR)
                continue;
            sb_put(&tail, "  subgraph \"cluster_%d\" {\n    label=", i);
            put_id(&tail, gr->label);
            sb_put(&tail, ";\n    style=filled; fillcolor=\"%s40\";\n", palette[i % 10]);
            for (int k = 0; k < gr->n; k++)
                if (!in_cluster[gr->nodes[k]]) {
                    in_cluster[gr->nodes[k]] = 1;
                    sb_put(&tail, "    ");
                    put_id(&tail, g->nodes[gr->nodes[k]].id);
                    sb_put(&tail, ";\n");
                }
            sb_put(&tail, "  }\n");
        }
    char **extra = xcalloc((size_t)g->n + 1, sizeof *extra);
    for (int v = 0; v < g->n; v++) {
        const Node *nd = &g->nodes[v];
        StrBuf x;
        sb_init(&x, 128);
        char sz[32], *lab = xmalloc(strlen(nd->id) + strlen(nd->op) + 48);
        units_format_bytes(nd->size, sz, sizeof sz);
        sprintf(lab, "%s\n%s %s", nd->id, nd->op, sz);
        sb_put(&x, "label=");
        put_id(&x, lab);
        free(lab);
        const char *fill = nd->phase == PHASE_INPUT ? "#eeeeee"
                           : nd->phase == PHASE_BWD ? "#e8f0ff"
                           : nd->phase == PHASE_LOSS ? "#ffe8e8"
                                                    : "white";
        if (runs[v] > 1)
            sb_put(&x, " fillcolor=orange xlabel=\"x%d\"", runs[v]);
        else
            sb_put(&x, " fillcolor=\"%s\"", fill);
        if (at_peak[v])
            sb_put(&x, " color=red penwidth=2");
        extra[v] = x.s;
    }
    char *out = graph_to_dot_ex(g, head.s, extra, tail.s);
    for (int v = 0; v < g->n; v++)
        free(extra[v]);
    free(extra);
    free(head.s);
    free(tail.s);
    free(runs);
    free(at_peak);
    free(in_cluster);
    return out;
}

static char gv_err[512];
static int gv_err_cb(char *msg)
{
    size_t u = strlen(gv_err);
    if (u < sizeof gv_err - 1)
        snprintf(gv_err + u, sizeof gv_err - u, "%s", msg);
    return 0;
}

int export_graph(const Graph *g, const Plan *plan, const Overlay *ov, const char *format,
                 const char *path, Err *e)
{
    return export_graph_marked(g, plan, ov, NULL, format, path, e);
}

/* One Graphviz context for the process, made under the DOT lock. The pango
 * text plugin keeps a pointer to the last font name it measured, which
 * lives in the context's font table: freeing the context and making a new
 * one for the next export left that pointer dangling (AddressSanitizer:
 * use after free in textspan_size on the second SVG export). */
static GVC_t *gv_context(void)
{
    static GVC_t *gvc;
    if (!gvc)
        gvc = gvContext();
    return gvc;
}

int export_graph_marked(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m,
                        const char *format, const char *path, Err *e)
{
    int is_dot = !strcmp(format, "dot"), is_svg = !strcmp(format, "svg"),
        is_png = !strcmp(format, "png");
    if (!is_dot && !is_svg && !is_png)
        return err_set(e, ERR_USAGE, "unknown export format '%s' (dot, svg or png)", format);
    char *dot = export_dot_marked(g, plan, ov, m);
    int rc = ERR_OK;
    if (is_dot) {
        rc = file_write_all(path, dot, strlen(dot), e);
        free(dot);
        return rc;
    }
    dot_parse_lock();   /* cgraph's lexer and error callback are shared */
    gv_err[0] = '\0';
    agseterr(AGERR);
    agseterrf(gv_err_cb);
    GVC_t *gvc = gv_context();
    Agraph_t *ag = agmemread(dot);
    if (ag)
        dot_lexer_reset();
    if (!ag) {
        rc = err_set(e, ERR_INVALID, "%s: internal DOT rejected by Graphviz: %s", path, gv_err);
    } else if (gvLayout(gvc, ag, "dot") != 0) {
        rc = err_set(e, ERR_INVALID, "%s: Graphviz layout failed: %s", path, gv_err);
    } else {
        /* rendered beside the target and renamed, so an export stopped
         * half-way (quitting the explorer) never leaves half a file */
        size_t pl = strlen(path);
        char *part = xmalloc(pl + 6);
        memcpy(part, path, pl);
        memcpy(part + pl, ".part", 6);
        FILE *f = fopen(part, "wb");
        if (!f) {
            rc = err_set(e, ERR_IO, "%s: cannot write", path);
        } else {
            if (gvRender(gvc, ag, (char *)format, f) != 0)
                rc = err_set(e, ERR_IO, "%s: Graphviz could not render %s: %s", path, format, gv_err);
            if (fclose(f) != 0 && !rc)
                rc = err_set(e, ERR_IO, "%s: write failed", path);
            if (!rc && rename(part, path) != 0)
                rc = err_set(e, ERR_IO, "%s: cannot write", path);
            if (rc)
                remove(part);
        }
        free(part);
        gvFreeLayout(gvc, ag);
    }
    if (ag)
        agclose(ag);
    agseterrf(NULL);
    dot_parse_unlock();
    free(dot);
    return rc;
}

const char *export_format_of(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return NULL;
    static const char *const map[][2] = {{".dot", "dot"}, {".gv", "dot"}, {".svg", "svg"},
                                         {".png", "png"}, {".json", "json"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcasecmp(dot, map[i][0]))
            return map[i][1];
    return NULL;
}
