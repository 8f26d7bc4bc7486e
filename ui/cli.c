/* cli.c — the `remat` command line: the table of subcommands (their
 * positional arguments and synopses), `help`, and `tui`, which opens the
 * explorer. The commands live by family in cli_graph.c, cli_solve.c and
 * cli_plan.c; what they share in cli_args.c. Only the command line prints
 * or picks an exit status. */
#include "ui/cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/fileio.h"
#include "ui/cli_args.h"
#include "ui/tui.h"

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
        return cli_usage_err("tui", "unknown solver (see 'remat list-solvers')");
    int64_t budget;
    int rc;
    Graph *g = cli_load_with_budget(a, "tui", &budget, &rc);
    if (!g)
        return rc;
    int cuda = a->backend && !strcmp(a->backend, "cuda");
    if (a->backend && !cuda && strcmp(a->backend, "cpu")) {
        graph_free(g);
        return cli_usage_err("tui", "--backend must be cpu or cuda");
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
    {"solve", cmd_solve, "GRAPH", "solve GRAPH [--solver NAME] [--budget BYTES|PCT%|min] [-O key=val] [-o PLAN|-] [--structure] [--bound] [--recomputed]"},
    {"simulate", cmd_simulate, "GRAPH PLAN", "simulate GRAPH PLAN [--curve] [--csv] [--at STEP] [--recomputed]   re-check a plan: validity, peak, cost"},
    {"sim", cmd_simulate, "GRAPH PLAN", NULL},
    {"sweep", cmd_sweep, "GRAPH", "sweep GRAPH [--solver NAME] [--points N] [--csv]   peak vs cost over budgets (what solve gives at each)"},
    {"export", cmd_export, "GRAPH", "export GRAPH [--plan PLAN] -o FILE.dot|.svg|.png [--format dot|svg|png]"},
    {"transform", cmd_transform, "GRAPH", "transform GRAPH [-o OUT] [--format json|dot]   forward-only -> training graph"},
    {"convert", cmd_convert, "GRAPH", "convert GRAPH [-o OUT] [--format json|dot]   rewrite a graph in another format"},
    {"replay", cmd_replay, "GRAPH PLAN", "replay GRAPH PLAN [--backend cpu|cuda|torch] [--scale F | --fit PCT] [-o MEASURED.json]"},
    {"calibrate", cmd_calibrate, "GRAPH PLAN MEASURED", "calibrate GRAPH PLAN MEASURED.json [-o OUT]   the workspaces a replay on a GPU measured, into the graph"},
    {"fit", cmd_fit, "GRAPH", "fit GRAPH --memory BYTES [--max-overhead PCT] [--solver NAME] [-o PLAN]   the largest batch that fits"},
    {"list-solvers", cmd_list, "[NAME]", "list-solvers [NAME] [--markdown]     every solver (or one) and its options"},
    {"tui", cmd_tui, "GRAPH", "tui GRAPH [-s NAME] [-b BYTES|PCT%|min] [-O key=val] [--plan PLAN] [--replay MEASURED.json] [--backend cpu|cuda] [--ascii]   open the explorer"},
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

/* Ctrl-C or a kill during a write: the temporary file goes, the target
 * keeps its bytes, and the signal then ends the process as it would have.
 * (The explorer takes SIGINT and SIGTERM over for its own quit.) */
static void on_signal(int sig)
{
    file_tx_discard_open();
    signal(sig, SIG_DFL);
    raise(sig);
}

int cli_main(int argc, char **argv)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
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
            int rc = cli_parse_args(cmd, argc - 2, argv + 2, &a);
            /* the positional arguments, counted by the table ("[X]": optional) */
            const char *want = commands[i].args;
            int n = 0, opt = 0;
            for (const char *p = want; *p; p++)
                if ((p == want || p[-1] == ' ') && *p != ' ')
                    *p == '[' ? opt++ : n++;
            if (!rc && (a.npos < n || a.npos > n + opt)) {
                char m[64];
                snprintf(m, sizeof m, n || opt ? "expected %s" : "takes no arguments", want);
                rc = cli_usage_err(strcmp(cmd, "sim") ? cmd : "simulate", m);
            }
            if (!rc)
                rc = commands[i].run(&a);
            solver_opts_done(&a.opts);
            return rc;
        }
    fprintf(stderr, "remat: unknown command '%s' (see 'remat help')\n", cmd);
    return EXIT_USAGE;
}
