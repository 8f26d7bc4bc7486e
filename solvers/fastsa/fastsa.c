/* fastsa.c — the FastSA solver (Imanishi et al. 2023): what to anneal, from
 * where, for how long, and which result to keep.
 *
 * A solve anneals from several starts within time_limit and keeps the
 * best plan any of them reaches (within the budget and cheapest, else the
 * lowest peak):
 *  1. grouped (grouping=on): node groups (Algorithm 1) from the graph's
 *     order until the budget is met, then the single nodes of that plan;
 *  2. single nodes from the graph's order (so grouping can never make the
 *     answer worse than not grouping);
 *  3. a budget descent: from the graph's order at a looser budget, then
 *     from each rung's best at tighter ones, down to the budget;
 *  4. single nodes from the plans of other solvers (seeds=, where they
 *     apply) and, on a re-solve, from the previous plan;
 *  5. the time left: fresh descents (or runs from the graph's order) and
 *     reheated runs from the best plan so far, in turn, until two in a row
 *     bring no improvement.
 * Where the best is still over a budget that the peak bound allows after
 * 1, 2 and 4 (after 1 already when the repair leaves it within 1 % of the
 * budget), and the repair cannot bring it within, a run from the best
 * with its peak's value made again after the peak from a cone of what it
 * depends on (deep_start) takes half the descent's time, and such runs
 * replace the reheats while no plan fits.
 * Every run keeps lowering the cost once the budget is met, until its
 * iterations or time run out or its best stops improving (stall=).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/fastsa/anneal.h"
#include "solvers/fastsa/fastsa.h"
#include "solvers/fastsa/state.h"
#include "src/base/clock.h"
#include "src/plan/bound.h"
#include "src/plan/relay.h"
#include "src/plan/repair.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_INT("seed", "1", 0, 9e18, NULL, "seed of the solver's own random generator"),
    OPT_P_INT("iters", "20000000", 1, 1e15, NULL, "most mutations per annealing run (a run lasts 10000 per node, at least 200000, up to this)"),
    OPT_P_NUM("time_limit", "auto", 0.001, 1e7, "auto", "most seconds for the whole search; auto: 2 plus one per 50 nodes, at most 30"),
    OPT_P_NUM("resolve_time", "0.08", 0.001, 1e7, NULL, "seconds for a warm-started re-solve after a budget change (the slider)"),
    OPT_P_INT("stall", "auto", 0, 1e15, "auto", "past its middle, a run ends after this many mutations without a better plan (0: never; auto: a quarter of the run)"),
    OPT_P_INT("restarts", "auto", 0, 1000000, "auto", "runs after the first ones (fresh and reheated in turn); auto: until the time limit or two bring nothing"),
    OPT_P_INT("slack", "4", 2, 64, NULL, "slots per step of the initial order (the rest start as nop)"),
    OPT_P_CHOICE("grouping", "on", "on|off", "on: also anneal fused node groups (Algorithm 1) first, then their nodes"),
    OPT_P_CHOICE("descent", "on", "on|off", "on: also anneal down from a looser budget, rung by rung, and restart that way"),
    OPT_P_INT("group_max", "64", 1, 100000, NULL, "most nodes in one group"),
    OPT_P_CHOICE("objective", "elu", "elu|product", "product: max(B, M) * C (eq. 1); elu: the strict-budget form of footnote 2"),
    OPT_P_NUM("wall", "10", 1, 100, NULL, "elu: the peak's exponent above the budget (1: the paper's form)"),
    OPT_P_TEXT("seeds", "greedy,echo,kusumoto-approx", "solvers whose plans are starting points too (none: only the graph's order)"),
    OPT_P_INT("seed_max_nodes", "3000", 0, 100000000, NULL, "largest graph on which the seed solvers run"),
    OPT_P_CHOICE("logaddexp", "off", "on|off", "on: the objective sees a soft peak (logaddexp tree, appendix C.2)"),
    OPT_P_END,
};

/* Seed solvers a search runs at most. */
#define SEEDS_MOST 8

typedef struct {
    long long iters, stall;
    double time_limit, resolve_time, wall;
    int slack, grouping, descent, logaddexp, group_max, obj, seed_max_nodes, restarts;
    uint64_t seed;
    char seeds[256];
} Params;

typedef struct {
    Units U;                /* single-node units */
    Params prm;
    long long last_tried;   /* mutations tried by the last solve (benchmarks) */
    /* for describe: where the last search's best came from, how many runs
     * it made, and the node groups of its grouped run (units of more than
     * one node: grp_nodes[grp_off[i]..grp_off[i+1])) */
    int best_from, runs;
    int *grp_off, *grp_nodes, ngrp;
    /* seed solvers' plans made elsewhere (fastsa_seed_plan), by solver
     * and budget: the portfolio's members are the same solvers */
    int ngiven;
    struct {
        char name[32];
        int64_t budget;
        Plan plan;
    } given[SEEDS_MOST];
} FastSA;

/* The best plan of a search so far, as graph nodes. */
typedef struct {
    int *steps;
    int T;
    int fits;
    int64_t M;
    double C;
    int from;           /* the run that made it (RUN_* + index) */
    int repaired;       /* repair_best could not lower this plan's peak */
    int deepened;       /* deep_start has made (or failed to make) its start */
} Best;

/* Keep the run's best in *b when it beats it; 1 when it did. */
static int best_offer(Best *b, const State *S, const Anneal *A, int from)
{
    int better = !b->steps || A->best_fits > b->fits ||
                 (A->best_fits == b->fits &&
                  (A->best_fits ? A->best_C < b->C
                                : (A->best_M < b->M || (A->best_M == b->M && A->best_C < b->C))));
    if (!better)
        return 0;
    free(b->steps);
    b->steps = state_decode(S, A->best_seq, &b->T);
    b->fits = A->best_fits;
    b->M = A->best_M;
    b->C = A->best_C;
    b->from = from;
    b->repaired = 0;
    b->deepened = 0;
    return 1;
}

/* Load a graph-node order into a fresh single-node state; forced nodes get
 * a second run right after their first where they have only one. 0 when a
 * forced node finds no slot (cannot happen with slack >= 2). */
static int load_plain(State *S, const FastSA *fs, const unsigned char *rule, const int *order,
                      int L, int64_t budget)
{
    int *u = xmallocarray((size_t)L + 1, sizeof *u);
    for (int i = 0; i < L; i++)
        u[i] = fs->U.unit_of[order[i]];
    state_init(S, &fs->U, state_slots_for(L, fs->prm.slack));
    if (fs->prm.logaddexp)
        state_smooth(S, (double)budget / 256);
    state_load(S, u, L);
    free(u);
    if (!rule)
        return 1;
    const Graph *g = fs->U.g;
    for (int v = 0; v < g->n; v++) {
        if (rule[v] != NODE_FORCE || S->P[v].n >= 2)
            continue;
        int t = S->P[v].a[0] + 1, uv = fs->U.unit_of[v];
        while (t < S->T && (S->seq[t] >= 0 || !state_can_add(S, uv, t)))
            t++;
        if (t >= S->T)
            return 0;
        state_add(S, uv, t);
    }
    return 1;
}

/* 1 when a schedule keeps the pins (each pinned node runs at most once). */
static int keeps_pins(const Graph *g, const unsigned char *rule, const int *steps, int T)
{
    if (!rule)
        return 1;
    unsigned char *seen = xcalloc((size_t)g->n + 1, 1);
    int ok = 1;
    for (int t = 0; t < T && ok; t++) {
        int v = steps[t];
        ok = !(rule[v] == NODE_PIN && seen[v]);
        seen[v] = 1;
    }
    free(seen);
    return ok;
}

typedef struct {
    Solver *s;
    int64_t budget;
    double deadline;
    Rng rng;
    Progress *p;
    Best best;
    long long tried;
    int runs;
    double offered;     /* cost of the last plan offered to p's listener (-1: none) */
    Relay *in;          /* plans found beside the search (NULL: none) */
    int nin;            /* runs from them so far */
} Search;

/* Offer a plan within the budget to whoever shows plans while the search
 * runs (progress_offer), when it is cheaper than the last one offered. */
static void offer(Search *X, const int *steps, int T, double C)
{
    if (X->offered >= 0 && C >= X->offered)
        return;
    X->offered = C;
    progress_offer(X->p, steps, T, "fastsa");
}

/* Has the search found enough: a plan within the budget (its own best,
 * or one found beside it) at the cost the relay's helper says the solve
 * may end at (relay_enough: auto's cascade LP bound and half a thousandth)?
 * Then each run ends and no other starts. */
static int search_enough(Search *X, double run_best)
{
    double c = X->best.steps && X->best.fits ? X->best.C : -1;
    if (run_best >= 0 && (c < 0 || run_best < c))
        c = run_best;
    return relay_enough(X->in, c);
}

/* Anneal.tick (while the run's best fits): that best, offered while the
 * run goes on, and the run ended when it is enough. */
static void offer_tick(void *ctx, const Anneal *A, const State *S)
{
    Search *X = ctx;
    if (search_enough(X, A->best_C))
        ((Anneal *)A)->stop = 1;
    if (!X->p || !X->p->offer || (X->offered >= 0 && A->best_C >= X->offered))
        return;
    int T;
    int *steps = state_decode(S, A->best_seq, &T);
    offer(X, steps, T, A->best_C);
    free(steps);
}

/* Mutations of one run: enough to cool through the graph's size. */
static long long run_length(const FastSA *fs)
{
    long long n = 10000LL * fs->U.n_units;
    if (n < 200000)
        n = 200000;
    return n < fs->prm.iters ? n : fs->prm.iters;
}

static long long stall_of(const FastSA *fs)
{
    return fs->prm.stall >= 0 ? fs->prm.stall : run_length(fs) / 4;
}

static double temp0(const Anneal *A)
{
    return 1e-3 * A->f;
}

/* One single-node run from order[0..L) with temperatures h0 -> h1 (h0 <= 0:
 * the paper's 0.1 % of the initial objective). -1 when cancelled. */
/* Each run draws from its own stream (the seed and the run's id), so a
 * run is the same whatever ran before it: the single-node run from the
 * graph's order is identical with grouping on or off, and a search with
 * grouping can only end at or below one without. */
static void stream(Search *X, int id)
{
    X->rng.s = ((FastSA *)X->s->state)->prm.seed * 0x2545f4914f6cdd1dull + 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
}

/* Where a best plan came from: the seeds' runs are RUN_SEED + i (i < 8). */
enum { RUN_ORDER, RUN_GROUPED, RUN_UNGROUP, RUN_SEED, RUN_DEEP = 18, RUN_REPAIR = 19, RUN_PREV = 20, RUN_IN = 30,
       RUN_LADDER = 40, RUN_MORE = 100, RUN_SPAN = 1 << 20 };

/* One single-node run from order[0..L) at budget b, drawing from stream
 * sid; its best plan is offered to *into as coming from run `from`. -1
 * when cancelled, 1 when the search has found enough (search_enough). */
static int run_at(Search *X, int from, int sid, const int *order, int L, int64_t b, double h0,
                  double until, Best *into)
{
    stream(X, sid);
    FastSA *fs = X->s->state;
    State S;
    if (!load_plain(&S, fs, X->s->rule, order, L, b)) {
        state_done(&S);
        return 0;
    }
    Anneal A;
    anneal_init(&A, &S, b, fs->prm.obj, fs->prm.wall, X->s->rule);
    /* a rung of the descent above the budget offers nothing */
    if (b <= X->budget && ((X->p && X->p->offer) || X->in)) {
        A.tick = offer_tick;
        A.tick_ctx = X;
    }
    if (h0 <= 0)
        h0 = temp0(&A);
    long long n = anneal_run(&A, &S, &X->rng, run_length(fs), h0, h0 * 1e-4, until, 0,
                             stall_of(fs), X->p);
    X->tried += A.tried;
    X->runs++;

    /* the search's own best, within the budget, is offered to whoever
     * shows plans while the search runs (progress_offer) */
    if (n >= 0 && best_offer(into, &S, &A, from) && into == &X->best && into->fits)
        offer(X, into->steps, into->T, into->C);
    anneal_done(&A);
    state_done(&S);
    return n < 0 ? -1 : search_enough(X, -1);
}

static int run_plain(Search *X, int id, const int *order, int L, double h0, double until)
{
    return run_at(X, id, id, order, L, X->budget, h0, until, &X->best);
}

/* Runs from plans found beside the search, at most. */
#define RUN_IN_MOST 10

/* 1 when pl fits the budget and costs no less than the search's best,
 * which fits too: running from it would spend a run behind the best. */
static int behind_best(const Search *X, const Plan *pl)
{
    if (!X->best.steps || !X->best.fits)
        return 0;
    Sim sim;
    Err e;
    if (sim_run(X->s->g, pl->steps, pl->T, &sim, &e) != ERR_OK)
        return 1;
    int behind = sim.peak <= X->budget && sim.cost >= X->best.C * (1 - 1e-12);
    sim_done(&sim);
    return behind;
}

/* The latest plan found beside the search since the last look (auto's
 * cascade LP and its second FastSA search, on another thread), into *pl:
 * 1 when there is one to run from. A plan that fits but is no cheaper
 * than the best is passed over (the other search offers each of its
 * improvements, which may still be behind this one's). */
static int take_in(Search *X, Plan *pl)
{
    return X->nin < RUN_IN_MOST && relay_take(X->in, pl) && keeps_pins(X->s->g, X->s->rule, pl->steps, pl->T) &&
           !behind_best(X, pl);
}

/* Simulated steps and edges one repair may spend, in a solve and in a
 * re-solve for the slider: about 0.15 s and 7 ms (simulation runs about
 * 350M steps and edges a second; regnet_y_400mf's repair, 20 insertions
 * on 1.2K nodes, took 4 ms). */
#define REPAIR_WORK 50000000
#define REPAIR_WORK_RESOLVE 2500000
/* "Just over the budget" for the early deep start: within 1/DEEP_NEAR. */
#define DEEP_NEAR 100

/* A best plan over the budget, repaired (src/plan/repair.h: what the peak
 * holds, run again before its next read) where that lowers its peak; the
 * reheats then anneal the repaired plan's cost. The annealing's moves
 * seldom free a value whose rerun needs a chain of nodes (regnet_y_400mf
 * at 25 %, unit costs: the runs ended at 29.9 % of the baseline, the
 * repair takes them to 25.1 %). A plan within the budget is left alone,
 * and so is one the repair could not lower (the repair is deterministic:
 * at the end of a search whose reheats found nothing better, or of a
 * re-solve, which has none, it would only fail again). */
static void repair_best(Search *X, int full)
{
    Best *b = &X->best;
    if (!b->steps || b->fits || b->repaired)
        return;
    b->repaired = 1;
    int T = b->T, *steps = xmallocarray((size_t)T, sizeof *steps);
    memcpy(steps, b->steps, (size_t)T * sizeof *steps);
    const Graph *g = X->s->g;
    Sim sm;
    Err e;
    err_clear(&e);
    if (plan_repair(g, &steps, &T, X->budget, X->s->rule,
                    full ? REPAIR_WORK : REPAIR_WORK_RESOLVE) > 0 &&
        sim_run(g, steps, T, &sm, &e) == ERR_OK) {
        if (sm.peak < b->M) {
            free(b->steps);
            *b = (Best){.steps = steps, .T = T, .fits = sm.peak <= X->budget, .M = sm.peak,
                        .C = sm.cost, .from = RUN_REPAIR};
            steps = NULL;
            if (b->fits)
                offer(X, b->steps, b->T, b->C);
        }
        sim_done(&sm);
    }
    free(steps);
}

/* A best plan the repair left over the budget, with the value its peak
 * holds made again after the peak where its inputs are gone
 * (plan_rerun_deep, from a cone of what it depends on):
 * the start of the runs that follow while no plan fits, NULL when there
 * is none or it was already made from this best (it is deterministic). On regnet_y_400mf at 25 % (unit costs) the repaired plan peaks
 * 17.6 MiB over, at a batch norm's backward beside the shortcut's
 * gradient, which no short chain makes again: the cone runs the next
 * block's forward and backward again from its gradient, held. */
static int *deep_start(Search *X, int *T)
{
    Best *b = &X->best;
    /* where no schedule peaks within the budget (vgg11 at 25 %), the
     * lowest peak found is the answer, and the runs go on lowering it */
    if (!b->steps || b->fits || b->deepened || bound_min_peak(X->s->g, NULL) > X->budget)
        return NULL;
    b->deepened = 1;
    *T = b->T;
    int *steps = xmallocarray((size_t)*T, sizeof *steps);
    memcpy(steps, b->steps, (size_t)*T * sizeof *steps);
    if (!plan_rerun_deep(X->s->g, &steps, T, X->budget, X->s->rule, REPAIR_WORK)) {
        free(steps);
        return NULL;
    }
    return steps;
}

/* The budget descent: a run from the graph's order at a looser budget,
 * then runs at tighter budgets, each from the best plan of the rung
 * before, down to the search's own. A run at a looser budget spends its
 * time on cost rather than memory and settles on an order where memory is
 * cheap to save; tightening from there keeps that order and adds little.
 * The rungs are spaced evenly from the budget plus LADDER_TOP of what
 * separates it from the baseline peak; each rung is the best of
 * LADDER_WIDTH runs, as single runs vary a lot. Measured on RL3
 * (Moccasin's rl_n500) at 70 %, six seeds each: fastsa's search ended at
 * +4.9-5.8 % without the descent and at +4.5-4.9 % with it
 * (docs/solvers/fastsa.md). */
enum { LADDER_RUNGS = 4, LADDER_WIDTH = 2 };
#define LADDER_TOP 0.25
#define LADDER_SHARE 6.0    /* of the search's time, in single runs' shares */

static int run_ladder(Search *X, int id, const int *order, int L, double until)
{
    int64_t B = X->budget, base = X->s->base_peak;
    Best cur = {.steps = xmallocarray((size_t)L + 1, sizeof(int)), .T = L};
    memcpy(cur.steps, order, (size_t)L * sizeof(int));
    int rc = 0;
    for (int k = 0; k < LADDER_RUNGS && rc == 0; k++) {
        int up = LADDER_RUNGS - 1 - k;
        int64_t b = B + (int64_t)((double)(base - B) * LADDER_TOP * up / (LADDER_RUNGS - 1));
        Best rung = {0};
        for (int j = 0; j < LADDER_WIDTH && rc == 0; j++) {
            double now = clock_now();
            double u = now + (until - now) / (LADDER_WIDTH * (LADDER_RUNGS - k) - j);
            int sid = id + RUN_SPAN * (k * LADDER_WIDTH + j);   /* each run its own stream */
            rc = run_at(X, id, sid, cur.steps, cur.T, b, 0, u, up ? &rung : &X->best);
        }
        if (rung.steps) {
            free(cur.steps);
            cur = rung;
        }
    }
    free(cur.steps);
    return rc;
}

/* Grouped run from the graph order until the budget is met (stage 1 of
 * §3.1), then the single nodes of its plan (stage 2) at the temperature
 * it reached. -1 when cancelled. */
/* The groups of more than one node, for describe. */
static void keep_groups(FastSA *fs, const Units *G)
{
    free(fs->grp_off);
    free(fs->grp_nodes);
    int n = 0, m = 0;
    for (int i = 0; i < G->n_units; i++)
        if (G->u[i].n_mem > 1) {
            n++;
            m += G->u[i].n_mem;
        }
    fs->grp_off = xmallocarray((size_t)n + 1, sizeof *fs->grp_off);
    fs->grp_nodes = xmallocarray((size_t)m + 1, sizeof *fs->grp_nodes);
    fs->grp_off[0] = 0;
    fs->ngrp = 0;
    for (int i = 0; i < G->n_units; i++)
        if (G->u[i].n_mem > 1) {
            int o = fs->grp_off[fs->ngrp];
            memcpy(fs->grp_nodes + o, G->u[i].mem, (size_t)G->u[i].n_mem * sizeof *G->u[i].mem);
            fs->grp_off[++fs->ngrp] = o + G->u[i].n_mem;
        }
}

static int run_grouped(Search *X, const int *order, int L, double until1, double until2)
{
    stream(X, RUN_GROUPED);
    FastSA *fs = X->s->state;
    const Params *prm = &fs->prm;
    Units G;
    int *gseq, gL;
    unsigned char *keep = X->s->rule;   /* pinned and forced nodes stay whole */
    units_grouped(&G, X->s->g, order, L, prm->group_max, keep, &gseq, &gL);
    keep_groups(fs, &G);
    State S;
    state_init(&S, &G, state_slots_for(gL, prm->slack));
    if (prm->logaddexp)
        state_smooth(&S, (double)X->budget / 256);
    state_load(&S, gseq, gL);
    free(gseq);
    Anneal A;
    anneal_init(&A, &S, X->budget, prm->obj, prm->wall, X->s->rule);
    double h0 = temp0(&A), h1 = h0 * 1e-4;
    long long len = run_length(fs);
    long long n = anneal_run(&A, &S, &X->rng, len, h0, h1, until1, 1, stall_of(fs), X->p);
    X->tried += A.tried;

    int *dec = NULL, dL = 0;
    double h = 0;
    if (n >= 0) {
        dec = state_decode(&S, A.best_seq, &dL);
        double frac = (double)n / (double)len;
        h = h0 * exp(log(h1 / h0) * (frac < 1 ? frac : 1)) * 0.1;
    }
    anneal_done(&A);
    state_done(&S);
    units_done(&G);
    if (n < 0)
        return -1;
    int rc = run_plain(X, RUN_UNGROUP, dec, dL, h, until2);
    free(dec);
    return rc;
}

/* Plans of the seed solvers at this budget (those that apply). */
static int seed_plans(Search *X, Plan **plans)
{
    FastSA *fs = X->s->state;
    const Graph *g = X->s->g;
    if (g->n > fs->prm.seed_max_nodes || strcmp(fs->prm.seeds, "none") == 0)
        return 0;
    char list[256];
    snprintf(list, sizeof list, "%s", fs->prm.seeds);
    int n = 0;
    *plans = xcalloc(SEEDS_MOST, sizeof **plans);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name && n < SEEDS_MOST;
         name = strtok_r(NULL, ",", &save)) {
        const SolverClass *cls = solver_find(name);
        if (!cls || cls == X->s->cls)
            continue;
        /* made already (the portfolio's member): the same plan, without
         * its seconds (kusumoto-approx: 1.2-1.8 s on opt_6_7b) */
        int k = 0;
        while (k < fs->ngiven && !(fs->given[k].budget == X->budget && strcmp(fs->given[k].name, cls->name) == 0))
            k++;
        if (k < fs->ngiven) {
            if (keeps_pins(g, X->s->rule, fs->given[k].plan.steps, fs->given[k].plan.T)) {
                plan_init(&(*plans)[n]);
                plan_copy(&(*plans)[n++], &fs->given[k].plan);
            }
            continue;
        }
        Err e;
        err_clear(&e);
        Solver *t = solver_new_cancellable(cls, g, NULL, X->p, &e);
        if (!t)
            continue;
        Plan *pl = &(*plans)[n];
        plan_init(pl);
        int rc = solver_plan(t, X->budget, NULL, pl, X->p, &e);
        solver_free(t);
        if ((rc == ERR_OK || rc == ERR_OVER_BUDGET) && pl->T > 0 &&
            keeps_pins(g, X->s->rule, pl->steps, pl->T))
            n++;
        else
            plan_done(pl);
        if (progress_cancelled(X->p))
            break;
    }
    return n;
}

/* The search of a full solve from the graph's order (and prev, when
 * given): see the file comment. */
static int search(Solver *s, int64_t budget, const Plan *starts, int nstarts, double time_limit,
                  int full, Relay *in, Plan *out, Progress *p, Err *e)
{
    FastSA *fs = s->state;
    const Params *prm = &fs->prm;
    const Graph *g = s->g;
    Search X = {.s = s, .budget = budget, .p = p, .offered = -1, .in = in};
    double t0 = clock_now();
    X.deadline = t0 + time_limit;
    /* no budget: the cheapest plan that peaks no higher than the graph's
     * own order */
    if (budget == PLAN_NO_BUDGET)
        X.budget = s->base_peak;
    int L, rc = 0;
    int *order = sim_baseline_order(g, &L);
    if (L == 0) {
        free(order);
        return ERR_OK;
    }
    Plan *seeds = NULL;
    int ns = full ? seed_plans(&X, &seeds) : 0;
    int use_prev = 0;
    for (int i = 0; i < nstarts; i++)
        use_prev += starts[i].T > 0 && keeps_pins(g, s->rule, starts[i].steps, starts[i].T);
    /* the descent applies when the budget is below the graph order's peak */
    int ladder = full && prm->descent && X.budget < s->base_peak;

    /* runs before the reheats, each with its share of what is left (a run
     * that stalls early leaves its time to the next; the descent, made of
     * LADDER_RUNGS * LADDER_WIDTH runs, has LADDER_SHARE shares); a fifth
     * of the time is kept for the reheats */
    double shares = (full && prm->grouping ? 1 : 0) + (full ? 1 : 0) + ns + use_prev +
                    (ladder ? LADDER_SHARE : 0),
           done = 0;
    double share_end = t0 + time_limit * (shares > 0 ? 0.8 : 0);
#define NEXT_UNTIL(w) (clock_now() + (share_end - clock_now()) * (w) / (shares - done))
    /* a plan found beside the search since the last run: a run from it
     * next, with a start's share of the time (the cascade LP's plan on a
     * transformer at 25 %, unit costs, is most often the best start) */
#define RUN_IN()                                                                         \
    do {                                                                                 \
        Plan in_;                                                                        \
        plan_init(&in_);                                                                 \
        if (rc == 0 && take_in(&X, &in_)) {                                              \
            shares++;                                                                    \
            rc = run_plain(&X, RUN_IN + X.nin++, in_.steps, in_.T, 0, NEXT_UNTIL(1));    \
            done++;                                                                      \
        }                                                                                \
        plan_done(&in_);                                                                 \
    } while (0)
    int deepT = 0, *deep = NULL;
    double ladder_share = LADDER_SHARE;
    /* the run from the deep start, wherever it comes: half the descent's
     * time, taken from the descent's share */
#define RUN_DEEP_START()                                                                \
    do {                                                                                \
        rc = run_plain(&X, RUN_DEEP, deep, deepT, 0, NEXT_UNTIL(LADDER_SHARE / 2));     \
        done += LADDER_SHARE / 2;                                                       \
        ladder_share -= LADDER_SHARE / 2;                                               \
    } while (0)
    /* a best that the repair leaves just over the budget (within
     * DEEP_NEAR) after the given starts' runs or the grouped run is the
     * deep rerun's case: its start and run come at once, before the
     * seeds' and the order's runs (on regnet_y_400mf at 25 % the budget
     * was first met at 9-10 s after them, then at 4 s after the grouped
     * run; with FLOP costs, where no member's plan fits, the start's run
     * alone leaves it there: 2.5 s) */
#define EARLY_DEEP()                                                                     \
    do {                                                                                 \
        if (ladder && rc == 0 && !deep && !X.best.fits) {                                \
            repair_best(&X, full);                                                       \
            if (!X.best.fits && X.best.M <= X.budget + X.budget / DEEP_NEAR)             \
                deep = deep_start(&X, &deepT);                                           \
            if (deep)                                                                    \
                RUN_DEEP_START();                                                        \
        }                                                                                \
    } while (0)
    for (int i = 0; i < nstarts && rc == 0; i++)
        if (starts[i].T > 0 && keeps_pins(g, s->rule, starts[i].steps, starts[i].T)) {
            rc = run_plain(&X, RUN_PREV + i, starts[i].steps, starts[i].T, 0, NEXT_UNTIL(1));
            done++;
            RUN_IN();
        }
    if (nstarts > 0)
        EARLY_DEEP();
    /* The runs most likely to meet the budget soon go first, so the plan
     * offered early is already close to the search's answer: the grouped
     * run (its start often fits at once: every cheap forward node run
     * again by its readers) and the seeds' plans, then the graph's order
     * and the descent. On bench_paper's 1K-node joint graphs at 25 % the
     * grouped run had been the first to fit, after the order run and the
     * descent had used 60 % of the time without fitting. Each run has its
     * own random stream, so the order changes only the time each gets. */
    if (full && prm->grouping && rc == 0) {
        double u2 = NEXT_UNTIL(1), now = clock_now();
        rc = run_grouped(&X, order, L, now + (u2 - now) * 0.7, u2);
        done++;
        RUN_IN();
    }
    EARLY_DEEP();
#undef EARLY_DEEP
    for (int i = 0; i < ns && rc == 0; i++) {
        rc = run_plain(&X, RUN_SEED + i, seeds[i].steps, seeds[i].T, 0, NEXT_UNTIL(1));
        done++;
        RUN_IN();
    }
    if (full && rc == 0) {
        rc = run_plain(&X, RUN_ORDER, order, L, 0, NEXT_UNTIL(1));
        done++;
        RUN_IN();
    }
    /* a best still over the budget here, that the repair cannot bring
     * within it either, may need a value made again from a cone of what it
     * depends on: the run
     * from that start takes half the descent's time (on regnet_y_400mf at
     * 25 % it needs seconds to meet the budget, more than the reheats'
     * fifth of the time, on a loaded machine); the descent still runs, so
     * a budget it can meet cheaply is met as before */
    if (ladder && rc == 0 && !X.best.fits && !deep) {
        repair_best(&X, full);
        deep = deep_start(&X, &deepT);
        if (deep)
            RUN_DEEP_START();
    }
    if (ladder && rc == 0) {
        rc = run_ladder(&X, RUN_LADDER, order, L, NEXT_UNTIL(ladder_share));
        done += ladder_share;
        RUN_IN();
    }
#undef RUN_IN
#undef RUN_DEEP_START
#undef NEXT_UNTIL
    if (rc == 0)
        repair_best(&X, full);
    /* from the best so far, when the descent changed it (it may have
     * brought one nearer) */
    if (full && rc == 0 && !X.best.fits) {
        int nT = 0, *nd = deep_start(&X, &nT);
        if (nd) {
            free(deep);
            deep = nd;
            deepT = nT;
        }
    }
    /* the time left: a fresh descent (or, where there is none, a fresh run
     * from the graph's order: runs differ a lot by their random stream, so
     * the best of several beats one long run), then a cooler reheat from
     * the best so far, in turn, each for
     * a quarter of the time limit at most; a full search stops early once
     * a reheat and a fresh run in a row bring nothing (a re-solve for the
     * slider is the one warm run from the previous plan) */
    for (int k = 0, idle = 0; full && rc == 0 && X.best.steps && idle < 2 &&
                              (prm->restarts < 0 || k < prm->restarts) &&
                              clock_now() < X.deadline - 0.01;
         k++) {
        double before = X.best.C;
        int fits = X.best.fits;
        double until = clock_now() + time_limit / 4;
        if (until > X.deadline)
            until = X.deadline;
        Plan found;
        plan_init(&found);
        if (take_in(&X, &found)) {
            rc = run_plain(&X, RUN_IN + X.nin++, found.steps, found.T, 0, until);
        } else if (deep && !X.best.fits) {
            rc = run_plain(&X, RUN_DEEP + RUN_SPAN * (k + 1), deep, deepT, 0, until);
        } else if (k % 2 == 1 && ladder) {
            rc = run_ladder(&X, RUN_MORE + k, order, L, until);
        } else if (k % 2 == 1) {
            rc = run_plain(&X, RUN_MORE + k, order, L, 0, until);
        } else {
            int bT = X.best.T;
            int *bs = xmallocarray((size_t)bT + 1, sizeof *bs);
            memcpy(bs, X.best.steps, (size_t)bT * sizeof *bs);
            double f = (double)(X.best.M > X.budget ? X.best.M : X.budget) * X.best.C;
            rc = run_plain(&X, RUN_MORE + k, bs, bT, 1e-4 * f, until);
            free(bs);
        }
        plan_done(&found);
        idle = X.best.fits == fits && X.best.C >= before ? idle + 1 : 0;
    }
    if (rc == 0)
        repair_best(&X, full);
    for (int i = 0; i < ns; i++)
        plan_done(&seeds[i]);
    free(seeds);
    free(deep);
    free(order);
    fs->last_tried = X.tried;
    fs->runs = X.runs;
    fs->best_from = X.best.from;
    if (rc < 0) {
        free(X.best.steps);
        return err_set(e, ERR_CANCELLED, "fastsa: cancelled");
    }
    for (int t = 0; X.best.steps && t < X.best.T; t++)
        plan_push(out, X.best.steps[t]);
    free(X.best.steps);
    progress_set(p, 1.0);
    return ERR_OK;
}

/* restarts: a count, or auto (-1: until the time limit). */
static int restarts_opt(const Solver *s, int *out, Err *e)
{
    long long n = -1;
    int rc = strcmp(solver_opt_str(s, "restarts"), "auto") ? solver_opt_int(s, "restarts", &n, e) : 0;
    *out = (int)n;
    return rc;
}

/* stall: a count, or auto (-1: a quarter of each run's length). */
static int stall_opt(const Solver *s, long long *out, Err *e)
{
    if (strcmp(solver_opt_str(s, "stall"), "auto") == 0) {
        *out = -1;
        return ERR_OK;
    }
    return solver_opt_int(s, "stall", out, e);
}

/* time_limit: a number of seconds, or auto: long enough for the graph's
 * size (the paper's runs took 9-36 s on 73-1000 nodes), short on small
 * graphs. */
static int time_limit_opt(const Solver *s, double *out, Err *e)
{
    if (strcmp(solver_opt_str(s, "time_limit"), "auto") != 0)
        return solver_opt_double(s, "time_limit", out, e);
    double t = 2.0 + (double)s->g->n / 50.0;
    *out = t < 30 ? t : 30;
    return ERR_OK;
}

static int fastsa_prepare(Solver *s, Err *e)
{
    Params prm;
    memset(&prm, 0, sizeof prm);
    long long seed, slack, gmax, smax;
    int rc;
    if ((rc = solver_opt_int(s, "seed", &seed, e)) || (rc = solver_opt_int(s, "iters", &prm.iters, e)) ||
        (rc = time_limit_opt(s, &prm.time_limit, e)) ||
        (rc = solver_opt_double(s, "wall", &prm.wall, e)) ||
        (rc = solver_opt_double(s, "resolve_time", &prm.resolve_time, e)) ||
        (rc = stall_opt(s, &prm.stall, e)) ||
        (rc = solver_opt_int(s, "slack", &slack, e)) || (rc = solver_opt_int(s, "group_max", &gmax, e)) ||
        (rc = solver_opt_int(s, "seed_max_nodes", &smax, e)) ||
        (rc = restarts_opt(s, &prm.restarts, e)))
        return rc;
    /* ranges and choices were checked against the table by solver_new */
    prm.grouping = strcmp(solver_opt_str(s, "grouping"), "on") == 0;
    prm.descent = strcmp(solver_opt_str(s, "descent"), "on") == 0;
    prm.logaddexp = strcmp(solver_opt_str(s, "logaddexp"), "on") == 0;
    prm.obj = strcmp(solver_opt_str(s, "objective"), "product") == 0 ? OBJ_PRODUCT : OBJ_ELU;
    const char *sd = solver_opt_str(s, "seeds");
    if (strlen(sd) >= sizeof prm.seeds)
        return err_set(e, ERR_USAGE, "fastsa: seeds=%s: too long", sd);
    snprintf(prm.seeds, sizeof prm.seeds, "%s", sd);
    char list[256];
    snprintf(list, sizeof list, "%s", sd);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
        if (strcmp(name, "none") != 0 && !solver_find(name))
            return err_set(e, ERR_USAGE, "fastsa: seeds: no solver '%s'", name);
    prm.slack = (int)slack;
    prm.group_max = (int)gmax;
    prm.seed_max_nodes = (int)smax;
    prm.seed = (uint64_t)seed;
    FastSA *st = s->state;
    st->prm = prm;
    units_plain(&st->U, s->g);
    return ERR_OK;
}

static int fastsa_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    FastSA *fs = s->state;
    return search(s, budget, NULL, 0, fs->prm.time_limit, 1, NULL, out, p, e);
}

static int64_t peak_of(const Graph *g, const Plan *pl)
{
    Sim sim;
    Err e2;
    if (pl->T == 0 || sim_run(g, pl->steps, pl->T, &sim, &e2))
        return -1;
    int64_t pk = sim.peak;
    sim_done(&sim);
    return pk;
}

/* The quick answer for a new budget (the slider's first, src/session/
 * service.h): a short anneal from the previous plan, within the budget or
 * not; the full search is solve's, which the explorer runs next. */
static int fastsa_resolve(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p,
                          Err *e)
{
    FastSA *fs = s->state;
    if (!prev || peak_of(s->g, prev) < 0)
        return fastsa_solve(s, budget, out, p, e);
    double t = fs->prm.resolve_time < fs->prm.time_limit ? fs->prm.resolve_time : fs->prm.time_limit;
    return search(s, budget, prev, 1, t, 0, NULL, out, p, e);
}

static void fastsa_describe(const Solver *s, Overlay *out)
{
    const FastSA *fs = s->state;
    const Graph *g = s->g;
    char from[96], buf[160];
    int f = fs->best_from;
    if (f == RUN_ORDER)
        snprintf(from, sizeof from, "a run from the graph's order");
    else if (f == RUN_UNGROUP)
        snprintf(from, sizeof from, "the node groups' run");
    else if (f % RUN_SPAN == RUN_DEEP)
        snprintf(from, sizeof from, "a run from a plan whose peak's value is made again after the peak");
    else if (f == RUN_REPAIR)
        snprintf(from, sizeof from, "the best run's plan, its peak repaired");
    else if (f >= RUN_SEED && f < RUN_PREV)
        snprintf(from, sizeof from, "a run from a seed solver's plan");
    else if (f >= RUN_PREV && f < RUN_IN)
        snprintf(from, sizeof from, "a run from a given start");
    else if (f >= RUN_IN && f < RUN_LADDER)
        snprintf(from, sizeof from, "a run from a plan found beside the search");
    else if (f >= RUN_LADDER && f < RUN_MORE)
        snprintf(from, sizeof from, "a descent from a looser budget");
    else
        snprintf(from, sizeof from, "a restart");
    overlay_set_titlef(out, "fastsa: best of %d runs, from %s; %d node groups", fs->runs, from,
                       fs->ngrp);
    for (int i = 0; i < fs->ngrp; i++) {
        int last = fs->grp_nodes[fs->grp_off[i + 1] - 1];
        snprintf(buf, sizeof buf, "group %s: %d nodes fused into it", g->nodes[last].id,
                 fs->grp_off[i + 1] - fs->grp_off[i]);
        int gi = overlay_add(out, OVERLAY_BLOCK, buf, -1, 0);
        for (int k = fs->grp_off[i]; k < fs->grp_off[i + 1]; k++)
            overlay_add_node(out, gi, fs->grp_nodes[k]);
    }
}

static void fastsa_release(Solver *s)
{
    FastSA *fs = s->state;
    units_done(&fs->U);
    free(fs->grp_off);
    free(fs->grp_nodes);
    for (int i = 0; i < fs->ngiven; i++)
        plan_done(&fs->given[i].plan);
}

void fastsa_random_walk(const Graph *g, int steps, uint64_t seed, int slack, int **sched, int *T,
                        int64_t **mem, int64_t *peak)
{
    Units U;
    units_plain(&U, g);
    State S;
    state_init_baseline(&S, &U, slack);
    Rng rng = {seed};
    for (int i = 0; i < steps && U.n_units > 0; i++) {
        int kind = rng_below(&rng, 3);
        int t1 = S.count ? S.occ[rng_below(&rng, S.count)] : -1;
        /* half the moves near their slot, where they are often local
         * (state_move) */
        int t2 = kind == 2 && t1 >= 0 && rng_below(&rng, 2) ? t1 - 4 + rng_below(&rng, 9) : rng_below(&rng, S.T);
        if (t2 < 0 || t2 >= S.T)
            continue;
        if (S.seq[t2] >= 0)
            continue;
        if (kind == 0) {
            int u = rng_below(&rng, U.n_units);
            if (state_can_add(&S, u, t2))
                state_add(&S, u, t2);
        } else if (kind == 1) {
            if (t1 >= 0 && state_can_remove(&S, t1))
                state_remove(&S, t1);
        } else if (t1 >= 0) {
            int u = S.seq[t1];
            if (state_move(&S, t1, t2))     /* a local move, in place */
                continue;
            if (!state_can_add(&S, u, t2))
                continue;
            state_add(&S, u, t2);
            if (state_can_remove(&S, t1))
                state_remove(&S, t1);
            else
                state_remove(&S, t2);
        }
    }
    int n = 0;
    *sched = xmallocarray((size_t)S.count + 1, sizeof **sched);
    *mem = xmallocarray((size_t)S.count + 1, sizeof **mem);
    for (int t = 0; t < S.T; t++)
        if (S.seq[t] >= 0) {
            (*sched)[n] = U.u[S.seq[t]].mem[0];
            (*mem)[n++] = state_mem_at(&S, t);
        }
    *T = n;
    *peak = state_peak(&S);
    state_done(&S);
    units_done(&U);
}

int fastsa_search_from(Solver *s, int64_t budget, const Plan *starts, int n, double time_limit,
                       int full, Relay *in, Plan *out, Progress *p, Err *e)
{
    if (strcmp(s->cls->name, "fastsa") != 0)
        return err_set(e, ERR_USAGE, "fastsa_search_from: not a fastsa solver");
    return search(s, budget, starts, n, time_limit, full, in, out, p, e);
}

void fastsa_seed_plan(Solver *s, const char *name, int64_t budget, const int *steps, int T)
{
    FastSA *fs = s->state;
    if (strcmp(s->cls->name, "fastsa") != 0 || strlen(name) >= sizeof fs->given[0].name)
        return;
    /* only a solver of the seeds= list */
    char list[256];
    snprintf(list, sizeof list, "%s", fs->prm.seeds);
    int listed = 0;
    for (char *save = NULL, *n = strtok_r(list, ",", &save); n && !listed; n = strtok_r(NULL, ",", &save))
        listed = strcmp(n, name) == 0;
    if (!listed)
        return;
    int k = 0;
    while (k < fs->ngiven && strcmp(fs->given[k].name, name) != 0)
        k++;
    if (k == fs->ngiven) {
        if (k == SEEDS_MOST)
            return;
        fs->ngiven++;
        plan_init(&fs->given[k].plan);
        snprintf(fs->given[k].name, sizeof fs->given[k].name, "%s", name);
    }
    fs->given[k].budget = budget;
    plan_set_steps(&fs->given[k].plan, steps, T);
}

long long fastsa_last_tried(const Solver *s)
{
    const FastSA *fs = s->state;
    return fs ? fs->last_tried : 0;
}

const SolverClass solver_fastsa = {
    .name = "fastsa",
    .title = "FastSA: simulated annealing over a slotted sequence, peak kept by a segment tree",
    .caps = SOLVER_CONSTRAINTS,
    .params = params,
    .state_size = sizeof(FastSA),
    .prepare = fastsa_prepare,
    .solve = fastsa_solve,
    .resolve = fastsa_resolve,
    .describe = fastsa_describe,
    .release = fastsa_release,
};
