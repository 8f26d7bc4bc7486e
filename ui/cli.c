/* cli.c — subcommands of `remat` over the headless core. Each command
 * parses its arguments, calls src/, solvers/ and render/, and is the only
 * place that prints or picks an exit status. */
#include "ui/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cjson/cJSON.h>
#include <unistd.h>

#include "render/curve.h"
#include "render/export.h"
#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/model.h"
#include "src/base/clock.h"
#include "src/base/fileio.h"
#include "src/session/fit.h"
#include "src/graph/graph_io.h"
#include "src/plan/overlay_json.h"
#include "src/replay/replay.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/session/sweep.h"
#include "src/graph/transform.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "ui/torch_replay.h"
#include "ui/tui.h"

/* ---- argument helpers ------------------------------------------------ */

typedef struct Args {
    const char *pos[4];
    int npos;
    const char *solver, *budget, *out, *plan, *format, *at, *backend, *scale, *fit, *memory,
        *max_overhead, *replay;
    int points, top, curve, csv, width, height, ascii, train, structure, bound, markdown;
    SolverOpts opts;
} Args;

static int usage_err(const char *cmd, const char *msg)
{
    fprintf(stderr, "remat %s: %s (see 'remat help')\n", cmd, msg);
    return EXIT_USAGE;
}

/* Every option: its spellings, whether it takes a value, and the commands
 * that take it (one meaning per option; a command refuses the others). */
enum { O_SOLVER, O_BUDGET, O_OUT, O_PLAN, O_REPLAY, O_FORMAT, O_AT, O_BACKEND, O_SCALE, O_FIT, O_MEMORY,
       O_MAX_OVERHEAD, O_CURVE, O_CSV, O_ASCII, O_STRUCTURE, O_BOUND, O_TRAIN, O_POINTS, O_TOP, O_WIDTH,
       O_HEIGHT, O_OPT, O_MARKDOWN };
static const struct OptSpec {
    const char *lng, *shrt;
    int takes;
    const char *cmds;       /* " cmd cmd " */
} opt_specs[] = {
    [O_SOLVER] = {"--solver", "-s", 1, " solve sweep fit tui "},
    [O_BUDGET] = {"--budget", "-b", 1, " solve tui "},
    [O_OUT] = {"--output", "-o", 1, " solve export transform convert replay fit "},
    [O_PLAN] = {"--plan", "-p", 1, " export tui "},
    [O_REPLAY] = {"--replay", NULL, 1, " tui "},
    [O_FORMAT] = {"--format", "-f", 1, " export transform convert "},
    [O_AT] = {"--at", NULL, 1, " simulate "},
    [O_BACKEND] = {"--backend", NULL, 1, " replay tui "},
    [O_SCALE] = {"--scale", NULL, 1, " replay "},
    [O_FIT] = {"--fit", NULL, 1, " replay "},
    [O_MEMORY] = {"--memory", NULL, 1, " fit "},
    [O_MAX_OVERHEAD] = {"--max-overhead", NULL, 1, " fit "},
    [O_CURVE] = {"--curve", NULL, 0, " info simulate "},
    [O_CSV] = {"--csv", NULL, 0, " simulate sweep "},
    [O_ASCII] = {"--ascii", NULL, 0, " tui "},
    [O_STRUCTURE] = {"--structure", NULL, 0, " solve "},
    [O_BOUND] = {"--bound", NULL, 0, " solve "},
    [O_TRAIN] = {"--train", NULL, 0, " info solve simulate sweep export replay fit tui "},
    [O_POINTS] = {"--points", NULL, 1, " sweep "},
    [O_TOP] = {"--top", NULL, 1, " info simulate "},
    [O_WIDTH] = {"--width", NULL, 1, " info simulate "},
    [O_HEIGHT] = {"--height", NULL, 1, " info simulate "},
    [O_OPT] = {"--opt", "-O", 1, " solve sweep fit tui "},
    [O_MARKDOWN] = {"--markdown", NULL, 0, " list-solvers "},
};

static int opt_lookup(const char *s)
{
    for (size_t i = 0; i < sizeof opt_specs / sizeof opt_specs[0]; i++)
        if (!strcmp(s, opt_specs[i].lng) || (opt_specs[i].shrt && !strcmp(s, opt_specs[i].shrt)))
            return (int)i;
    return -1;
}

static int opt_takes_cmd(int o, const char *cmd)
{
    char key[32];
    snprintf(key, sizeof key, " %s ", cmd);
    return strstr(opt_specs[o].cmds, key) != NULL;
}

static int count_arg(const char *cmd, const char *val, int *out)
{
    char *end;
    long x = strtol(val, &end, 10);
    if (*end || x < 1 || x > 100000)
        return usage_err(cmd, "expected a positive count");
    *out = (int)x;
    return 0;
}

/* Parse the options of cmd; returns 0 or an exit status. */
static int parse_args(const char *cmd, int argc, char **argv, Args *a)
{
    memset(a, 0, sizeof *a);
    a->points = 10;
    a->top = 8;
    a->width = 72;
    a->height = 12;
    solver_opts_init(&a->opts);
    const char *name = !strcmp(cmd, "sim") ? "simulate" : cmd;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (!(s[0] == '-' && s[1])) {
            if (a->npos >= 4)
                return usage_err(cmd, "too many arguments");
            a->pos[a->npos++] = s;
            continue;
        }
        char m[400];
        int o = opt_lookup(s);
        if (o < 0) {
            snprintf(m, sizeof m, "unknown option '%s'", s);
            return usage_err(cmd, m);
        }
        if (!opt_takes_cmd(o, name)) {
            snprintf(m, sizeof m, "option '%s' does not apply to %s", s, name);
            return usage_err(cmd, m);
        }
        const char *val = NULL;
        if (opt_specs[o].takes) {
            if (i + 1 >= argc)
                return usage_err(cmd, o == O_OPT ? "--opt needs key=value" : "option needs a value");
            val = argv[++i];
        }
        int rc = 0;
        Err e;
        switch (o) {
        case O_SOLVER: a->solver = val; break;
        case O_BUDGET: a->budget = val; break;
        case O_OUT: a->out = val; break;
        case O_PLAN: a->plan = val; break;
        case O_REPLAY: a->replay = val; break;
        case O_FORMAT: a->format = val; break;
        case O_AT: a->at = val; break;
        case O_BACKEND: a->backend = val; break;
        case O_SCALE: a->scale = val; break;
        case O_FIT: a->fit = val; break;
        case O_MEMORY: a->memory = val; break;
        case O_MAX_OVERHEAD: a->max_overhead = val; break;
        case O_CURVE: a->curve = 1; break;
        case O_CSV: a->csv = 1; break;
        case O_ASCII: a->ascii = 1; break;
        case O_STRUCTURE: a->structure = 1; break;
        case O_BOUND: a->bound = 1; break;
        case O_MARKDOWN: a->markdown = 1; break;
        case O_TRAIN: a->train = 1; break;
        case O_POINTS: rc = count_arg(cmd, val, &a->points); break;
        case O_TOP: rc = count_arg(cmd, val, &a->top); break;
        case O_WIDTH: rc = count_arg(cmd, val, &a->width); break;
        case O_HEIGHT: rc = count_arg(cmd, val, &a->height); break;
        case O_OPT:
            if (solver_opts_add(&a->opts, val, &e))
                rc = usage_err(cmd, e.msg);
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* Errors that arise after loading (solver, budget) do not name the file by
 * themselves; every error line must, so prefix the graph's path. */
static int fail_in(const char *path, Err *e)
{
    if (strncmp(e->msg, path, strlen(path)))
        err_prefix(e, path);
    fprintf(stderr, "remat: %s\n", e->msg);
    return e->code == ERR_USAGE ? EXIT_USAGE : e->code == ERR_OVER_BUDGET ? EXIT_BUDGET : EXIT_FAIL;
}

static int fail(const Err *e)
{
    fprintf(stderr, "remat: %s\n", e->msg);
    return e->code == ERR_USAGE ? EXIT_USAGE : e->code == ERR_OVER_BUDGET ? EXIT_BUDGET : EXIT_FAIL;
}

/* Load a graph; with --train a forward-only graph becomes its training
 * graph. Never implicit: a plan must name the nodes of the file it was
 * made for, or outside checkers could not re-read it. */
static Graph *load_graph(const Args *a, const char *path, Err *e)
{
    Graph *g = graph_load(path, e);
    if (g && a->train) {
        Graph *t = graph_make_training(g, e);
        graph_free(g);
        if (!t)
            err_prefix(e, path);
        return t;
    }
    return g;
}

/* Names from a file (ids, graph name, source) printed to a terminal, with
 * control characters replaced: a rotating set of buffers, so several may
 * appear in one printf. */
static const char *safe(const char *s)
{
    static char buf[4][1024];
    static int slot;
    slot = (slot + 1) % 4;
    return text_safe(s, buf[slot], sizeof buf[slot]);
}

static void fmt_b(int64_t b, char *buf, size_t n)
{
    char h[32];
    units_format_bytes(b, h, sizeof h);
    snprintf(buf, n, "%lld (%s)", (long long)b, h);
}

/* "35.0 MiB (36700160)": a size for people, with the exact count. */
static void fmt_h(int64_t b, char *buf, size_t n)
{
    char h[32];
    units_format_bytes(b, h, sizeof h);
    snprintf(buf, n, "%s (%lld)", h, (long long)b);
}

static void print_live(const Graph *g, const int *sched, const Sim *s, int t, int top)
{
    LiveValue *lv;
    int n = sim_live_at(g, sched, s, t, &lv);
    printf("alive at step %d (%s), largest first:\n", t + 1, safe(g->nodes[sched[t]].id));
    printf("  %-24s %-10s %14s %10s %10s\n", "value", "why", "size", "produced", "next read");
    for (int i = 0; i < n && i < top; i++) {
        LiveCells c;
        live_cells(&lv[i], s->T, &c);
        printf("  %-24.24s %-10s %14s %10s %10s\n", safe(g->nodes[lv[i].node].id),
               live_reason_name(lv[i].reason), c.size, c.produced, c.next_read);
    }
    if (n > top)
        printf("  ... and %d more\n", n - top);
    free(lv);
}

/* ---- commands -------------------------------------------------------- */

static int cmd_info(Args *a)
{
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
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
    printf("graph     %s\n", g->name[0] ? safe(g->name) : "(unnamed)");
    if (g->source[0])
        printf("source    %s\n", safe(g->source));
    printf("nodes     %d (input %d, fwd %d, loss %d, bwd %d)\n", g->n, pc[PHASE_INPUT], pc[PHASE_FWD],
           pc[PHASE_LOSS], pc[PHASE_BWD]);
    printf("edges     %d\n", g->n_edges);
    printf("outputs   %d\n", g->n_outputs);
    fmt_b(g->input_bytes, b1, sizeof b1);
    fmt_b(act, b2, sizeof b2);
    printf("inputs    %s resident\n", b1);
    printf("values    %s produced by one run of every node\n", b2);
    fmt_b(s.peak, b1, sizeof b1);
    printf("baseline  peak %s at step %d (%s) of %d; cost %.17g\n", b1, s.peak_step + 1,
           s.peak_step >= 0 ? safe(g->nodes[order[s.peak_step]].id) : "-", T, s.cost);
    int at;
    fmt_b(graph_min_peak(g, &at), b3, sizeof b3);
    printf("lower     no schedule peaks below %s\n", b3);
    if (s.peak_step >= 0)
        print_live(g, order, &s, s.peak_step, a->top);
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

static int parse_budget(const char *cmd, const char *text, const Graph *g, int64_t *out)
{
    if (!text) {
        *out = PLAN_NO_BUDGET;
        return 0;
    }
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    Err e;
    if (units_parse_bytes(text, bp, out, &e))
        return usage_err(cmd, e.msg);
    return 0;
}

/* --structure: the groups a solver's describe() returns, one line each
 * (label, kind, size, the first node ids), indented by level. */
static void print_structure(const Overlay *ov, const Graph *g, const SolverClass *cls)
{
    if (!ov->n && !ov->title) {
        fprintf(stderr, "%s shows no structure\n", cls->name);
        return;
    }
    fprintf(stderr, "structure: %s", ov->title ? ov->title : cls->name);
    if (ov->width)
        fprintf(stderr, " (width %d)", ov->width);
    fprintf(stderr, ", %d groups\n", ov->n);
    for (int i = 0; i < ov->n; i++) {
        const OverlayGroup *gr = &ov->groups[i];
        int ind = 2 + 2 * (gr->level < 20 ? gr->level : 20);
        fprintf(stderr, "%*s%s [%s, %d nodes", ind, "", safe(gr->label), overlay_kind_name(gr->kind),
                gr->n);
        if (gr->parent >= 0)
            fprintf(stderr, ", parent %d", gr->parent);
        fputs("]:", stderr);
        for (int k = 0; k < gr->n && k < 8; k++)
            fprintf(stderr, " %s", safe(g->nodes[gr->nodes[k]].id));
        fputs(gr->n > 8 ? " ...\n" : "\n", stderr);
    }
}

/* --bound: the cover bound (solvers/checkmate/cover.c) for the budget on
 * the graph's order, and over that order and the plan's own, with the
 * plan's gap to each. */
static void print_bound(const Graph *g, int64_t budget, const Plan *p)
{
    int n;
    int *ord = sim_baseline_order(g, &n);
    double gb = -1, lb;
    Err e;
    err_clear(&e);
    if (cover_bound(g, ord, n, budget, COVER_BOUND_SECONDS, NULL, &gb, &e) == ERR_OK)
        fprintf(stderr, "bound: no plan in the graph's order costs less than %.17g; this plan is %+.2f%% above it%s\n",
                gb, gb > 0 ? 100 * (p->cost / gb - 1) : 0.0,
                p->cost < gb ? " (below: it leaves that order)" : "");
    else
        fprintf(stderr, "bound: none on the graph's order (%s)\n", e.msg);
    int m;
    int *own = cm_order_of(g, p->steps, p->T, &m);
    if (own && memcmp(own, ord, (size_t)n * sizeof *ord)) {
        /* the graph order's bound is in hand: only the plan's is solved */
        if (cover_bound_plan(g, p->steps, p->T, budget, gb, COVER_BOUND_SECONDS, NULL, &lb, &e) == ERR_OK)
            fprintf(stderr, "bound: over the graph's order and this plan's, %.17g; this plan is %+.2f%% above it\n",
                    lb, lb > 0 ? 100 * (p->cost / lb - 1) : 0.0);
        else
            fprintf(stderr, "bound: none over this plan's order (%s)\n", e.msg);
    }
    free(own);
    free(ord);
}

/* A plan file read against g and simulated; a message that does not
 * name the plan file gets its name in front. */
static int load_plan(Plan *p, const Graph *g, const char *path, Err *e)
{
    int rc = plan_load(p, g, path, e);
    if (!rc)
        rc = plan_evaluate(p, g, e);
    if (rc && strncmp(e->msg, path, strlen(path)))
        err_prefix(e, path);
    return rc;
}

/* The graph named first and, when path is non-NULL, the plan file path
 * read and simulated against it (load_plan) into *p, initialised either
 * way. NULL with the exit status in *status (and nothing left to free)
 * when either is refused. */
static Graph *load_graph_plan(const Args *a, const char *path, Plan *p, int *status)
{
    Err e;
    err_clear(&e);
    plan_init(p);
    *status = EXIT_OK;
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g) {
        *status = fail(&e);
        return NULL;
    }
    if (path && load_plan(p, g, path, &e)) {
        *status = fail(&e);
        plan_done(p);
        graph_free(g);
        return NULL;
    }
    return g;
}

/* The graph of a command that takes a budget, and the budget (NULL with
 * the exit status in *status when either is refused). */
static Graph *load_with_budget(Args *a, const char *cmd, int64_t *budget, int *status)
{
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g) {
        *status = fail(&e);
        return NULL;
    }
    if ((*status = parse_budget(cmd, a->budget, g, budget))) {
        graph_free(g);
        return NULL;
    }
    return g;
}

static int cmd_solve(Args *a)
{
    /* the portfolio is the default: the best plan the project can find */
    const char *sname = a->solver ? a->solver : "auto";
    const SolverClass *cls = solver_find(sname);
    if (!cls) {
        char m[300];
        snprintf(m, sizeof m, "unknown solver '%s'; 'remat list-solvers' lists them", sname);
        return usage_err("solve", m);
    }
    int64_t budget;
    int rc;
    Graph *g = load_with_budget(a, "solve", &budget, &rc);
    if (!g)
        return rc;
    Err e;
    err_clear(&e);
    double t0 = clock_now();
    Solver *s = solver_new(cls, g, &a->opts, &e);
    if (!s) {
        graph_free(g);
        return fail_in(a->pos[0], &e);
    }
    Plan p;
    plan_init(&p);
    rc = solver_plan(s, budget, NULL, &p, NULL, &e);
    double dt = clock_now() - t0;
    int status = EXIT_OK;
    if (rc == ERR_OK || (rc == ERR_OVER_BUDGET && p.T > 0)) {
        /* the solver's structure travels in the plan (spec: optional
         * extra fields) and, with --structure, as text for people */
        Overlay ov;
        overlay_init(&ov);
        cJSON *extra = NULL;
        if (cls->describe)
            cls->describe(s, &ov);
        if (ov.n || ov.title) {
            extra = cJSON_CreateObject();
            cJSON_AddItemToObject(extra, "structure", overlay_to_json(&ov, g));
        }
        if (a->structure && rc == ERR_OK)
            print_structure(&ov, g, cls);
        overlay_done(&ov);
        char *json = plan_to_json(&p, g, extra);
        Err we;
        err_clear(&we);
        if (rc == ERR_OK && file_write_all(a->out ? a->out : "-", json, strlen(json), &we))
            status = fail(&we);
        free(json);
        char pk[32], bp[32];
        units_format_bytes(p.peak, pk, sizeof pk);
        units_format_bytes(p.baseline_peak, bp, sizeof bp);
        char who[128];
        if (p.origin)
            snprintf(who, sizeof who, "%s (%s's plan)", cls->name, p.origin);
        else
            snprintf(who, sizeof who, "%s", cls->name);
        /* a failed write has said so: no summary line after it */
        if (rc != ERR_OK) {
            status = fail_in(a->pos[0], &e);
        } else if (status == EXIT_OK) {
            fprintf(stderr, "%s: peak %lld (%s, baseline %s), cost %.17g (%+.1f%%), %d steps, %d recomputed nodes, %.3f s\n",
                    who, (long long)p.peak, pk, bp, p.cost, 100 * plan_overhead(&p), p.T,
                    plan_recomputed_nodes(&p, g), dt);
            if (p.bound >= 0 && p.optimal)
                fprintf(stderr, "%s: optimal%s%s (proven by the solver)\n", cls->name,
                        cls->optimal_among ? " " : "", cls->optimal_among ? cls->optimal_among : "");
            else if (p.bound >= 0)
                fprintf(stderr, "%s: best found, gap %.3g%% to the solver's bound %.17g\n", cls->name,
                        p.cost > 0 ? 100 * (p.cost - p.bound) / p.cost : 0.0, p.bound);
            if (a->bound)
                print_bound(g, budget == PLAN_NO_BUDGET ? p.baseline_peak : budget, &p);
        }
    } else {
        status = fail_in(a->pos[0], &e);
    }
    plan_done(&p);
    solver_free(s);
    graph_free(g);
    return status;
}

static int cmd_simulate(Args *a)
{
    Plan p;
    int status;
    Graph *g = load_graph_plan(a, NULL, &p, &status);
    if (!g)
        return status;
    Err e;
    err_clear(&e);
    Sim s;
    memset(&s, 0, sizeof s);
    if (plan_load(&p, g, a->pos[1], &e)) {
        status = fail(&e);
        goto out;
    }
    if (sim_run(g, p.steps, p.T, &s, &e)) {
        err_prefix(&e, a->pos[1]);
        status = fail(&e);
        goto out;
    }
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    char pk[64];
    fmt_b(s.peak, pk, sizeof pk);
    printf("valid     yes, %d steps, %d recomputations\n", s.T, s.recomputations);
    printf("peak      %s at step %d (%s)\n", pk, s.peak_step + 1,
           s.peak_step >= 0 ? safe(g->nodes[p.steps[s.peak_step]].id) : "-");
    printf("cost      %.17g (baseline %.17g, %+.1f%%)\n", s.cost, bc, bc > 0 ? 100 * (s.cost / bc - 1) : 0);
    if (p.budget != PLAN_NO_BUDGET) {
        char hb[32];
        units_format_bytes(p.budget, hb, sizeof hb);
        printf("budget    %lld: %s (%s)\n", (long long)p.budget, s.peak <= p.budget ? "met" : "EXCEEDED", hb);
    }
    if (a->at) {
        int t = atoi(a->at);
        if (t < 1 || t > s.T) {
            status = usage_err("simulate", "--at STEP is out of range");
            goto out;
        }
        print_live(g, p.steps, &s, t - 1, a->top);
    }
    if (a->curve) {
        char *c = curve_ascii(s.mem, s.T, a->width, a->height, p.budget != PLAN_NO_BUDGET ? p.budget : -1);
        fputs(c, stdout);
        free(c);
    }
    if (a->csv) {
        printf("step,node,memory\n");
        for (int t = 0; t < s.T; t++)
            printf("%d,%s,%lld\n", t + 1, safe(g->nodes[p.steps[t]].id), (long long)s.mem[t]);
    }
    Err ce;
    err_clear(&ce);
    if (plan_check(&p, g, &ce)) {
        fprintf(stderr, "remat: %s: %s\n", a->pos[1], ce.msg);
        status = EXIT_FAIL;
    } else if (p.budget != PLAN_NO_BUDGET && s.peak > p.budget) {
        status = EXIT_BUDGET;
    }
out:
    sim_done(&s);
    plan_done(&p);
    graph_free(g);
    return status;
}

static int cmd_sweep(Args *a)
{
    const SolverClass *cls = solver_find(a->solver ? a->solver : "");
    if (!cls)
        return usage_err("sweep", "--solver NAME is required (see 'remat list-solvers')");
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    int64_t bp, lo = graph_min_peak(g, NULL);
    double bc;
    sim_baseline(g, &bp, &bc);
    int64_t *budgets = xmallocarray((size_t)a->points, sizeof *budgets);
    SweepPoint *pts = xmallocarray((size_t)a->points, sizeof *pts);
    /* one point: the baseline peak alone */
    sweep_budgets(a->points == 1 ? bp : lo, bp, a->points, budgets);
    int rc = sweep_run(g, cls, &a->opts, budgets, a->points, pts, NULL, NULL, &e);
    if (rc) {
        free(budgets);
        free(pts);
        graph_free(g);
        return fail_in(a->pos[0], &e);
    }
    if (a->csv)
        printf("budget,peak,cost,overhead_pct,steps,status\n");
    else
        printf("%-24s %-24s %16s %9s %7s  %s\n", "budget", "peak", "cost", "overhead", "steps", "status");
    for (int i = 0; i < a->points; i++) {
        const SweepPoint *pt = &pts[i];
        const char *status = pt->has_plan ? (pt->rc == ERR_OK ? "ok" : "over")
                             : pt->rc == ERR_OVER_BUDGET ? "infeasible" : err_label(pt->rc);
        if (a->csv && pt->has_plan)
            printf("%lld,%lld,%.17g,%.2f,%d,%s\n", (long long)pt->budget, (long long)pt->plan.peak, pt->plan.cost,
                   100 * plan_overhead(&pt->plan), pt->plan.T, status);
        else if (a->csv)
            printf("%lld,,,,,%s\n", (long long)pt->budget, status);
        else {
            char b1[48], b2[48] = "-";
            fmt_h(pt->budget, b1, sizeof b1);
            if (pt->has_plan)
                fmt_h(pt->plan.peak, b2, sizeof b2);
            if (pt->has_plan)
                printf("%-24s %-24s %16.10g %+8.2f%% %7d  %s\n", b1, b2, pt->plan.cost, 100 * plan_overhead(&pt->plan),
                       pt->plan.T, status);
            else
                printf("%-24s %-24s %16s %9s %7s  %s\n", b1, b2, "-", "-", "-", status);
        }
    }
    sweep_points_done(pts, a->points);
    free(pts);
    free(budgets);
    graph_free(g);
    return EXIT_OK;
}

/* Text for a Markdown table cell: a '|' would end the cell. */
static void md_cell(const char *t)
{
    for (; *t; t++) {
        if (*t == '|')
            putchar('\\');
        putchar(*t);
    }
}

/* One solver's options as the Markdown table docs/solvers/ carries
 * (scripts/gen_solver_docs.sh puts it there; a test checks it is current). */
static void list_markdown(const SolverClass *c)
{
    printf("<!-- options: %s (generated by `remat list-solvers --markdown`; do not edit) -->\n", c->name);
    printf("| option | default | accepts | meaning |\n|---|---|---|---|\n");
    for (const SolverParam *p = c->params; p && p->name; p++) {
        char kind[160];
        solver_param_kind(p, kind, sizeof kind);
        printf("| `%s` | `%s` | ", p->name, p->def[0] ? p->def : "(none)");
        md_cell(kind);
        fputs(" | ", stdout);
        md_cell(p->help);
        fputs(" |\n", stdout);
    }
    if (c->caps & SOLVER_CONSTRAINTS)
        printf("| `pin`, `force` | (none) | node ids, comma-separated | never recompute these / recompute these |\n");
    printf("<!-- /options -->\n");
}

static int cmd_list(Args *a)
{
    for (int i = 0; i < solver_count(); i++) {
        const SolverClass *c = solver_at(i);
        if (a->npos == 1 && strcmp(a->pos[0], c->name))
            continue;
        if (a->markdown) {
            list_markdown(c);
            continue;
        }
        printf("%-16s %s\n", c->name, c->title);
        for (const SolverParam *p = c->params; p && p->name; p++) {
            char kind[160];
            solver_param_kind(p, kind, sizeof kind);
            printf("%-16s   %s=%s  [%s]  %s\n", "", p->name, p->def, kind, p->help);
        }
    }
    if (a->npos == 1 && !solver_find(a->pos[0])) {
        char m[300];
        snprintf(m, sizeof m, "unknown solver '%s'", a->pos[0]);
        return usage_err("list-solvers", m);
    }
    return EXIT_OK;
}

static int write_graph(const Graph *g, const char *out, const char *format)
{
    Err e;
    err_clear(&e);
    int dot = format ? !strcmp(format, "dot") : (out && strlen(out) > 4 && !strcmp(out + strlen(out) - 4, ".dot"));
    if (format && strcmp(format, "dot") && strcmp(format, "json"))
        return usage_err("convert", "--format must be json or dot");
    char *text = dot ? graph_to_dot(g) : graph_to_json(g);
    int rc = file_write_all(out ? out : "-", text, strlen(text), &e);
    free(text);
    return rc ? fail(&e) : EXIT_OK;
}

static int cmd_transform(Args *a)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_load(a->pos[0], &e);
    if (!g)
        return fail(&e);
    Graph *t = graph_make_training(g, &e);
    graph_free(g);
    if (!t) {
        err_prefix(&e, a->pos[0]);
        return fail(&e);
    }
    int rc = write_graph(t, a->out, a->format);
    graph_free(t);
    return rc;
}

static int cmd_convert(Args *a)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_load(a->pos[0], &e);
    if (!g)
        return fail(&e);
    int rc = write_graph(g, a->out, a->format);
    graph_free(g);
    return rc;
}

static int cmd_export(Args *a)
{
    if (!a->out)
        return usage_err("export", "-o FILE is required");
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
            return usage_err("export", m);
        }
        fmt = "dot";
    } else if (!strcmp(fmt, "json") && !a->format) {
        return usage_err("export", "export draws the graph (.dot, .gv, .svg, .png); 'remat solve -o PLAN.json' writes a plan");
    }
    Plan p;
    int status;
    Graph *g = load_graph_plan(a, a->plan, &p, &status);
    if (!g)
        return status;
    Err e;
    err_clear(&e);
    if (export_graph(g, a->plan ? &p : NULL, NULL, fmt, a->out, &e)) {
        status = fail(&e);
    } else {
        fprintf(stderr, "remat: wrote %s (%s)\n", a->out, fmt);
    }
    plan_done(&p);
    graph_free(g);
    return status;
}

static void print_replay(const Replay *r)
{
    char a[32], b[32], c[32];
    units_format_bytes(r->simulated_peak, a, sizeof a);
    units_format_bytes(r->measured_peak, b, sizeof b);
    units_format_bytes(r->rss_peak, c, sizeof c);
    double sp = (double)r->simulated_peak;
    printf("backend   %s (%s), scale %.6g\n", r->backend, r->device, r->scale);
    printf("simulated peak %lld (%s)\n", (long long)r->simulated_peak, a);
    printf("measured  peak %lld (%s), %+.2f%% vs simulated (allocator live bytes)\n",
           (long long)r->measured_peak, b, sp > 0 ? 100 * (r->measured_peak / sp - 1) : 0);
    if (r->rss_peak > 0)
        printf("resident  peak %lld (%s), %+.2f%% vs simulated\n", (long long)r->rss_peak, c,
               sp > 0 ? 100 * (r->rss_peak / sp - 1) : 0);
    if (r->correlation == r->correlation)
        printf("step time vs node cost: correlation r = %.3f over %d steps, %.3f s\n",
               r->correlation, r->T, r->seconds);
    if (r->grad_match >= 0)
        printf("gradients %s plain autograd's (max abs diff %.3g)\n",
               r->grad_match ? "match" : "DIFFER from", r->grad_max_diff);
}

/* --backend torch: the plan run with the model's own operators by
 * tools/replay_torch.py, on a graph whose exporter recorded a recipe. The
 * graph and plan are checked here first, so bad input reads as it does for
 * the other backends, and the tool's simulated peak is checked against
 * this simulator's. */
static int replay_torch(const Args *a)
{
    Plan p;
    int status;
    Graph *g = load_graph_plan(a, a->pos[1], &p, &status);
    if (!g)
        return status;
    Err e;
    err_clear(&e);
    char tool[4200], msg[4400], tmp[] = "/tmp/remat-replay-XXXXXX";
    const char *outp = a->out;
    if (!g->recipe || a->train || a->scale || a->fit) {
        fprintf(stderr, "remat: replay: %s\n",
                !g->recipe ? "--backend torch needs a graph with a recipe (a joint graph written by "
                             "tools/export_torch.py)"
                           : "--backend torch runs the recipe's model as it is: no --train, --scale "
                             "or --fit");
        status = EXIT_FAIL;
        goto out;
    }
    if (torch_replay_locate(tool, sizeof tool, msg, sizeof msg)) {
        fprintf(stderr, "remat: %s\n", msg);
        status = EXIT_FAIL;
        goto out;
    }
    if (!outp) {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            status = EXIT_FAIL;
            goto out;
        }
        close(fd);
        outp = tmp;
    }
    if (torch_replay_run(tool, a->pos[0], a->pos[1], outp, NULL)) {
        status = EXIT_FAIL;
        goto out;
    }
    size_t len;
    char *text = file_read_all(outp, &len, &e);
    Replay r;
    if (!text || replay_from_json(&r, text, len, outp, &e)) {
        status = fail(&e);
    } else {
        print_replay(&r);
        if (r.simulated_peak != p.peak) {
            fprintf(stderr, "remat: replay: the torch replay simulated a peak of %lld, the simulator "
                            "%lld\n", (long long)r.simulated_peak, (long long)p.peak);
            status = EXIT_FAIL;
        } else if (r.grad_match == 0) {
            fprintf(stderr, "remat: replay: the schedule's gradients differ from plain autograd's "
                            "(max abs diff %.3g)\n", r.grad_max_diff);
            status = EXIT_FAIL;
        }
        replay_done(&r);
    }
    free(text);
out:
    if (!a->out && outp == tmp)
        unlink(tmp);
    plan_done(&p);
    graph_free(g);
    return status;
}

/* The CUDA backend is a separate program beside this binary, built only
 * where nvcc exists, so that this one runs everywhere. */
static int run_cuda(const Args *a, const char *outpath)
{
    char self[4096], msg[200];
    if (cuda_replay_locate(self, sizeof self, msg, sizeof msg)) {
        fprintf(stderr, "remat: %s\n", msg);
        return EXIT_FAIL;
    }
    char *argv[8];
    int k = 0;
    argv[k++] = self;
    argv[k++] = (char *)a->pos[0];
    argv[k++] = (char *)a->pos[1];
    argv[k++] = (char *)(a->fit ? "--fit" : "--scale");
    argv[k++] = (char *)(a->fit ? a->fit : a->scale ? a->scale : "1");
    argv[k++] = (char *)outpath;
    argv[k] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        execv(self, argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return EXIT_FAIL;
    return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_FAIL;
}

static int cmd_replay(Args *a)
{
    const char *backend = a->backend ? a->backend : "cpu";
    if (strcmp(backend, "cpu") && strcmp(backend, "cuda") && strcmp(backend, "torch"))
        return usage_err("replay", "--backend must be cpu, cuda or torch");
    if (!strcmp(backend, "torch"))
        return replay_torch(a);
    if (a->scale && a->fit)
        return usage_err("replay", "give --scale or --fit, not both");
    Err e;
    err_clear(&e);
    int status = EXIT_OK;
    if (!strcmp(backend, "cuda")) {
        char tmp[] = "/tmp/remat-replay-XXXXXX";
        const char *outp = a->out;
        if (!outp) {
            int fd = mkstemp(tmp);
            if (fd < 0)
                return EXIT_FAIL;
            close(fd);
            outp = tmp;
        }
        status = run_cuda(a, outp);
        if (status == EXIT_OK) {
            size_t len;
            char *text = file_read_all(outp, &len, &e);
            Replay r;
            if (!text || replay_from_json(&r, text, len, outp, &e))
                status = fail(&e);
            else {
                print_replay(&r);
                replay_done(&r);
            }
            free(text);
        }
        if (!a->out)
            unlink(tmp);
        return status;
    }
    double scale = 0;
    if (a->scale) {
        char *end;
        scale = strtod(a->scale, &end);
        if (*end || !(scale > 0) || scale > 1e12)
            return usage_err("replay", "--scale needs a positive number");
    }
    if (a->fit) {
        /* CPU: PCT of the machine's available memory */
        char *end;
        double pct = strtod(a->fit, &end);
        if ((*end && strcmp(end, "%")) || !(pct > 0) || pct > 90)
            return usage_err("replay", "--fit needs a percentage in (0, 90]");
        long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        scale = -pct / 100.0 * (double)pages * (double)psz; /* resolved below, once the peak is known */
    }
    Plan p;
    Graph *g = load_graph_plan(a, a->pos[1], &p, &status);
    if (!g)
        return status;
    Replay r;
    replay_init(&r);
    if (scale < 0)
        scale = p.peak > 0 ? -scale / (double)p.peak : 1;
    if (replay_cpu(g, &p, scale, 0.5, &r, &e)) {
        status = fail(&e);
        goto out;
    }
    print_replay(&r);
    if (a->out) {
        char *json = replay_to_json(&r, g, &p);
        Err we;
        if (file_write_all(a->out, json, strlen(json), &we))
            status = fail(&we);
        free(json);
    }
out:
    replay_done(&r);
    plan_done(&p);
    graph_free(g);
    return status;
}

static int cmd_fit(Args *a)
{
    if (!a->memory)
        return usage_err("fit", "--memory BYTES is required (e.g. 80GiB)");
    Err e;
    err_clear(&e);
    int64_t mem;
    if (units_parse_bytes(a->memory, -1, &mem, &e))
        return usage_err("fit", e.msg);
    double maxo = -1;
    if (a->max_overhead) {
        char *end;
        maxo = strtod(a->max_overhead, &end);
        if ((*end && strcmp(end, "%")) || maxo < 0)
            return usage_err("fit", "--max-overhead needs a percentage such as 30%");
        maxo /= 100;
    }
    const char *sname = a->solver ? a->solver : "greedy";
    const SolverClass *cls = solver_find(sname);
    if (!cls) {
        char m[300];
        snprintf(m, sizeof m, "unknown solver '%s' (see 'remat list-solvers')", sname);
        return usage_err("fit", m);
    }
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    FitResult r;
    int rc = fit_batch(g, cls, &a->opts, mem, maxo, 1 << 16, &r, NULL, &e);
    int status = EXIT_OK;
    if (rc) {
        status = fail(&e);
        goto out;
    }
    char m1[64], m2[64], m3[64], m4[64];
    fmt_h(mem, m1, sizeof m1);
    printf("memory    %s; batch multiplier scales every value but parameters (op \"param\")\n", m1);
    if (r.b_plain) {
        fmt_h(r.peak_plain, m2, sizeof m2);
        printf("noremat   largest multiplier %d (peak %s, overhead +0.0%%)\n", r.b_plain, m2);
    } else {
        fmt_h(r.peak_one, m4, sizeof m4);
        printf("noremat   does not fit even at multiplier 1 (peak %s)\n", m4);
    }
    if (r.b_remat) {
        fmt_h(r.peak_remat, m3, sizeof m3);
        printf("%-9s largest multiplier %d (peak %s, overhead %+.1f%%)%s\n", cls->name, r.b_remat, m3,
               100 * r.overhead_remat, r.b_remat > r.b_plain ? "" : " (no gain over noremat)");
        if (a->out) {
            Graph *gb = graph_scaled(g, r.b_remat, NULL); /* fit_batch planned on it */
            char *json = plan_to_json(&r.plan, gb, NULL);
            Err we;
            if (file_write_all(a->out, json, strlen(json), &we))
                status = fail(&we);
            free(json);
            graph_free(gb);
        }
    } else {
        printf("%-9s does not fit even at multiplier 1%s\n", cls->name,
               maxo >= 0 ? " within the overhead limit" : "");
        status = EXIT_BUDGET;
    }
out:
    fit_result_done(&r);
    graph_free(g);
    return status;
}

/* The explorer on a terminal; without one (output piped, no
 * REMAT_NO_DISPLAY) the same facts as `info --curve`. */
static int cmd_tui(Args *a)
{
    if (!isatty(STDOUT_FILENO) && !getenv("REMAT_NO_DISPLAY")) {
        a->curve = 1;
        return cmd_info(a);
    }
    const SolverClass *cls = NULL;
    if (a->solver && !(cls = solver_find(a->solver)))
        return usage_err("tui", "unknown solver (see 'remat list-solvers')");
    int64_t budget;
    int rc;
    Graph *g = load_with_budget(a, "tui", &budget, &rc);
    if (!g)
        return rc;
    int cuda = a->backend && !strcmp(a->backend, "cuda");
    if (a->backend && !cuda && strcmp(a->backend, "cpu")) {
        graph_free(g);
        return usage_err("tui", "--backend must be cpu or cuda");
    }
    return tui_run(g, cls, &a->opts, budget, a->ascii, a->plan, a->replay, cuda) ? EXIT_FAIL : EXIT_OK;
}

static int cmd_help(Args *a);

static const struct Command {
    const char *name;
    int (*run)(Args *a);
    const char *args;       /* the positional arguments it takes */
    const char *synopsis;
} commands[] = {
    {"info", cmd_info, "GRAPH", "info GRAPH [--curve] [--top N]      nodes, sizes, baseline peak and what is alive there"},
    {"solve", cmd_solve, "GRAPH", "solve GRAPH [--solver NAME] [--budget BYTES|PCT%] [-O key=val] [-o PLAN] [--structure] [--bound]"},
    {"simulate", cmd_simulate, "GRAPH PLAN", "simulate GRAPH PLAN [--curve] [--csv] [--at STEP]   re-check a plan: validity, peak, cost"},
    {"sim", cmd_simulate, "GRAPH PLAN", NULL},
    {"sweep", cmd_sweep, "GRAPH", "sweep GRAPH --solver NAME [--points N] [--csv]   peak vs cost over budgets"},
    {"export", cmd_export, "GRAPH", "export GRAPH [--plan PLAN] -o FILE.dot|.svg|.png [--format dot|svg|png]"},
    {"transform", cmd_transform, "GRAPH", "transform GRAPH [-o OUT] [--format json|dot]   forward-only -> training graph"},
    {"convert", cmd_convert, "GRAPH", "convert GRAPH [-o OUT] [--format json|dot]   rewrite a graph in another format"},
    {"replay", cmd_replay, "GRAPH PLAN", "replay GRAPH PLAN [--backend cpu|cuda|torch] [--scale F | --fit PCT] [-o MEASURED.json]"},
    {"fit", cmd_fit, "GRAPH", "fit GRAPH --memory BYTES [--max-overhead PCT] [--solver NAME] [-o PLAN]"},
    {"list-solvers", cmd_list, "[NAME]", "list-solvers [NAME] [--markdown]     every solver (or one) and its options"},
    {"tui", cmd_tui, "GRAPH", "tui GRAPH [-s NAME] [-b BYTES] [-O key=val] [--plan PLAN] [--replay MEASURED.json] [--backend cpu|cuda] [--ascii]   open the explorer"},
    {"help", cmd_help, "", "help                                 this text"},
};

static int cmd_help(Args *a)
{
    (void)a;
    printf("usage: remat COMMAND ...\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].synopsis)
            printf("  remat %s\n", commands[i].synopsis);
    printf("\nBYTES takes suffixes (512MiB, 2GiB, 1.5GB); PCT%% is a share of the baseline peak.\n"
           "Exit status: 0 ok, 1 bad input, 2 usage, 3 no plan within the budget.\n");
    return EXIT_OK;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        Args a;
        memset(&a, 0, sizeof a);
        cmd_help(&a);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        cmd = "help";
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, cmd)) {
            Args a;
            int rc = parse_args(cmd, argc - 2, argv + 2, &a);
            /* the positional arguments, counted by the table ("[X]": optional) */
            const char *want = commands[i].args;
            int n = 0, opt = 0;
            for (const char *p = want; *p; p++)
                if ((p == want || p[-1] == ' ') && *p != ' ')
                    *p == '[' ? opt++ : n++;
            if (!rc && (a.npos < n || a.npos > n + opt)) {
                char m[64];
                snprintf(m, sizeof m, n || opt ? "expected %s" : "takes no arguments", want);
                rc = usage_err(strcmp(cmd, "sim") ? cmd : "simulate", m);
            }
            if (!rc)
                rc = commands[i].run(&a);
            solver_opts_done(&a.opts);
            return rc;
        }
    fprintf(stderr, "remat: unknown command '%s' (see 'remat help')\n", cmd);
    return EXIT_USAGE;
}
