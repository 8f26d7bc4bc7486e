/* test_degenerate.c — every registered solver on degenerate graphs (only
 * inputs, one node, forward only, disconnected, zero sizes, a 10K-wide
 * fan-out/fan-in, sizes summing to just below 2^62) at no budget, the
 * baseline peak and half of it: each answers with a plan or a one-line
 * reason, never a crash or a hang. Each case runs in a child process (an
 * abort or a sanitizer report is caught and named, and a limit of HANG_S
 * catches a hang, never a slow machine); a returned plan carries the
 * solver's name and the budget, and is re-validated by the independent
 * checker of testutil.h (or by sim.c on the wide graphs, where that
 * checker is too slow).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/graph/transform.h"
#include "tests/unit/testutil.h"

#define WIDE 10000
#define HANG_S 900     /* seconds a case may run before it counts as hung */

typedef struct Case {
    const char *name;
    Graph *g;
    int small;      /* the O(T^2) independent checker is affordable */
} Case;

static Graph *json_graph(const char *text)
{
    return tu_graph_json(text);
}

static Graph *training(Graph *f)
{
    Err e;
    Graph *t = graph_make_training(f, &e);
    if (!t)
        fail_msg("graph_make_training: %s", e.msg);
    graph_free(f);
    return t;
}

/* x -> m0..m{w-1} -> sink: fan-out and fan-in of w. */
static Graph *wide(int w)
{
    Graph *g = graph_new();
    Err e;
    char id[32];
    graph_add_node(g, "src", NULL, PHASE_FWD, 4, 1, 0, NULL, &e);
    for (int i = 0; i < w; i++) {
        snprintf(id, sizeof id, "m%d", i);
        int v = graph_add_node(g, id, NULL, PHASE_FWD, 1 + i % 3, 1, 0, NULL, &e);
        graph_add_input_name(g, v, "src");
    }
    int s = graph_add_node(g, "sink", NULL, PHASE_FWD, 2, 1, 0, NULL, &e);
    for (int i = 0; i < w; i++) {
        snprintf(id, sizeof id, "m%d", i);
        graph_add_input_name(g, s, id);
    }
    if (graph_finalize(g, &e))
        fail_msg("wide: %s", e.msg);
    return g;
}

/* A training chain whose forward values add up to just below 2^62 bytes
 * (the most graph_finalize accepts): every solver's sums of sizes run near
 * the top of int64, where a doubled figure would wrap (the sanitizer
 * build catches any that does). */
static Graph *huge(void)
{
    const int N = 252;  /* each node: 2^53 - 1 bytes of output and of workspace */
    const int64_t big = GRAPH_SIZE_MAX - 1;
    Graph *g = graph_new();
    Err e;
    char id[32], prev[32] = "", gid[32];
    for (int i = 1; i <= N; i++) {
        snprintf(id, sizeof id, "f%d", i);
        int v = graph_add_node(g, id, NULL, PHASE_FWD, big, 1, big, NULL, &e);
        if (prev[0])
            graph_add_input_name(g, v, prev);
        snprintf(prev, sizeof prev, "%s", id);
    }
    int l = graph_add_node(g, "loss", NULL, PHASE_LOSS, 1, 1, 0, NULL, &e);
    graph_add_input_name(g, l, prev);
    snprintf(prev, sizeof prev, "loss");
    for (int i = N; i >= 1; i--) {
        snprintf(gid, sizeof gid, "b%d", i);
        snprintf(id, sizeof id, "f%d", i);
        int v = graph_add_node(g, gid, NULL, PHASE_BWD, 1, 1, 0, NULL, &e);
        graph_add_input_name(g, v, prev);
        graph_add_input_name(g, v, id);
        graph_set_grad_of_name(g, v, id);
        snprintf(prev, sizeof prev, "%s", gid);
    }
    if (graph_finalize(g, &e))
        fail_msg("huge: %s", e.msg);
    return g;
}

/* The checks of one plan at one budget, in the child. Returns 0 when they
 * hold, else prints why and returns 1. */
static int check_plan(const SolverClass *cls, const Case *c, Solver *s, int64_t budget)
{
    const Graph *g = c->g;
    Err e;
    err_clear(&e);
    Plan p;
    plan_init(&p);
    int rc = solver_plan(s, budget, NULL, &p, NULL, &e);
    int bad = 0;
    if (rc != ERR_OK && (!e.msg[0] || strchr(e.msg, '\n'))) {
        printf("%s on %s, budget %lld: status %d without a reason\n", cls->name, c->name,
               (long long)budget, rc);
        bad = 1;
    }
    if (rc == ERR_OK || (rc == ERR_OVER_BUDGET && p.T > 0)) {
        if (!p.solver || strcmp(p.solver, cls->name) || p.budget != budget) {
            printf("%s on %s: the plan says solver '%s', budget %lld (given %lld)\n", cls->name,
                   c->name, p.solver ? p.solver : "(none)", (long long)p.budget, (long long)budget);
            bad = 1;
        }
        int64_t peak = p.peak;
        if (c->small) {
            double cost;
            peak = tu_check_peak(g, p.steps, p.T, &cost);
            if (peak < 0 || peak != p.peak || cost != p.cost) {
                printf("%s on %s: the plan does not re-validate (peak %lld, stated %lld)\n",
                       cls->name, c->name, (long long)peak, (long long)p.peak);
                bad = 1;
            }
        }
        if (rc == ERR_OK && budget != PLAN_NO_BUDGET && peak > budget) {
            printf("%s on %s: ok at budget %lld with peak %lld\n", cls->name, c->name,
                   (long long)budget, (long long)peak);
            bad = 1;
        }
    }
    plan_done(&p);
    return bad;
}

/* One solver on one graph at every budget, in the child: prepared once. */
static int run_case(const SolverClass *cls, const Case *c, const int64_t *budgets, int nb)
{
    SolverOpts o;
    solver_opts_init(&o);
    Err e;
    err_clear(&e);
    for (const SolverParam *p = cls->params; p && p->name; p++)
        if (!strcmp(p->name, "time_limit"))
            solver_opts_add(&o, "time_limit=0.3", &e);
    Solver *s = solver_new(cls, c->g, &o, &e);
    solver_opts_done(&o);
    if (!s) {
        /* a refusal is an answer when it says why, on one line */
        if (e.code == ERR_OK || !e.msg[0] || strchr(e.msg, '\n')) {
            printf("%s on %s: refused without a reason (code %d)\n", cls->name, c->name, e.code);
            return 1;
        }
        return 0;
    }
    int bad = 0;
    for (int b = 0; b < nb; b++)
        bad |= check_plan(cls, c, s, budgets[b]);
    solver_free(s);
    return bad;
}

static void test_every_solver(void **st TU_UNUSED)
{
    Case cases[] = {
        {"only-inputs",
         json_graph("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"x\",\"phase\":\"input\",\"size\":4},"
                    "{\"id\":\"w\",\"phase\":\"input\",\"op\":\"param\"}]}"),
         1},
        {"one-node", tu_graph("A=3"), 1},
        {"one-node-with-input", tu_graph("!x=2; A=3:x"), 1},
        {"forward-only", tu_graph("!x; A:x; B:A; C:B; D:C"), 1},
        {"disconnected", training(tu_graph("A; B:A; C; D:C; E")), 1},
        {"zero-sizes", training(tu_graph("!x=0; A=0:x; B=0:A; C=0:B")), 1},
        {"wide", wide(WIDE), 0},
        {"wide-training", training(wide(WIDE)), 0},
        {"huge-sizes", huge(), 0},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]), failures = 0;
    for (int ci = 0; ci < ncases; ci++) {
        int64_t bp = tu_baseline_peak(cases[ci].g);
        int64_t budgets[] = {PLAN_NO_BUDGET, bp, bp / 2};
        for (int si = 0; si < solver_count(); si++) {
            const SolverClass *cls = solver_at(si);
            int crashed = 0, failed = 0;
            fflush(stdout);
            pid_t pid = fork();
            assert_true(pid >= 0);
            if (pid == 0) {
                /* a limit that only catches a hang, never a slow machine:
                 * the slowest pair, kusumoto-approx on wide-training, took
                 * 35 s under AddressSanitizer on this 2-core machine (and
                 * over 60 s, the old limit, when other jobs loaded it) */
                alarm(HANG_S);
                int r = run_case(cls, &cases[ci], budgets, 3);
                fflush(stdout);
                _exit(r);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 1)) {
                crashed = 1;
                printf("%s on %s: %s %d\n", cls->name, cases[ci].name,
                       WIFSIGNALED(status) ? "killed by signal" : "exit",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            } else if (WEXITSTATUS(status)) {
                /* 1: a check failed (said above) or a sanitizer stopped it */
                failed = 1;
                printf("%s on %s: failed\n", cls->name, cases[ci].name);
            }
            failures += crashed || failed;
        }
    }
    for (int ci = 0; ci < ncases; ci++)
        graph_free(cases[ci].g);
    assert_int_equal(failures, 0);
}

TU_MAIN(TU_TEST(test_every_solver))
