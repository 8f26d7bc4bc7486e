/* cli.c — subcommands of `remat` over the headless core. Each command
 * parses its arguments, calls src/, solvers/ and render/, and is the only
 * place that prints or picks an exit status. */
#include "ui/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cjson/cJSON.h>
#include <time.h>
#include <unistd.h>

#include "render/curve.h"
#include "render/export.h"
#include "src/fileio.h"
#include "src/fit.h"
#include "src/graph_io.h"
#include "src/overlay_json.h"
#include "src/replay.h"
#include "src/sim.h"
#include "src/solver.h"
#include "src/transform.h"
#include "src/units.h"
#include "src/xalloc.h"
#include "ui/tui.h"

/* ---- argument helpers ------------------------------------------------ */

typedef struct Args {
    const char *pos[4];
    int npos;
    const char *solver, *budget, *out, *plan, *format, *at, *backend, *scale, *fit, *memory,
        *max_overhead, *replay;
    int points, top, curve, width, height, ascii, train, structure;
    SolverOpts opts;
} Args;

static int usage_err(const char *cmd, const char *msg)
{
    fprintf(stderr, "remat %s: %s (see 'remat help')\n", cmd, msg);
    return EXIT_USAGE;
}

/* Parse common options; returns 0 or an exit status. */
static int parse_args(const char *cmd, int argc, char **argv, Args *a)
{
    memset(a, 0, sizeof *a);
    a->points = 10;
    a->top = 8;
    a->width = 72;
    a->height = 12;
    solver_opts_init(&a->opts);
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(field)                                            \
    do {                                                       \
        if (!val)                                              \
            return usage_err(cmd, "option needs a value");     \
        a->field = val;                                        \
        i++;                                                   \
    } while (0)
        if (!strcmp(s, "--solver") || !strcmp(s, "-s"))
            TAKE(solver);
        else if (!strcmp(s, "--budget") || !strcmp(s, "-b"))
            TAKE(budget);
        else if (!strcmp(s, "-o") || !strcmp(s, "--output"))
            TAKE(out);
        else if (!strcmp(s, "--plan") || !strcmp(s, "-p"))
            TAKE(plan);
        else if (!strcmp(s, "--replay"))
            TAKE(replay);
        else if (!strcmp(s, "--format") || !strcmp(s, "-f"))
            TAKE(format);
        else if (!strcmp(s, "--at"))
            TAKE(at);
        else if (!strcmp(s, "--backend"))
            TAKE(backend);
        else if (!strcmp(s, "--scale"))
            TAKE(scale);
        else if (!strcmp(s, "--fit"))
            TAKE(fit);
        else if (!strcmp(s, "--memory"))
            TAKE(memory);
        else if (!strcmp(s, "--max-overhead"))
            TAKE(max_overhead);
        else if (!strcmp(s, "--curve"))
            a->curve = 1;
        else if (!strcmp(s, "--ascii"))
            a->ascii = 1;
        else if (!strcmp(s, "--structure"))
            a->structure = 1;
        else if (!strcmp(s, "--train"))
            a->train = 1;
        else if (!strcmp(s, "--points") || !strcmp(s, "--top") || !strcmp(s, "--width") ||
                 !strcmp(s, "--height")) {
            if (!val)
                return usage_err(cmd, "option needs a value");
            char *end;
            long x = strtol(val, &end, 10);
            if (*end || x < 1 || x > 100000)
                return usage_err(cmd, "expected a positive count");
            if (!strcmp(s, "--points"))
                a->points = (int)x;
            else if (!strcmp(s, "--top"))
                a->top = (int)x;
            else if (!strcmp(s, "--width"))
                a->width = (int)x;
            else
                a->height = (int)x;
            i++;
        } else if (!strcmp(s, "--opt") || !strcmp(s, "-O")) {
            if (!val)
                return usage_err(cmd, "--opt needs key=value");
            Err e;
            if (solver_opts_add(&a->opts, val, &e))
                return usage_err(cmd, e.msg);
            i++;
        } else if (s[0] == '-' && s[1]) {
            char m[300];
            snprintf(m, sizeof m, "unknown option '%s'", s);
            return usage_err(cmd, m);
        } else {
            if (a->npos >= 4)
                return usage_err(cmd, "too many arguments");
            a->pos[a->npos++] = s;
        }
#undef TAKE
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
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
    if (a->npos != 1)
        return usage_err("info", "expected GRAPH");
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

static int cmd_solve(Args *a)
{
    if (a->npos != 1)
        return usage_err("solve", "expected GRAPH");
    /* the portfolio is the default: the best plan the project can find */
    const char *sname = a->solver ? a->solver : "auto";
    const SolverClass *cls = solver_find(sname);
    if (!cls) {
        char m[300];
        snprintf(m, sizeof m, "unknown solver '%s'; 'remat list-solvers' lists them", sname);
        return usage_err("solve", m);
    }
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    int64_t budget;
    int rc = parse_budget("solve", a->budget, g, &budget);
    if (rc) {
        graph_free(g);
        return rc;
    }
    double t0 = now_s();
    Solver *s = solver_new(cls, g, &a->opts, &e);
    if (!s) {
        graph_free(g);
        return fail_in(a->pos[0], &e);
    }
    Plan p;
    plan_init(&p);
    rc = solver_plan(s, budget, NULL, &p, NULL, &e);
    double dt = now_s() - t0;
    int status = EXIT_OK;
    if (rc == ERR_OK || (rc == ERR_OVER_BUDGET && p.T > 0)) {
        /* the solver's structure travels in the plan (spec: optional
         * extra fields) and, with --structure, as text for people */
        Overlay ov;
        overlay_init(&ov);
        cJSON *extra = NULL;
        Err de;
        err_clear(&de);
        if (cls->describe && cls->describe(s, &p, &ov, &de) == ERR_OK &&
            (ov.n || ov.title)) {
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
        if (rc != ERR_OK)
            status = fail_in(a->pos[0], &e);
        else if (status == EXIT_OK)
            fprintf(stderr, "%s: peak %lld (%s, baseline %s), cost %.17g (%+.1f%%), %d steps, %d recomputed nodes, %.3f s\n",
                    who, (long long)p.peak, pk, bp, p.cost, 100 * plan_overhead(&p), p.T,
                    plan_recomputed_nodes(&p, g), dt);
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
    if (a->npos != 2)
        return usage_err("simulate", "expected GRAPH PLAN");
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    Plan p;
    plan_init(&p);
    int status = EXIT_OK;
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
    if (p.budget != PLAN_NO_BUDGET)
        printf("budget    %lld: %s\n", (long long)p.budget, s.peak <= p.budget ? "met" : "EXCEEDED");
    if (a->at) {
        int t = atoi(a->at);
        if (t < 1 || t > s.T) {
            status = usage_err("simulate", "--at STEP is out of range");
            goto out;
        }
        print_live(g, p.steps, &s, t - 1, a->top);
    }
    if (a->curve) {
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
    if (a->npos != 1)
        return usage_err("sweep", "expected GRAPH");
    const SolverClass *cls = solver_find(a->solver ? a->solver : "");
    if (!cls)
        return usage_err("sweep", "--solver NAME is required (see 'remat list-solvers')");
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    Solver *s = solver_new(cls, g, &a->opts, &e);
    if (!s) {
        graph_free(g);
        return fail_in(a->pos[0], &e);
    }
    int64_t bp, lo = graph_min_peak(g, NULL);
    double bc;
    sim_baseline(g, &bp, &bc);
    printf("budget,peak,cost,overhead_pct,steps,status\n");
    Plan p, prev;
    plan_init(&p);
    plan_init(&prev);
    int have_prev = 0;
    for (int i = 0; i < a->points; i++) {
        int64_t b = a->points == 1 ? bp : lo + (int64_t)((double)(bp - lo) * i / (a->points - 1));
        int rc = solver_plan(s, b, have_prev ? &prev : NULL, &p, NULL, &e);
        if (rc == ERR_OK || (rc == ERR_OVER_BUDGET && p.T > 0)) {
            printf("%lld,%lld,%.17g,%.2f,%d,%s\n", (long long)b, (long long)p.peak, p.cost,
                   100 * plan_overhead(&p), p.T, rc == ERR_OK ? "ok" : "over");
            plan_copy(&prev, &p);
            have_prev = 1;
        } else {
            printf("%lld,,,,,%s\n", (long long)b, rc == ERR_OVER_BUDGET ? "infeasible" : err_label(rc));
        }
    }
    plan_done(&p);
    plan_done(&prev);
    solver_free(s);
    graph_free(g);
    return EXIT_OK;
}

static int cmd_list(Args *a)
{
    (void)a;
    for (int i = 0; i < solver_count(); i++) {
        const SolverClass *c = solver_at(i);
        printf("%-16s %s\n", c->name, c->title);
        for (const SolverParam *p = c->params; p && p->name; p++)
            printf("%-16s   %s=%s  %s\n", "", p->name, p->def, p->help);
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
    if (a->npos != 1)
        return usage_err("transform", "expected GRAPH");
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
    if (a->npos != 1)
        return usage_err("convert", "expected GRAPH");
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
    if (a->npos != 1)
        return usage_err("export", "expected GRAPH");
    if (!a->out)
        return usage_err("export", "-o FILE is required");
    const char *fmt = a->format ? a->format : "dot";
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    Plan p;
    plan_init(&p);
    int status = EXIT_OK;
    if (a->plan && (plan_load(&p, g, a->plan, &e) || plan_evaluate(&p, g, &e))) {
        if (strncmp(e.msg, a->plan, strlen(a->plan)))
            err_prefix(&e, a->plan);
        status = fail(&e);
    } else if (export_graph(g, a->plan ? &p : NULL, NULL, fmt, a->out, &e)) {
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
}

/* The CUDA backend is a separate program beside this binary, built only
 * where nvcc exists, so that this one runs everywhere. */
static int run_cuda(const Args *a, const char *outpath)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 32);
    if (n <= 0) {
        fprintf(stderr, "remat: replay: cannot locate the remat-cuda program\n");
        return EXIT_FAIL;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    strcpy(slash ? slash + 1 : self, "remat-cuda");
    if (access(self, X_OK) != 0) {
        fprintf(stderr, "remat: replay: built without CUDA (no remat-cuda beside remat; install nvcc and rebuild)\n");
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
    if (a->npos != 2)
        return usage_err("replay", "expected GRAPH PLAN");
    const char *backend = a->backend ? a->backend : "cpu";
    if (strcmp(backend, "cpu") && strcmp(backend, "cuda"))
        return usage_err("replay", "--backend must be cpu or cuda");
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
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    Plan p;
    plan_init(&p);
    Replay r;
    replay_init(&r);
    if (plan_load(&p, g, a->pos[1], &e) || plan_evaluate(&p, g, &e)) {
        if (strncmp(e.msg, a->pos[1], strlen(a->pos[1])))
            err_prefix(&e, a->pos[1]);
        status = fail(&e);
        goto out;
    }
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
    if (a->npos != 1)
        return usage_err("fit", "expected GRAPH");
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
    char m1[32], m2[32], m3[32];
    units_format_bytes(mem, m1, sizeof m1);
    printf("memory    %s; batch multiplier scales every value but parameters (op \"param\")\n", m1);
    if (r.b_plain) {
        units_format_bytes(r.peak_plain, m2, sizeof m2);
        printf("noremat   largest multiplier %d (peak %s, overhead +0.0%%)\n", r.b_plain, m2);
    } else {
        printf("noremat   does not fit even at multiplier 1\n");
    }
    if (r.b_remat) {
        units_format_bytes(r.peak_remat, m3, sizeof m3);
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

/* Until the explorer exists: the sample's info and its memory curve. */
/* The explorer on a terminal; without one (output piped, no
 * REMAT_NO_DISPLAY) the same facts as `info --curve`. */
static int cmd_tui(Args *a)
{
    if (!isatty(STDOUT_FILENO) && !getenv("REMAT_NO_DISPLAY")) {
        a->curve = 1;
        return cmd_info(a);
    }
    if (a->npos != 1)
        return usage_err("tui", "expected GRAPH");
    const SolverClass *cls = NULL;
    if (a->solver && !(cls = solver_find(a->solver)))
        return usage_err("tui", "unknown solver (see 'remat list-solvers')");
    Err e;
    err_clear(&e);
    Graph *g = load_graph(a, a->pos[0], &e);
    if (!g)
        return fail(&e);
    int64_t budget;
    int rc = parse_budget("tui", a->budget, g, &budget);
    if (rc) {
        graph_free(g);
        return rc;
    }
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
    const char *synopsis;
} commands[] = {
    {"info", cmd_info, "info GRAPH [--curve] [--top N]      nodes, sizes, baseline peak and what is alive there"},
    {"solve", cmd_solve, "solve GRAPH --solver NAME [--budget BYTES|PCT%] [-O key=val] [-o PLAN] [--structure]"},
    {"simulate", cmd_simulate, "simulate GRAPH PLAN [--curve] [--at STEP]   re-check a plan: validity, peak, cost"},
    {"sim", cmd_simulate, NULL},
    {"sweep", cmd_sweep, "sweep GRAPH --solver NAME [--points N]   peak vs cost over budgets, CSV"},
    {"export", cmd_export, "export GRAPH [--plan PLAN] --format dot|svg|png -o FILE"},
    {"transform", cmd_transform, "transform GRAPH [-o OUT] [--format json|dot]   forward-only -> training graph"},
    {"convert", cmd_convert, "convert GRAPH [-o OUT] [--format json|dot]   rewrite a graph in another format"},
    {"replay", cmd_replay, "replay GRAPH PLAN [--backend cpu|cuda] [--scale F | --fit PCT] [-o MEASURED.json]"},
    {"fit", cmd_fit, "fit GRAPH --memory BYTES [--max-overhead PCT] [--solver NAME] [-o PLAN]"},
    {"list-solvers", cmd_list, "list-solvers                         every solver and its options"},
    {"tui", cmd_tui, "tui GRAPH [-s NAME] [-b BYTES] [--plan PLAN] [--replay MEASURED.json] [--backend cpu|cuda] [--ascii]   open the explorer"},
    {"help", cmd_help, "help                                 this text"},
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
            if (!rc)
                rc = commands[i].run(&a);
            solver_opts_done(&a.opts);
            return rc;
        }
    fprintf(stderr, "remat: unknown command '%s' (see 'remat help')\n", cmd);
    return EXIT_USAGE;
}
