/* cli_graph.c — the commands about a graph itself: info (sizes, the
 * baseline peak and what is alive there), transform (forward-only to
 * training graph), convert (JSON and DOT) and export (drawings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/curve.h"
#include "render/export.h"
#include "src/base/fileio.h"
#include "src/base/units.h"
#include "src/graph/graph_io.h"
#include "src/graph/transform.h"
#include "src/plan/sim.h"
#include "ui/cli_args.h"

int cmd_info(Args *a)
{
    Err e;
    err_clear(&e);
    Graph *g = cli_load_graph(a, a->pos[0], &e);
    if (!g)
        return cli_fail(&e);
    int pc[PHASE_COUNT];
    graph_phase_counts(g, pc);
    int64_t act = 0;
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase != PHASE_INPUT)
            act += g->nodes[v].size;
    int T;
    int *order = sim_baseline_order(g, &T);
    Sim s;
    sim_run(g, order, T, &s, &e);
    char b1[64], b2[64], b3[64];
    printf("graph     %s\n", g->name[0] ? cli_safe(g->name) : "(unnamed)");
    if (g->source[0])
        printf("source    %s\n", cli_safe(g->source));
    printf("nodes     %d (input %d, fwd %d, loss %d, bwd %d)\n", g->n, pc[PHASE_INPUT], pc[PHASE_FWD],
           pc[PHASE_LOSS], pc[PHASE_BWD]);
    printf("edges     %d\n", g->n_edges);
    printf("outputs   %d\n", g->n_outputs);
    cli_fmt_b(g->input_bytes, b1, sizeof b1);
    cli_fmt_b(act, b2, sizeof b2);
    printf("inputs    %s resident\n", b1);
    printf("values    %s produced by one run of every node\n", b2);
    cli_fmt_b(s.peak, b1, sizeof b1);
    printf("baseline  peak %s at step %d (%s) of %d; cost %.17g\n", b1, s.peak_step + 1,
           s.peak_step >= 0 ? cli_safe(g->nodes[order[s.peak_step]].id) : "-", T, s.cost);
    int at;
    cli_fmt_b(graph_min_peak(g, &at), b3, sizeof b3);
    printf("lower     no schedule peaks below %s\n", b3);
    if (s.peak_step >= 0)
        cli_print_live(g, order, &s, s.peak_step, a->top);
    if (a->curve)
    {
        char *c = curve_ascii(s.mem, s.T, a->width, a->height, -1);
        fputs(c, stdout);
        free(c);
    }
    sim_done(&s);
    free(order);
    graph_free(g);
    return EXIT_OK;
}

static int write_graph(const Graph *g, const char *out, const char *format)
{
    Err e;
    err_clear(&e);
    int dot = format ? !strcmp(format, "dot") : (out && strlen(out) > 4 && !strcmp(out + strlen(out) - 4, ".dot"));
    if (format && strcmp(format, "dot") && strcmp(format, "json"))
        return cli_usage_err("convert", "--format must be json or dot");
    char *text = dot ? graph_to_dot(g) : graph_to_json(g);
    int rc = file_write_all(out ? out : "-", text, strlen(text), &e);
    free(text);
    return rc ? cli_fail(&e) : EXIT_OK;
}

int cmd_transform(Args *a)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_load(a->pos[0], &e);
    if (!g)
        return cli_fail(&e);
    Graph *t = graph_make_training(g, &e);
    graph_free(g);
    if (!t) {
        err_prefix(&e, a->pos[0]);
        return cli_fail(&e);
    }
    int rc = write_graph(t, a->out, a->format);
    graph_free(t);
    return rc;
}

int cmd_convert(Args *a)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_load(a->pos[0], &e);
    if (!g)
        return cli_fail(&e);
    int rc = write_graph(g, a->out, a->format);
    graph_free(g);
    return rc;
}

int cmd_export(Args *a)
{
    if (!a->out)
        return cli_usage_err("export", "-o FILE is required");
    /* the format: --format, else the file's extension; a name without
     * one (or -) gets DOT text */
    const char *fmt = a->format ? a->format : export_format_of(a->out);
    if (!fmt) {
        const char *base = strrchr(a->out, '/');
        base = base ? base + 1 : a->out;
        if (strchr(base, '.')) {
            char m[1200];
            snprintf(m, sizeof m, "cannot tell the format of '%s' from its name: use .dot, .gv, .svg or .png, or --format",
                     a->out);
            return cli_usage_err("export", m);
        }
        fmt = "dot";
    } else if (!strcmp(fmt, "json") && !a->format) {
        return cli_usage_err("export", "export draws the graph (.dot, .gv, .svg, .png); 'remat solve -o PLAN.json' writes a plan");
    }
    Plan p;
    int status;
    Graph *g = cli_load_graph_plan(a, a->plan, &p, &status);
    if (!g)
        return status;
    Err e;
    err_clear(&e);
    if (export_graph(g, a->plan ? &p : NULL, NULL, fmt, a->out, &e)) {
        status = cli_fail(&e);
    } else {
        fprintf(stderr, "remat: wrote %s (%s)\n", a->out, fmt);
    }
    plan_done(&p);
    graph_free(g);
    return status;
}

