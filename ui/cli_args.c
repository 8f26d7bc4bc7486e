/* cli_args.c — argument parsing, errors, loading and printing helpers
 * shared by the `remat` subcommands (cli_args.h). */
#include "ui/cli_args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/fileio.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"
#include "src/graph/graph_io.h"
#include "src/graph/transform.h"



int cli_usage_err(const char *cmd, const char *msg)
{
    fprintf(stderr, "remat %s: %s (see 'remat help')\n", cmd, msg);
    return EXIT_USAGE;
}

/* Every option: its spellings, whether it takes a value, and the commands
 * that take it (one meaning per option; a command refuses the others). */
enum { O_SOLVER, O_BUDGET, O_OUT, O_PLAN, O_REPLAY, O_FORMAT, O_AT, O_BACKEND, O_SCALE, O_FIT, O_MEMORY,
       O_MAX_OVERHEAD, O_CURVE, O_CSV, O_ASCII, O_STRUCTURE, O_BOUND, O_TRAIN, O_POINTS, O_TOP, O_WIDTH,
       O_HEIGHT, O_OPT, O_MARKDOWN, O_RECOMPUTED };
static const struct OptSpec {
    const char *lng, *shrt;
    int takes;
    const char *cmds;       /* " cmd cmd " */
} opt_specs[] = {
    [O_SOLVER] = {"--solver", "-s", 1, " solve sweep fit tui "},
    [O_BUDGET] = {"--budget", "-b", 1, " solve tui "},
    [O_OUT] = {"--output", "-o", 1, " solve export transform convert replay fit calibrate "},
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
    [O_RECOMPUTED] = {"--recomputed", NULL, 0, " solve simulate "},
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
        return cli_usage_err(cmd, "expected a positive count");
    *out = (int)x;
    return 0;
}

/* Parse the options of cmd; returns 0 or an exit status. */
int cli_parse_args(const char *cmd, int argc, char **argv, Args *a)
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
                return cli_usage_err(cmd, "too many arguments");
            a->pos[a->npos++] = s;
            continue;
        }
        char m[400];
        int o = opt_lookup(s);
        if (o < 0) {
            snprintf(m, sizeof m, "unknown option '%s'", s);
            return cli_usage_err(cmd, m);
        }
        if (!opt_takes_cmd(o, name)) {
            snprintf(m, sizeof m, "option '%s' does not apply to %s", s, name);
            return cli_usage_err(cmd, m);
        }
        const char *val = NULL;
        if (opt_specs[o].takes) {
            if (i + 1 >= argc)
                return cli_usage_err(cmd, o == O_OPT ? "--opt needs key=value" : "option needs a value");
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
        case O_RECOMPUTED: a->recomputed = 1; break;
        case O_TRAIN: a->train = 1; break;
        case O_POINTS: rc = count_arg(cmd, val, &a->points); break;
        case O_TOP: rc = count_arg(cmd, val, &a->top); break;
        case O_WIDTH: rc = count_arg(cmd, val, &a->width); break;
        case O_HEIGHT: rc = count_arg(cmd, val, &a->height); break;
        case O_OPT:
            if (solver_opts_add(&a->opts, val, &e))
                rc = cli_usage_err(cmd, e.msg);
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* Errors that arise after loading (solver, budget) do not name the file by
 * themselves; every error line must, so prefix the graph's path. */
int cli_fail_in(const char *path, Err *e)
{
    if (strncmp(e->msg, path, strlen(path)))
        err_prefix(e, path);
    fprintf(stderr, "remat: %s\n", e->msg);
    return e->code == ERR_USAGE ? EXIT_USAGE : e->code == ERR_OVER_BUDGET ? EXIT_BUDGET : EXIT_FAIL;
}

int cli_fail(const Err *e)
{
    fprintf(stderr, "remat: %s\n", e->msg);
    return e->code == ERR_USAGE ? EXIT_USAGE : e->code == ERR_OVER_BUDGET ? EXIT_BUDGET : EXIT_FAIL;
}

/* Load a graph; with --train a forward-only graph becomes its training
 * graph. Never implicit: a plan must name the nodes of the file it was
 * made for, or outside checkers could not re-read it. */
Graph *cli_load_graph(const Args *a, const char *path, Err *e)
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
const char *cli_safe(const char *s)
{
    static char buf[4][1024];
    static int slot;
    slot = (slot + 1) % 4;
    return text_safe(s, buf[slot], sizeof buf[slot]);
}

void cli_fmt_b(int64_t b, char *buf, size_t n)
{
    char h[32];
    units_format_bytes(b, h, sizeof h);
    snprintf(buf, n, "%lld (%s)", (long long)b, h);
}

/* "35.0 MiB (36700160)": a size for people, with the exact count. */
void cli_fmt_h(int64_t b, char *buf, size_t n)
{
    char h[32];
    units_format_bytes(b, h, sizeof h);
    snprintf(buf, n, "%s (%lld)", h, (long long)b);
}

void cli_print_live(const Graph *g, const int *sched, const Sim *s, int t, int top)
{
    LiveValue *lv;
    int n = sim_live_at(g, sched, s, t, &lv);
    printf("alive at step %d (%s), largest first:\n", t + 1, cli_safe(g->nodes[sched[t]].id));
    printf("  %-24s %-10s %14s %10s %10s\n", "value", "why", "size", "produced", "next read");
    for (int i = 0; i < n && i < top; i++) {
        LiveCells c;
        live_cells(&lv[i], s->T, &c);
        printf("  %-24.24s %-10s %14s %10s %10s\n", cli_safe(g->nodes[lv[i].node].id),
               live_reason_name(lv[i].reason), c.size, c.produced, c.next_read);
    }
    if (n > top)
        printf("  ... and %d more\n", n - top);
    free(lv);
}

int cli_parse_budget(const char *cmd, const char *text, const Graph *g, int64_t *out)
{
    if (!text) {
        *out = PLAN_NO_BUDGET;
        return 0;
    }
    if (strcmp(text, "min") == 0) {
        *out = PLAN_TIGHTEST;
        return 0;
    }
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    Err e;
    if (units_parse_bytes(text, bp, out, &e))
        return cli_usage_err(cmd, e.msg);
    return 0;
}

/* A plan file read against g and simulated; a message that does not
 * name the plan file gets its name in front. */
int cli_load_plan(Plan *p, const Graph *g, const char *path, Err *e)
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
Graph *cli_load_graph_plan(const Args *a, const char *path, Plan *p, int *status)
{
    Err e;
    err_clear(&e);
    plan_init(p);
    *status = EXIT_OK;
    Graph *g = cli_load_graph(a, a->pos[0], &e);
    if (!g) {
        *status = cli_fail(&e);
        return NULL;
    }
    if (path && cli_load_plan(p, g, path, &e)) {
        *status = cli_fail(&e);
        plan_done(p);
        graph_free(g);
        return NULL;
    }
    return g;
}

/* The graph of a command that takes a budget, and the budget (NULL with
 * the exit status in *status when either is refused). */
Graph *cli_load_with_budget(Args *a, const char *cmd, int64_t *budget, int *status)
{
    Err e;
    err_clear(&e);
    Graph *g = cli_load_graph(a, a->pos[0], &e);
    if (!g) {
        *status = cli_fail(&e);
        return NULL;
    }
    if ((*status = cli_parse_budget(cmd, a->budget, g, budget))) {
        graph_free(g);
        return NULL;
    }
    return g;
}

void cli_fmt_cost(double c, char *buf, size_t n)
{
    if (c == floor(c) && fabs(c) < 1e15)
        snprintf(buf, n, "%.0f", c);
    else
        snprintf(buf, n, "%.7g", c);
}

static const Graph *rec_g;
static const int *rec_runs;

static int by_extra(const void *x, const void *y)
{
    int u = *(const int *)x, v = *(const int *)y;
    double eu = (rec_runs[u] - 1) * rec_g->nodes[u].cost, ev = (rec_runs[v] - 1) * rec_g->nodes[v].cost;
    return eu < ev ? 1 : eu > ev ? -1 : u - v;
}

void cli_print_recomputed(const Graph *g, const Plan *p)
{
    int *runs = xcalloc((size_t)g->n + 1, sizeof *runs), *ids = xmallocarray((size_t)g->n + 1, sizeof *ids);
    for (int t = 0; t < p->T; t++)
        runs[p->steps[t]]++;
    int m = 0;
    for (int v = 0; v < g->n; v++)
        if (runs[v] > 1)
            ids[m++] = v;
    rec_g = g;      /* qsort has no context argument; the command line is one thread */
    rec_runs = runs;
    qsort(ids, (size_t)m, sizeof *ids, by_extra);
    printf("recomputed %d node%s, dearest first:\n", m, m == 1 ? "" : "s");
    printf("  %-32s %5s %16s %9s\n", "node", "runs", "extra cost", "of cost");
    for (int i = 0; i < m; i++) {
        int v = ids[i];
        double extra = (runs[v] - 1) * g->nodes[v].cost;
        char c[48];
        cli_fmt_cost(extra, c, sizeof c);
        printf("  %-32.32s %5d %16s %8.2f%%\n", cli_safe(g->nodes[v].id), runs[v], c,
               p->baseline_cost > 0 ? 100 * extra / p->baseline_cost : 0.0);
    }
    free(runs);
    free(ids);
}
