/* export.c — DOT for people (labels, colours, clusters) and its rendering to
 * SVG/PNG through Graphviz's gvc: laid out by Graphviz's dot for small
 * graphs, by the graph view's layered layout (graph_cells.c) placed for
 * Graphviz's "nop2" (no layout of its own) beyond EXPORT_DOT_MAX_NODES.
 * Files are replaced atomically (FileTx). gvc/cgraph take `char *` for
 * constant strings, hence the casts kept in this file. */
#include "render/export.h"

#include <graphviz/gvc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/graph_cells.h"
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

/* A drawing laid out here (render/graph_cells.c) for Graphviz to render
 * without a layout of its own ("nop2"): node centres and widths in points
 * (y up, as Graphviz has it), each edge's spline, the canvas. */
typedef struct Placed {
    double *x, *y, *w;      /* g->n each */
    char **edge_pos;        /* per in-edge index k; NULL: Graphviz draws it straight */
    double W, H;
    double dpi;             /* PNG resolution; 0: Graphviz's 96 */
} Placed;

static void placed_free(Placed *pl, const Graph *g)
{
    if (!pl)
        return;
    free(pl->x);
    free(pl->y);
    free(pl->w);
    if (pl->edge_pos)
        for (int k = 0; k < g->n_edges; k++)
            free(pl->edge_pos[k]);
    free(pl->edge_pos);
}

static char *node_label(const Node *nd)
{
    char sz[32];
    units_format_bytes(nd->size, sz, sizeof sz);
    char *lab = xmalloc(strlen(nd->id) + strlen(nd->op) + strlen(sz) + 3);
    sprintf(lab, "%s\n%s %s", nd->id, nd->op, sz);
    return lab;
}

/* The drawing is the data DOT (graph_to_dot_draw) with labels, colours and
 * clusters added, so `remat` reads an exported drawing back as the very
 * graph it drew; Graphviz ignores the data attributes. With pl, every node
 * and edge carries its position and each cluster its box. */
static char *dot_text(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m,
                      const Placed *pl)
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
    if (pl)
        sb_put(&head, "  splines=line;\n  bb=\"0,0,%.1f,%.1f\";\n", pl->W, pl->H);
    if (pl && pl->dpi > 0)
        sb_put(&head, "  dpi=%.2f;\n", pl->dpi);
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
            double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
            for (int k = 0; k < gr->n; k++)
                if (!in_cluster[gr->nodes[k]]) {
                    int v = gr->nodes[k];
                    in_cluster[v] = 1;
                    sb_put(&tail, "    ");
                    put_id(&tail, g->nodes[v].id);
                    sb_put(&tail, ";\n");
                    if (pl) {
                        x0 = fmin(x0, pl->x[v] - pl->w[v] / 2);
                        x1 = fmax(x1, pl->x[v] + pl->w[v] / 2);
                        y0 = fmin(y0, pl->y[v] - EXPORT_BOX_H / 2);
                        y1 = fmax(y1, pl->y[v] + EXPORT_BOX_H / 2);
                    }
                }
            /* the box around the group's nodes, its label above them */
            if (pl && x0 <= x1)
                sb_put(&tail, "    bb=\"%.1f,%.1f,%.1f,%.1f\";\n", x0 - 4, y0 - 4, x1 + 4, y1 + 22);
            sb_put(&tail, "  }\n");
        }
    char **extra = xcalloc((size_t)g->n + 1, sizeof *extra);
    for (int v = 0; v < g->n; v++) {
        const Node *nd = &g->nodes[v];
        StrBuf x;
        sb_init(&x, 128);
        char *lab = node_label(nd);
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
        if (pl)
            sb_put(&x, " pos=\"%.1f,%.1f\" width=%.3f height=%.3f", pl->x[v], pl->y[v],
                   pl->w[v] / 72, EXPORT_BOX_H / 72);
        extra[v] = x.s;
    }
    char *out = graph_to_dot_draw(g, head.s, extra, pl ? pl->edge_pos : NULL, tail.s);
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

char *export_dot_marked(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m)
{
    return dot_text(g, plan, ov, m, NULL);
}

/* ---- the layered drawing ------------------------------------------------ */

/* Points per cell column; a label row's and a track row's height. Labels
 * are Helvetica 10 pt (about 5.5 pt a character), boxes 0.5 in high. */
#define CELL_W 6.0
#define LABEL_ROW_H 48.0
#define TRACK_ROW_H 9.0
#define ARROW_LEN 10.0
#define MARGIN 8.0
#define PNG_MAX_PIXELS 48e6
#define PNG_MAX_SIDE 30000.0

/* Lay out with graph_cells (the graph view's layered layout, widths from
 * the export labels) and turn cells into points: node centres, and each
 * edge's polyline as a spline with straight pieces ending in an arrow on
 * its target's top. ERR_CANCELLED when p fired. */
static int place_layered(const Graph *g, int title, Placed *pl, Progress *p, Err *e)
{
    memset(pl, 0, sizeof *pl);
    int *widths = xmallocarray((size_t)g->n + 1, sizeof *widths);
    for (int v = 0; v < g->n; v++) {
        char *lab = node_label(&g->nodes[v]);
        char *nl = strchr(lab, '\n');
        size_t a = (size_t)(nl - lab), b = strlen(nl + 1);
        widths[v] = (int)(a > b ? a : b) + 3;
        free(lab);
    }
    /* every edge drawn: routing costs a cell per rank crossed, linear work */
    CellParams prm = {0, 2, 1, 1 << 26};
    CellLayout L;
    int rc = cell_layout_sized(g, NULL, &prm, widths, &L, p, e);
    free(widths);
    if (rc)
        return rc;
    /* rows to points: label rows tall, track rows thin */
    double *top = xmallocarray((size_t)L.h + 1, sizeof *top);
    unsigned char *is_label = xcalloc((size_t)L.h + 1, 1);
    for (int v = 0; v < g->n; v++)
        if (L.y[v] >= 0)
            is_label[L.y[v]] = 1;
    double y = MARGIN + (title ? 24 : 0);
    for (int r = 0; r < L.h; r++) {
        top[r] = y;
        y += is_label[r] ? LABEL_ROW_H : TRACK_ROW_H;
    }
    top[L.h] = y;
    pl->W = L.w * CELL_W + 2 * MARGIN;
    pl->H = y + MARGIN;
#define ROW_MID(r) (top[r] + (is_label[r] ? LABEL_ROW_H : TRACK_ROW_H) / 2)
#define COL_MID(c) (MARGIN + ((c) + 0.5) * CELL_W)
    pl->x = xmallocarray((size_t)g->n + 1, sizeof *pl->x);
    pl->y = xmallocarray((size_t)g->n + 1, sizeof *pl->y);
    pl->w = xmallocarray((size_t)g->n + 1, sizeof *pl->w);
    for (int v = 0; v < g->n; v++) {
        pl->x[v] = MARGIN + (L.x[v] + L.len[v] / 2.0) * CELL_W;
        pl->y[v] = pl->H - ROW_MID(L.y[v]);
        pl->w[v] = L.len[v] * CELL_W;
    }
    pl->edge_pos = xcalloc((size_t)g->n_edges + 1, sizeof *pl->edge_pos);
    unsigned char *taken = xcalloc((size_t)g->n_edges + 1, 1);
    StrBuf sb;
    for (int i = 0; i < L.n_paths; i++) {
        int u = L.path_u[i], v = L.path_v[i], k = g->in_off[v];
        while (k < g->in_off[v + 1] && (g->in_idx[k] != u || taken[k]))
            k++;
        if (k == g->in_off[v + 1])
            continue;
        taken[k] = 1;
        int a = L.path_off[i], n = L.path_off[i + 1] - a;
        if (n < 2)
            continue;
        /* the polyline in points, y down: from the source box's bottom to
         * an arrow's length above the target box's top */
        double *px = xmallocarray((size_t)n, sizeof *px), *py = xmallocarray((size_t)n, sizeof *py);
        for (int j = 0; j < n; j++) {
            px[j] = COL_MID(L.path_x[a + j]);
            py[j] = ROW_MID(L.path_y[a + j]);
        }
        py[0] += EXPORT_BOX_H / 2;
        double tip = py[n - 1] - EXPORT_BOX_H / 2;
        py[n - 1] = tip - ARROW_LEN;
        sb_init(&sb, 64 + 48 * (size_t)n);
        sb_put(&sb, "pos=\"e,%.1f,%.1f %.1f,%.1f", px[n - 1], pl->H - tip, px[0], pl->H - py[0]);
        for (int j = 1; j < n; j++)     /* each piece a cubic with its controls on the line */
            sb_put(&sb, " %.1f,%.1f %.1f,%.1f %.1f,%.1f", px[j - 1], pl->H - py[j - 1], px[j],
                   pl->H - py[j], px[j], pl->H - py[j]);
        sb_put(&sb, "\"");
        pl->edge_pos[k] = sb.s;
        free(px);
        free(py);
    }
#undef ROW_MID
#undef COL_MID
    free(taken);
    free(top);
    free(is_label);
    cell_layout_done(&L);
    return ERR_OK;
}

/* ---- rendering ---------------------------------------------------------- */

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
    return export_graph_opts(g, plan, ov, NULL, format, path, NULL, e);
}

int export_graph_marked(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m,
                        const char *format, const char *path, Err *e)
{
    return export_graph_opts(g, plan, ov, m, format, path, NULL, e);
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

static void report(const ExportOpts *o, double done, const char *stage)
{
    if (!o)
        return;
    progress_set(o->progress, done);
    if (o->on_progress)
        o->on_progress(o->arg, done, stage);
}

static int cancelled(const ExportOpts *o)
{
    return o && progress_cancelled(o->progress);
}

int export_layered_for(const Graph *g, const ExportOpts *o)
{
    ExportLayout l = o ? o->layout : EXPORT_LAYOUT_AUTO;
    return l == EXPORT_LAYOUT_LAYERED || (l == EXPORT_LAYOUT_AUTO && g->n > EXPORT_DOT_MAX_NODES);
}

int export_graph_opts(const Graph *g, const Plan *plan, const Overlay *ov, const ExportMarks *m,
                      const char *format, const char *path, const ExportOpts *o, Err *e)
{
    int is_dot = !strcmp(format, "dot"), is_svg = !strcmp(format, "svg"),
        is_png = !strcmp(format, "png");
    if (!is_dot && !is_svg && !is_png)
        return err_set(e, ERR_USAGE, "unknown export format '%s' (dot, svg or png)", format);
    report(o, 0, "drawing");
    if (is_dot) {   /* the text itself: no layout */
        char *dot = dot_text(g, plan, ov, m, NULL);
        int rc = file_write_all(path, dot, strlen(dot), e);
        free(dot);
        report(o, 1, "written");
        return rc;
    }
    /* the target is replaced only by a complete rendering; a target that
     * cannot be written is said before any layout work */
    FileTx tx;
    int rc = file_tx_begin(&tx, path, e);
    if (rc)
        return rc;
    int layered = export_layered_for(g, o);
    Placed pl, *plp = NULL;
    if (layered) {
        report(o, 0.02, "layout");
        rc = place_layered(g, plan != NULL, &pl, o ? o->progress : NULL, e);
        if (rc) {
            file_tx_abort(&tx);
            return rc == ERR_CANCELLED ? err_set(e, ERR_CANCELLED, "%s: export cancelled", path) : rc;
        }
        plp = &pl;
        if (is_png) {
            /* a bitmap that cairo can hold (32767 pixels a side) in a few
             * hundred MB: the 96 dpi drawing scaled down to PNG_MAX_PIXELS */
            double px = pl.W * pl.H * (96.0 / 72) * (96.0 / 72), f = 1;
            if (px > PNG_MAX_PIXELS)
                f = sqrt(PNG_MAX_PIXELS / px);
            double side = (pl.W > pl.H ? pl.W : pl.H) * 96.0 / 72;
            if (side * f > PNG_MAX_SIDE)
                f = PNG_MAX_SIDE / side;
            pl.dpi = f < 1 ? 96 * f : 0;
        }
    }
    if (cancelled(o)) {
        placed_free(plp, g);
        file_tx_abort(&tx);
        return err_set(e, ERR_CANCELLED, "%s: export cancelled", path);
    }
    char *dot = dot_text(g, plan, ov, m, plp);
    placed_free(plp, g);
    report(o, layered ? 0.3 : 0.05, layered ? "rendering" : "Graphviz layout");
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
    } else if (gvLayout(gvc, ag, layered ? "nop2" : "dot") != 0) {
        rc = err_set(e, ERR_INVALID, "%s: Graphviz layout failed: %s", path, gv_err);
    } else {
        if (cancelled(o)) {
            rc = err_set(e, ERR_CANCELLED, "%s: export cancelled", path);
        } else {
            report(o, layered ? 0.5 : 0.8, "rendering");
            if (gvRender(gvc, ag, (char *)format, tx.f) != 0)
                rc = err_set(e, ERR_IO, "%s: Graphviz could not render %s: %s", path, format, gv_err);
        }
        gvFreeLayout(gvc, ag);
    }
    if (ag)
        agclose(ag);
    agseterrf(NULL);
    dot_parse_unlock();
    free(dot);
    if (!rc && cancelled(o))
        rc = err_set(e, ERR_CANCELLED, "%s: export cancelled", path);
    if (rc) {
        file_tx_abort(&tx);
        return rc;
    }
    rc = file_tx_commit(&tx, e);
    if (!rc)
        report(o, 1, "written");
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
