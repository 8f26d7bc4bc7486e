/* cli_args.h — what the `remat` subcommands share: their parsed arguments,
 * one-line errors with exit statuses, loading a graph (and a plan or a
 * budget) for a command, and printing sizes and names for people. The
 * commands live by family in cli_graph.c (info, transform, convert,
 * export), cli_solve.c (solve, sweep, fit, list-solvers) and cli_plan.c
 * (simulate, replay); cli.c holds the table and the explorer's command. */
#ifndef REMAT_CLI_ARGS_H
#define REMAT_CLI_ARGS_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "ui/cli.h"

typedef struct Args {
    const char *pos[4];
    int npos;
    const char *solver, *budget, *out, *plan, *format, *at, *backend, *scale, *fit, *memory,
        *max_overhead, *replay;
    int points, top, curve, csv, width, height, ascii, train, structure, bound, markdown, recomputed;
    SolverOpts opts;
} Args;

/* Parse the options of cmd; returns 0 or an exit status (the message
 * printed). */
int cli_parse_args(const char *cmd, int argc, char **argv, Args *a);
/* "remat CMD: msg (see 'remat help')" on stderr; EXIT_USAGE. */
int cli_usage_err(const char *cmd, const char *msg);
/* The error on stderr, prefixed with path when it does not name it; the
 * exit status for its code. */
int cli_fail_in(const char *path, Err *e);
int cli_fail(const Err *e);
/* The graph at path (with --train: its training graph). */
Graph *cli_load_graph(const Args *a, const char *path, Err *e);
/* A plan file read against g and simulated. */
int cli_load_plan(Plan *p, const Graph *g, const char *path, Err *e);
/* The first positional graph and, when path is non-NULL, the plan file
 * read against it into *p (initialised either way). NULL with the exit
 * status in *status when either is refused. */
Graph *cli_load_graph_plan(const Args *a, const char *path, Plan *p, int *status);
/* --budget parsed against g (PLAN_NO_BUDGET when absent); 0 or an exit
 * status. */
int cli_parse_budget(const char *cmd, const char *text, const Graph *g, int64_t *out);
/* The graph of a command that takes a budget, and the budget. */
Graph *cli_load_with_budget(Args *a, const char *cmd, int64_t *budget, int *status);
/* Names from a file, control characters replaced (four rotating buffers). */
const char *cli_safe(const char *s);
/* "36700160 (35.0 MiB)" and "35.0 MiB (36700160)". */
void cli_fmt_b(int64_t b, char *buf, size_t n);
void cli_fmt_h(int64_t b, char *buf, size_t n);
/* A compute cost with the same digits everywhere: whole numbers below
 * 1e15 as they are, others with seven significant digits. */
void cli_fmt_cost(double c, char *buf, size_t n);
/* What is alive at step t of sched, largest first (top rows). */
void cli_print_live(const Graph *g, const int *sched, const Sim *s, int t, int top);
/* The nodes plan p runs more than once: id, runs, the extra cost. */
void cli_print_recomputed(const Graph *g, const Plan *p);

int cmd_info(Args *a);
int cmd_transform(Args *a);
int cmd_convert(Args *a);
int cmd_export(Args *a);
int cmd_solve(Args *a);
int cmd_sweep(Args *a);
int cmd_fit(Args *a);
int cmd_list(Args *a);
int cmd_simulate(Args *a);
int cmd_replay(Args *a);
int cmd_calibrate(Args *a);

#endif
