/* bench_fastsa.c — FastSA throughput and plans: mutations tried per second
 * on ~5K- and ~8K-node generated training graphs and on an 8.3K-node
 * LLaMA-shaped joint graph (the size of the FastSA paper's LLaMA-7B, 8,330
 * nodes), then plans for a ~8K-node graph at 25 % and 50 % of its
 * baseline peak with their solve times. Figures only, no pass/fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "solvers/fastsa/fastsa.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "tests/bench/gen.h"
#include "tests/bench/load.h"

static Solver *make(const Graph *g, const char *const *opts)
{
    SolverOpts o;
    solver_opts_init(&o);
    Err e;
    err_clear(&e);
    for (int i = 0; opts[i]; i++)
        solver_opts_add(&o, opts[i], &e);
    Solver *s = solver_new(solver_find("fastsa"), g, &o, &e);
    solver_opts_done(&o);
    if (!s) {
        fprintf(stderr, "fastsa: %s\n", e.msg);
        exit(1);
    }
    return s;
}

/* One solver_plan at budget into a fresh *p, timed: returns the seconds
 * it took, its status in *rc. */
static double timed_plan(Solver *s, int64_t budget, Plan *p, int *rc)
{
    plan_init(p);
    Err e;
    err_clear(&e);
    double t0 = clock_now();
    *rc = solver_plan(s, budget, NULL, p, NULL, &e);
    return clock_now() - t0;
}

/* Mutations per second of one search on g at pct % of its baseline peak
 * (0: the smallest peak, which no run reaches, so every run lasts its
 * iterations); label names the graph. */
static void throughput_on(const Graph *g, const char *label, const char *grouping, int pct)
{
    int64_t base;
    double bcost;
    sim_baseline(g, &base, &bcost);
    /* seeds=none: the seed solvers' plans (greedy, echo, kusumoto-approx)
     * would count in the time but not in the mutations; descent=off and
     * restarts=0: the same runs whatever the machine's speed */
    const char *opts[] = {"iters=4000000", "time_limit=60", "seed=1", "seeds=none", "descent=off",
                          "restarts=0", "stall=0", grouping, NULL};
    Solver *s = make(g, opts);
    int64_t budget = pct ? base * pct / 100 : graph_min_peak(g, NULL);
    Plan p;
    int rc;
    double dt = timed_plan(s, budget, &p, &rc);
    long long n = fastsa_last_tried(s);
    char at[32];
    snprintf(at, sizeof at, pct ? "%d %% budget" : "smallest-peak budget", pct);
    printf("throughput (%s%s, %s): %d nodes, %lld mutations in %.2f s = %.2f M mutations/s "
           "(status %s, peak %.1f%% of baseline)\n",
           label, grouping, at, g->n, n, dt, (double)n / dt / 1e6, rc ? "over budget" : "ok",
           100.0 * (double)p.peak / (double)base);
    plan_done(&p);
    solver_free(s);
}

/* The same on gen_training("random", half, 7). */
static void throughput(int half, const char *grouping, int pct)
{
    Graph *g = gen_training("random", half, 7);
    throughput_on(g, "", grouping, pct);
    graph_free(g);
}

/* The same on a real model's joint graph of the paper's LLaMA-7B size:
 * tools/models.py's llama_7b shape with 62 layers in place of 32 (8,344
 * nodes at batch 8 x 2048 tokens), exported once into BUILD/paper-models
 * by tests/bench/paper_models.sh, as bench_paper's models are
 * (Debian's python3 with torch; about 40 s), with unit costs (the
 * paper's setting) and with FLOP costs. */
static void throughput_llama(const char *argv0)
{
    char dir[1024], path[1200], cmd[2200];
    bench_cache_dir(argv0, "paper-models", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/llama_8k.json", dir);
    snprintf(cmd, sizeof cmd, "tests/bench/paper_models.sh '%s' llama_8k llama_7b --batch 8 --model-arg layers=62", dir);
    if (system(cmd) != 0) {
        printf("throughput (LLaMA-shaped graph): not measured, the export failed (see %s/llama_8k.log)\n", dir);
        return;
    }
    int64_t bp;
    double bc;
    Graph *g = bench_load(path, "llama_8k", &bp, &bc);
    if (!g)
        return;
    Graph *u = bench_unit_costs(g);
    throughput_on(u, "LLaMA-shaped, 62 layers, unit costs, ", "grouping=off", 0);
    throughput_on(u, "LLaMA-shaped, 62 layers, unit costs, ", "grouping=on", 50);
    throughput_on(u, "LLaMA-shaped, 62 layers, unit costs, ", "grouping=on", 25);
    throughput_on(g, "LLaMA-shaped, 62 layers, FLOP costs, ", "grouping=on", 25);
    graph_free(u);
    graph_free(g);
}

/* Plans of s for g at 50 % and 25 % of the baseline peak, a line each:
 * the label, whether the budget was met, peak and cost against the
 * baseline, (with mutations) the mutations tried, and the seconds. */
static void plan_budgets(Solver *s, const Graph *g, const char *label, int mutations)
{
    int64_t base;
    double bcost;
    sim_baseline(g, &base, &bcost);
    for (int pct = 50; pct >= 25; pct -= 25) {
        Plan p;
        int rc;
        double dt = timed_plan(s, base * pct / 100, &p, &rc);
        printf("%s, budget %d%%: %s, peak %.1f%% of baseline, cost +%.1f%%, ", label, pct,
               rc == ERR_OK ? "met" : "NOT met", 100.0 * (double)p.peak / (double)base,
               100.0 * (p.cost / bcost - 1));
        if (mutations)
            printf("%lld mutations, ", fastsa_last_tried(s));
        printf("%.2f s\n", dt);
        plan_done(&p);
    }
}

static void plans(void)
{
    Graph *g = gen_training("random", 4000, 7);
    const char *groupings[] = {"grouping=off", "grouping=on", "grouping=on"};
    const char *smooth[] = {"logaddexp=off", "logaddexp=off", "logaddexp=on"};
    char label[128];
    for (int gi = 0; gi < 3; gi++) {
        const char *opts[] = {"seed=1", groupings[gi], smooth[gi], NULL};
        Solver *s = make(g, opts);
        snprintf(label, sizeof label, "%d nodes, %s %s", g->n, groupings[gi], smooth[gi]);
        plan_budgets(s, g, label, 1);
        solver_free(s);
    }
    graph_free(g);
    /* the other generated families at the same size, default options */
    const char *kinds[] = {"chain", "resnet", "transformer"};
    for (int k = 0; k < 3; k++) {
        g = gen_training(kinds[k], 4000, 7);
        const char *opts[] = {"seed=1", NULL};
        Solver *s = make(g, opts);
        snprintf(label, sizeof label, "%d-node %s, defaults", g->n, kinds[k]);
        plan_budgets(s, g, label, 0);
        solver_free(s);
        graph_free(g);
    }
}

/* --throughput: only the throughput rows (a minute or so, for comparing
 * builds in one sitting); --8k: only the 8K-node ones. */
int main(int argc, char **argv)
{
    int only = argc > 1 && strcmp(argv[1], "--throughput") == 0;
    int only8k = argc > 1 && strcmp(argv[1], "--8k") == 0;
    if (!only8k) {
        throughput(2500, "grouping=off", 0);
        throughput(2500, "grouping=on", 0);
    }
    /* the 8K-node graph, at the experiment's budgets */
    throughput(4000, "grouping=off", 0);
    throughput(4000, "grouping=on", 50);
    throughput(4000, "grouping=on", 25);
    throughput_llama(argv[0]);
    if (only || only8k)
        return 0;
    plans();
    return 0;
}
