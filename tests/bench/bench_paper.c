/* bench_paper.c — FastSA's large-model experiment (Imanishi et al. 2023,
 * §3.1-3.2, Fig. 4, Appendix D and Tables 3-5), reproduced: vision models at
 * batch 512, text models at 128 x 512 tokens and language models at 8 x 2048
 * (the LLaMA-7B shape included), each as the joint training graph the
 * exporter traces (tests/bench/paper_models.sh, cached under the build
 * directory), with unit node costs (the paper's setting) and with FLOP
 * costs, at 50 % and 25 % of the simulated baseline peak. Per cell: the
 * budget met or not, the peak and cost of auto's plan (default options),
 * the solve's seconds, when the first plan it offered within 2 points of
 * its final cost came, the bound over every order (bound_any_cost: no
 * schedule within the budget costs less), the gap to the best cost bound,
 * and for a missed budget why: the lower bound on the peak rules it out,
 * or the solver fell short.
 * Geometric means beside the paper's. Figures, not pass/fail.
 *
 *   bench_paper [--models a,b] [--costs unit,flop] [--budgets 50,25]
 *               [--solver NAME] [-O key=val]... [--dir DIR] [--bounds-only | --any-only]
 *
 * --bounds-only solves nothing: per cell, the cost bound over the graph's
 * order (src/plan/bound.h, GAP_SECONDS), what no plan in that order beats,
 * and the bound over every order, with their geometric means over the
 * cells that have one. --any-only: the bound over every order alone (its
 * ANY_SECONDS a cell: about 8 minutes for one cost model's 48 cells).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/clock.h"
#include "src/graph/graph_io.h"
#include "src/plan/bound.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "tests/bench/load.h"

#define MAX_MODELS 64

typedef struct {
    char file[64], kind[16], paper[96];
} Model;

/* What the solve's listener saw: each plan offered, when, at what cost. */
typedef struct {
    const Graph *g;
    int64_t budget;
    double t0;
    int n;
    double at[256], cost[256];
} Offers;

static void on_offer(void *ctx, const int *steps, int T, const char *origin)
{
    (void)origin;
    Offers *o = ctx;
    Sim sim;
    Err e;
    if (o->n >= 256 || sim_run(o->g, steps, T, &sim, &e) != ERR_OK)
        return;
    if (sim.peak <= o->budget) {
        o->at[o->n] = clock_now() - o->t0;
        o->cost[o->n++] = sim.cost;
    }
    sim_done(&sim);
}

typedef struct {
    int ran, met, ruled_out;
    double mem, ci, secs, first2, gap;    /* mem: peak / baseline; ci: cost / baseline - 1 */
    double any;                           /* the bound over every order / baseline - 1; -1: none */
} Cell;

static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Seconds the cost bound gets after a solve (not counted in its time):
 * the cascade rows take 1-30 s on these graphs (unit costs, 25 %). */
#define GAP_SECONDS 30
/* and the bound over every order (0.5-2 s on these graphs) */
#define ANY_SECONDS 10

static void solve_cell(const Graph *g, int64_t bp, double bc, int pct, const char *solver,
                       const SolverOpts *opts, Cell *c)
{
    memset(c, 0, sizeof *c);
    c->any = -1;
    int64_t budget = bp * pct / 100, lo = bound_min_peak(g, NULL);
    c->ruled_out = budget < lo;
    Err e;
    err_clear(&e);
    Solver *s = solver_new(solver_find(solver), g, opts, &e);
    if (!s) {
        printf("(%s: %s)\n", solver, e.msg);
        return;
    }
    /* a budget below what any schedule needs is refused up front: the
     * cell then shows the plan for the tightest budget that is not */
    int64_t asked = c->ruled_out ? lo : budget;
    Offers of = {.g = g, .budget = budget, .t0 = clock_now()};
    Progress p;
    progress_init(&p);
    p.offer = on_offer;
    p.offer_ctx = &of;
    Plan pl;
    plan_init(&pl);
    int rc = solver_plan(s, asked, NULL, &pl, &p, &e);
    c->secs = clock_now() - of.t0;
    if (pl.T > 0) {
        c->ran = 1;
        c->met = rc == ERR_OK && pl.peak <= budget;
        c->mem = (double)pl.peak / (double)bp;
        c->ci = pl.cost / bc - 1;
        /* the answer's bound comes in the solve's last moments, mostly
         * without the cascade rows (cascade.c); given their time they
         * raise it, and either holds */
        double lb = pl.bound, more;
        if (c->met && bound_cover(g, pl.steps, pl.T, budget, GAP_SECONDS, NULL, &more, &e) == ERR_OK && more > lb)
            lb = more;
        /* the bound over every order holds for this plan too (bound_cover
         * just left it in the cache: asked for again only where it had
         * less than ANY_SECONDS and did not try every X) */
        if (c->met && bound_any(g, budget, ANY_SECONDS, NULL, &more, &e) == ERR_OK) {
            c->any = more / bc - 1;
            lb = more > lb ? more : lb;
        }
        c->gap = c->met && lb > 0 ? pl.cost / lb - 1 : -1;
        c->first2 = -1;
        for (int i = 0; i < of.n && c->met; i++)
            if ((of.cost[i] - pl.cost) / bc <= 0.02) {
                c->first2 = of.at[i];
                break;
            }
    } else {
        printf("(%s at %d %%: %s)\n", solver, pct, e.msg);
    }
    plan_done(&pl);
    solver_free(s);
}

static void cell_text(const Cell *c, char *buf, size_t n)
{
    char gap[32], first[32], any[32];
    if (!c->ran) {
        snprintf(buf, n, "- | - | - | - | - | -");
        return;
    }
    snprintf(gap, sizeof gap, c->gap >= 0 ? "%.1f %%" : "-", 100 * c->gap);
    snprintf(first, sizeof first, c->first2 >= 0 ? "%.1f" : "-", c->first2);
    snprintf(any, sizeof any, c->any >= 0 ? "%+.1f" : "-", 100 * c->any);
    snprintf(buf, n, c->met ? "%.1f | %+.1f | %.1f | %s | %s | %s" : "**(%.1f)** | %+.1f | %.1f | %s | %s | %s",
             100 * c->mem, 100 * c->ci, c->secs, first, any, gap);
}

typedef struct {
    int n, met, nany;
    double lmem, lcost, lred, lsecs, maxsecs, lany;
} Mean;

static void mean_add(Mean *m, const Cell *c)
{
    if (!c->ran)
        return;
    m->n++;
    m->met += c->met;
    m->lmem += log(c->mem);
    m->lred += log(1 - c->mem);
    m->lcost += log(1 + c->ci);
    m->lsecs += log(c->secs);
    if (c->any >= 0) {
        m->nany++;
        m->lany += log(1 + c->any);
    }
    if (c->secs > m->maxsecs)
        m->maxsecs = c->secs;
}

static void mean_print(const char *what, const Mean *m, const char *paper)
{
    if (!m->n)
        return;
    char any[48] = "-";
    /* the bounds' mean says what no plan can beat only where every cell has one */
    if (m->nany == m->n)
        snprintf(any, sizeof any, "%+.2f %%", 100 * (exp(m->lany / m->nany) - 1));
    printf("| %s | %d/%d | %.1f %% | %.1f %% | %+.1f %% | %s | %.1f | %.1f | %s |\n", what, m->met, m->n,
           100 * (1 - exp(m->lmem / m->n)), 100 * exp(m->lred / m->n), 100 * (exp(m->lcost / m->n) - 1), any,
           exp(m->lsecs / m->n), m->maxsecs, paper);
}

/* Model m's graph from the cache, with every running node's cost 1 when
 * unit (a copy; *g0 the loaded graph, free both when they differ), and
 * its baseline peak and cost; NULL when it does not load. */
static Graph *load_model(const Model *m, const char *cache, int unit, Graph **g0, int64_t *bp, double *bc)
{
    char path[1200];
    snprintf(path, sizeof path, "%.1000s/%.63s.json", cache, m->file);
    *g0 = bench_load(path, m->file, bp, bc);
    if (!*g0)
        return NULL;
    Graph *g = unit ? bench_unit_costs(*g0) : *g0;
    sim_baseline(g, bp, bc);
    return g;
}

/* --bounds-only: per model and budget, the graph order's cost bound (the
 * cover with its cascade rows) and the bound over every order
 * (bound_any_cost), as cost increases with their seconds, and the
 * geometric means over the cells that have one. */
static void bounds_table(const Model *ms, int nm, const char *cache, int k, const char *kind, const int *pcts,
                         int np, int any_only)
{
    printf("\n### %s costs: the cost bounds over the graph's order (%d s) and over every order\n\n| model | nodes",
           kind, GAP_SECONDS);
    for (int j = 0; j < np; j++)
        printf(" | %d %%: graph's order | s | every order | s", pcts[j]);
    printf(" |\n|---|---");
    for (int j = 0; j < np; j++)
        printf("|---|---|---|---");
    printf("|\n");
    /* [which][budget]: which 0 the graph's order, 1 every order */
    double logs[2][2] = {{0}}, logall[2] = {0};
    int cnt[2][2] = {{0}}, cntall[2] = {0};
    for (int m = 0; m < nm; m++) {
        int64_t bp;
        double bc;
        Graph *g0, *g = load_model(&ms[m], cache, k == 0, &g0, &bp, &bc);
        if (!g)
            continue;
        printf("| %s | %d", ms[m].file, g->n);
        for (int j = 0; j < np; j++) {
            for (int w = 0; w < 2; w++) {
                if (w == 0 && any_only) {
                    printf(" | - | -");
                    continue;
                }
                double lb = -1, t0 = clock_now();
                Err e;
                err_clear(&e);
                int64_t b = bp * pcts[j] / 100;
                int rc = w == 0 ? bound_cover(g, NULL, 0, b, GAP_SECONDS, NULL, &lb, &e)
                                : bound_any_cost(g, b, ANY_SECONDS, NULL, &lb, NULL, NULL, &e);
                if (rc == ERR_OK && lb > 0) {
                    printf(" | +%.2f %% | %.1f", 100 * (lb / bc - 1), clock_now() - t0);
                    logs[w][j] += log(lb / bc);
                    logall[w] += log(lb / bc);
                    cnt[w][j]++;
                    cntall[w]++;
                } else {
                    printf(" | (%s) | %.1f", e.msg, clock_now() - t0);
                }
                fflush(stdout);
            }
        }
        printf(" |\n");
        if (g != g0)
            graph_free(g);
        graph_free(g0);
    }
    for (int w = any_only; w < 2; w++) {
        printf("\nGeometric mean of the bounds over %s, %s costs:", w ? "every order" : "the graph's order", kind);
        for (int j = 0; j < np; j++)
            if (cnt[w][j])
                printf(" %d %%: +%.2f %% (%d cells);", pcts[j], 100 * (exp(logs[w][j] / cnt[w][j]) - 1), cnt[w][j]);
        if (cntall[w])
            printf(" both: +%.2f %% (%d cells)", 100 * (exp(logall[w] / cntall[w]) - 1), cntall[w]);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    const char *models = NULL, *costs = "unit,flop", *budgets = "50,25", *solver = "auto", *dir = NULL;
    int bounds_only = 0;
    SolverOpts opts;
    solver_opts_init(&opts);
    for (int i = 1; i < argc; i++) {
        Err e;
        if (i + 1 < argc && strcmp(argv[i], "--models") == 0)
            models = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--costs") == 0)
            costs = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--budgets") == 0)
            budgets = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--solver") == 0)
            solver = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--dir") == 0)
            dir = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "-O") == 0 && solver_opts_add(&opts, argv[++i], &e) == ERR_OK)
            continue;
        else if (strcmp(argv[i], "--bounds-only") == 0)
            bounds_only = bounds_only ? bounds_only : 1;
        else if (strcmp(argv[i], "--any-only") == 0)
            bounds_only = 2;
        else {
            fprintf(stderr, "usage: bench_paper [--models a,b] [--costs unit,flop] [--budgets 50,25] "
                            "[--solver NAME] [-O key=val]... [--dir DIR] [--bounds-only | --any-only]\n");
            return 2;
        }
    }
    if (!solver_find(solver)) {
        fprintf(stderr, "bench_paper: no solver '%s'\n", solver);
        return 2;
    }
    /* the cache: BUILD/paper-models beside BUILD/bench/bench_paper */
    char cache[1024], cmd[2200];
    if (dir) {
        snprintf(cache, sizeof cache, "%s", dir);
    } else {
        bench_cache_dir(argv[0], "paper-models", cache, sizeof cache);
    }
    snprintf(cmd, sizeof cmd, "tests/bench/paper_models.sh '%s' >&2", cache);
    if (system(cmd) != 0) {
        printf("(tests/bench/paper_models.sh could not export the models: the benchmark needs "
               "Debian's python3 with torch and torchvision)\n");
        return 0;
    }
    snprintf(cmd, sizeof cmd, "%s/models.txt", cache);
    FILE *f = fopen(cmd, "r");
    if (!f) {
        printf("(no %s)\n", cmd);
        return 0;
    }
    Model ms[MAX_MODELS];
    int nm = 0;
    char line[1024];
    while (nm < MAX_MODELS && fgets(line, sizeof line, f)) {
        char *a = strtok(line, "|"), *b = strtok(NULL, "|"), *c = strtok(NULL, "|");
        if (!a || !b || !c || !listed(models, a))
            continue;
        snprintf(ms[nm].file, sizeof ms[nm].file, "%s", a);
        snprintf(ms[nm].kind, sizeof ms[nm].kind, "%s", b);
        snprintf(ms[nm].paper, sizeof ms[nm].paper, "%s", c);
        nm++;
    }
    fclose(f);
    int pcts[2], np = 0;
    if (listed(budgets, "50"))
        pcts[np++] = 50;
    if (listed(budgets, "25"))
        pcts[np++] = 25;
    const char *kinds[2] = {"unit", "flop"};
    if (bounds_only) {
        for (int k = 0; k < 2; k++)
            if (listed(costs, kinds[k]))
                bounds_table(ms, nm, cache, k, kinds[k], pcts, np, bounds_only == 2);
        solver_opts_done(&opts);
        return 0;
    }
    printf("FastSA's large-model experiment (Imanishi et al. 2023, Fig. 4, Appendix D): %s with %s "
           "options, budgets %s %% of the baseline peak. Cells: peak %% of the baseline (bold in "
           "parentheses: budget missed) | cost increase %% | solve s | s to the first offered plan "
           "within 2 points of the final cost | cost increase below which no schedule in any order "
           "fits the budget (bound_any_cost) | gap to the best cost bound. LB: no schedule peaks below it "
           "(%% of the baseline; src/plan/bound.h bound_min_peak). The means' 'no schedule below': the "
           "geometric mean of the cells' bounds over every order, where every cell has one.\n",
           solver, opts.n ? "these" : "default", budgets);
    for (int i = 0; i < opts.n; i++)
        printf("option %s=%s\n", opts.key[i], opts.val[i]);
    for (int k = 0; k < 2; k++) {
        if (!listed(costs, kinds[k]))
            continue;
        printf("\n### %s costs\n\n| model | paper's | nodes | LB %%", kinds[k]);
        for (int j = 0; j < np; j++)
            printf(" | %d %%: peak | CI | s | 2 pp at s | any | gap", pcts[j]);
        printf(" | missed because |\n|---|---|---|---");
        for (int j = 0; j < np; j++)
            printf("|---|---|---|---|---|---");
        printf("|---|\n");
        fflush(stdout);
        Mean mb[2] = {{0}}, all = {0}, mm[2] = {{0}}, allm = {0};
        for (int m = 0; m < nm; m++) {
            int64_t bp;
            double bc;
            Graph *g0, *g = load_model(&ms[m], cache, k == 0, &g0, &bp, &bc);
            if (!g)
                continue;
            int64_t lo = bound_min_peak(g, NULL);
            printf("| %s | %s | %d | %.1f", ms[m].file, ms[m].paper, g->n, 100.0 * (double)lo / (double)bp);
            char why[512] = "";
            for (int j = 0; j < np; j++) {
                Cell c;
                solve_cell(g, bp, bc, pcts[j], solver, &opts, &c);
                char buf[160];
                cell_text(&c, buf, sizeof buf);
                printf(" | %s", buf);
                fflush(stdout);
                mean_add(&mb[j], &c);
                mean_add(&all, &c);
                if (c.met) {
                    mean_add(&mm[j], &c);
                    mean_add(&allm, &c);
                }
                if (c.ran && !c.met) {
                    size_t l = strlen(why);
                    snprintf(why + l, sizeof why - l, "%s%d %%: %s", l ? "; " : "", pcts[j],
                             c.ruled_out ? "ruled out (LB above the budget)"
                                         : "solver short (LB below the budget)");
                }
            }
            printf(" | %s |\n", why[0] ? why : "");
            fflush(stdout);
            if (g != g0)
                graph_free(g);
            graph_free(g0);
        }
        printf("\nGeometric means, %s costs (memory reduction: 1 - the geometric mean of peak / "
               "baseline, and the geometric mean of the reductions; a missed cell counts with the "
               "plan for the tightest budget solved, its lowest peak):\n\n"
               "| budget | met | memory reduction | mean of reductions | cost increase | no schedule below | s (geo) | s (max) | the paper (FastSA, 23 models, unit costs) |\n"
               "|---|---|---|---|---|---|---|---|---|\n",
               kinds[k]);
        for (int j = 0; j < np; j++) {
            mean_print(pcts[j] == 50 ? "50 %, every cell" : "25 %, every cell", &mb[j],
                       pcts[j] == 50 ? "every budget met, cost +7 %" : "some missed; memory -73 %, cost +18 %");
            mean_print(pcts[j] == 50 ? "50 %, cells met" : "25 %, cells met", &mm[j], "");
        }
        if (np == 2) {
            mean_print("both, every cell", &all, "solves mostly ~3 s, all 3-30 s");
            mean_print("both, cells met", &allm, "");
        }
        fflush(stdout);
    }
    solver_opts_done(&opts);
    return 0;
}
