/* auto.c — the portfolio solver: every solver that applies to the graph,
 * within one time budget, and the best plan any of them made.
 *
 * A solve runs the quick members one after another (each under a deadline
 * that also carries the caller's cancellation), with the cascade LP on a
 * thread of its own beside them, pools every schedule they return, then
 * gives FastSA the time left, starting from the pool's best plans as well
 * as from its own starts; on small graphs Checkmate's MILP
 * gets what FastSA leaves (run_exact). The answer is the pool's pick
 * (src/plan/cands.h: cheapest within the budget, else the lowest peak); the plan
 * names the member that made it (Plan.origin). A re-solve for a new budget
 * is the quick answer (the slider's first, src/session/service.h): a pick
 * from the pool, from the members that keep a family of schedules and
 * from the fast heuristics run again at the new budget, polished briefly
 * by FastSA; it never searches at length (the full answer is solve's,
 * which the explorer runs next). Plans made elsewhere join the pool
 * (adopt), so a quick answer is never dearer than a plan already found.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/checkmate.h"
#include "solvers/fastsa/fastsa.h"
#include "src/base/clock.h"
#include "src/plan/bound.h"
#include "src/plan/cands.h"
#include "src/plan/relay.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/plan/tidy.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_NUM("time_limit", "auto", 0.001, 1e6, "auto", "most seconds for a solve; auto: 2 plus one per 50 nodes, at most 30, and 5.5 more for the exact member where it runs (it ends the solve when it proves the plan optimal)"),
    OPT_P_NUM("resolve_time", "0.05", 0.001, 1e6, NULL, "seconds FastSA polishes a re-solve's pick (the slider's quick answer)"),
    OPT_P_TEXT("members", "all", "comma-separated solvers to run, cover (the cover bound's plan) and cascade (the cascade LP's) among them (all: every one that applies)"),
    OPT_P_INT("seed", "1", 0, 9e18, NULL, "FastSA's seed"),
    OPT_P_TEXT("fastsa", "", "options for the FastSA member, key=value separated by ';' (e.g. iters=30000;restarts=0)"),
    OPT_P_CHOICE("exact", "on", "on|off", "on: on graphs of at most 100 running nodes, Checkmate's MILP gets the time FastSA leaves, from the pool's best plan"),
    OPT_P_END,
};

/* The members in the order they run, and the largest graph (nodes) each is
 * worth running on within a portfolio's time: beyond it a member's own
 * preparation alone (tree decompositions, lower-set enumeration) would eat
 * the budget. `pick` marks members whose re-solve is a lookup in their
 * family of schedules. FastSA is last and separate. */
static const struct {
    const char *name;
    int max_nodes;
    int pick;
    int quick;      /* a fast heuristic that adapts to the budget: run again in a re-solve */
} MEMBERS[] = {
    {"noremat", 1 << 30, 0, 0},
    {"chen", 1 << 30, 1, 0},
    {"echo", 1 << 30, 0, 1},
    {"greedy", 100000, 0, 1},
    {"dtr", 100000, 0, 1},
    {"revolve", 1 << 30, 1, 0},
    {"join", 200000, 1, 0},
    {"kusumoto-approx", 5000, 1, 0},
    {"kusumoto-exact", 400, 1, 0},
    {"twremat", 3000, 1, 0},
};

/* Seconds a quick member may take in a re-solve: greedy and echo take a
 * few milliseconds on the samples (lstm64, 2.3K nodes) and about a second
 * on 200K nodes (bench_scale). */
#define QUICK_MEMBER_SECONDS 0.3
#define N_MEMBERS (int)(sizeof MEMBERS / sizeof MEMBERS[0])
/* Auto.last_of's slot for the second FastSA search (the twin, below) */
#define TWIN_OF (N_MEMBERS + 1)

typedef struct {
    Solver *m[N_MEMBERS];
    int refused[N_MEMBERS];     /* prepare said no (or the member is off) */
    Solver *fsa;
    Solver *twin;               /* the last solve's second FastSA search (NULL: none) */
    double time_limit, resolve_time;
    double exact_time;          /* of time_limit, what FastSA leaves the exact member */
    long long seed;
    /* for describe: the pool index of the last answer, and of each
     * member's last plan (-1: none); the FastSA member, then its twin
     * (TWIN_OF), are last */
    int last_pick, last_of[N_MEMBERS + 2];
    /* tidied_from[i]: the pool index plan i was tidied from (-1 or past
     * n_tidied: none), so a tidied copy is described by its maker */
    int *tidied_from, n_tidied;
    /* the exact member's lower bound (Checkmate's model on the orders it
     * solved) at the budget of its last run; exact_budget -1: none */
    double exact_bound;
    int64_t exact_budget;
    double cover_secs;          /* the last cover plan took (-1: none, or it failed) */
    double needed_cost;         /* graph_needed_cost: no plan costs less */
} Auto;

/* Seconds the cover's plan, and the cover bound of a pick in another order,
 * may take in a solve and in a slider re-solve: on the samples a cover
 * takes 0.01-0.3 s (lstm64, 2.3K nodes: up to 0.9 s, and CBC's bound at
 * 0.3 s is the same). */
#define COVER_SECONDS 1.0
#define COVER_RESOLVE_SECONDS 0.05

/* Largest graph (running nodes) whose cover runs before FastSA in a
 * solve. Past it the cover's model takes seconds to build and its plan
 * rarely fits a tight budget (llama_8k, 8.3K nodes, at 25 %: 2.1 s and
 * no plan, while FastSA waited), so the first plans come sooner without
 * it; the answer's bound still comes after the search (answer_cover). */
#define COVER_FIRST_MAX_NODES 2000

/* A re-solve runs the cover (its plan and the bound) only where the last
 * cover plan took at most this long: measured, the cover pieces
 * took a re-solve from 41-45 ms to 150-190 ms on densenet121 and lstm64
 * (they do not finish in 50 ms there). */
#define COVER_RESOLVE_MAX 0.03

/* Largest graph (running nodes) the exact member is tried on: its model
 * grows with the square of the nodes, and within a portfolio's seconds
 * CBC improves on the pool only on small graphs. */
#define EXACT_MAX_NODES 100

/* Seconds time_limit=auto adds for the exact member, which FastSA's share
 * does not take. Measured on fcn_8_vgg (73 nodes; the FastSA paper's CM1,
 * 9.4-9.7 s a cell there): at 90 % and 80 % the 9 s solve proves its plan
 * optimal in 5.5-6.6 s; at 70 % a 3.5 s solve gave +1.59 %, a 9 s one the
 * optimum, +0.89 %, in some runs and +1.46 % in others. On 20-node graphs
 * it reaches every bench optimum. CBC ends the solve when it proves it. */
#define EXACT_TIME 5.5

static int member_on(const Solver *s, const char *name)
{
    const char *list = solver_opt_str(s, "members");
    if (strcmp(list, "all") == 0)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* The exact member runs on this graph (exact=on, checkmate a member, at
 * most EXACT_MAX_NODES running nodes). */
static int exact_applies(const Solver *s)
{
    return graph_running_nodes(s->g) <= EXACT_MAX_NODES && strcmp(solver_opt_str(s, "exact"), "on") == 0 &&
           member_on(s, "checkmate");
}

static int auto_prepare(Solver *s, Err *e)
{
    Auto *a = s->state;
    a->last_pick = -1;
    a->exact_budget = -1;
    a->cover_secs = -1;
    a->needed_cost = graph_needed_cost(s->g);
    for (int i = 0; i <= TWIN_OF; i++)
        a->last_of[i] = -1;
    int rc;
    const char *tl = solver_opt_str(s, "time_limit");
    if (strcmp(tl, "auto") == 0) {
        double t = 2.0 + (double)s->g->n / 50.0;
        a->time_limit = t < 30 ? t : 30;
        if (exact_applies(s)) {
            a->exact_time = EXACT_TIME;
            a->time_limit += EXACT_TIME;
        }
    } else if ((rc = solver_opt_double(s, "time_limit", &a->time_limit, e))) {
        return rc;
    }
    if ((rc = solver_opt_double(s, "resolve_time", &a->resolve_time, e)) ||
        (rc = solver_opt_int(s, "seed", &a->seed, e)))
        return rc;
    /* names in members= must exist */
    const char *list = solver_opt_str(s, "members");
    if (strcmp(list, "all") != 0) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", list);
        for (char *sv = NULL, *n = strtok_r(buf, ",", &sv); n; n = strtok_r(NULL, ",", &sv)) {
            int known = strcmp(n, "fastsa") == 0 || strcmp(n, "checkmate") == 0 || strcmp(n, "cover") == 0 ||
                        strcmp(n, "cascade") == 0;
            for (int i = 0; i < N_MEMBERS; i++)
                known |= strcmp(n, MEMBERS[i].name) == 0;
            if (!known)
                return err_set(e, ERR_USAGE, "auto: members: no member '%s'", n);
        }
    }
    /* the FastSA member's options must be right now, not at the first solve */
    SolverOpts fo;
    solver_opts_init(&fo);
    char list2[512];
    snprintf(list2, sizeof list2, "%s", solver_opt_str(s, "fastsa"));
    for (char *sv = NULL, *kvp = strtok_r(list2, ";", &sv); kvp && !rc; kvp = strtok_r(NULL, ";", &sv))
        rc = solver_opts_add(&fo, kvp, e);
    for (int i = 0; i < fo.n && !rc; i++)
        if (!solver_param(solver_find("fastsa"), fo.key[i]))
            rc = err_set(e, ERR_USAGE, "auto: fastsa=: fastsa has no option '%s'", fo.key[i]);
    solver_opts_done(&fo);
    if (rc)
        return rc;
    for (int i = 0; i < N_MEMBERS; i++)
        a->refused[i] = !member_on(s, MEMBERS[i].name) || s->g->n > MEMBERS[i].max_nodes ||
                        (s->rule && !(solver_find(MEMBERS[i].name)->caps & SOLVER_CONSTRAINTS));
    return ERR_OK;
}

/* The member's options: the user's pins and forces pass on. */
static void member_opts(const Solver *s, SolverOpts *o)
{
    solver_opts_init(o);
    Err e;
    for (int i = 0; i < s->opts.n; i++)
        if (strcmp(s->opts.key[i], "pin") == 0 || strcmp(s->opts.key[i], "force") == 0) {
            char kv[2048];
            snprintf(kv, sizeof kv, "%s=%s", s->opts.key[i], s->opts.val[i]);
            solver_opts_add(o, kv, &e);
        }
}

/* Member i, created on first use under the deadline d; NULL when it
 * refuses the graph (remembered) or was cancelled (retried next time). */
static Solver *member(Solver *s, int i, Progress *d)
{
    Auto *a = s->state;
    if (a->m[i] || a->refused[i])
        return a->m[i];
    SolverOpts o;
    member_opts(s, &o);
    Err e;
    err_clear(&e);
    a->m[i] = solver_new_cancellable(solver_find(MEMBERS[i].name), s->g, &o, d, &e);
    solver_opts_done(&o);
    if (!a->m[i] && e.code != ERR_CANCELLED)
        a->refused[i] = 1;
    return a->m[i];
}

/* Pool a schedule unless the same one is there already (re-solves for the
 * slider offer the same family picks again and again). */
static int pool_add(Solver *s, const int *steps, int T, const char *origin)
{
    Sim sim;
    Err e;
    if (sim_run(s->g, steps, T, &sim, &e) != ERR_OK)
        return -1;
    int64_t pk = sim.peak;
    double c = sim.cost;
    sim_done(&sim);
    for (int i = 0; i < s->cands.n; i++) {
        const Cand *x = &s->cands.c[i];
        if (x->peak == pk && x->cost == c && x->T == T &&
            memcmp(x->steps, steps, (size_t)T * sizeof *steps) == 0)
            return i;
    }
    int *own = xmallocarray((size_t)T + 1, sizeof *own);
    memcpy(own, steps, (size_t)T * sizeof *own);
    return cands_add(&s->cands, own, T, pk, c, 0, NULL, origin);
}

/* Offer the pool's pick to the caller's listener through the solve's
 * relay (which passes it on when it fits the budget and is cheaper than
 * the last plan passed on), so the explorer shows each improvement while
 * the solve goes on. */
static void offer_pick(Solver *s, int64_t budget, Relay *r)
{
    if (!r->up || !r->up->offer)
        return;
    int i = cands_pick(&s->cands, budget);
    if (i < 0)
        return;
    const Cand *c = &s->cands.c[i];
    double last = relay_offered(r);
    if ((budget != PLAN_NO_BUDGET && c->peak > budget) || (last >= 0 && c->cost >= last))
        return;
    Plan pl;
    plan_init(&pl);
    Err e;
    if (cands_emit(&s->cands, i, &pl, NULL, &e) == ERR_OK)
        relay_offer(r, pl.steps, pl.T, c->origin);
    plan_done(&pl);
}

/* The FastSA member's options: the user's pins and forces, the seed, then
 * `extra` (NULL: none; it comes before the fastsa= list, so it wins), then
 * the user's fastsa= list. */
static void fastsa_opts(const Solver *s, long long seed, const char *extra, SolverOpts *o)
{
    member_opts(s, o);
    Err e;
    char kv[64];
    snprintf(kv, sizeof kv, "seed=%lld", seed);
    solver_opts_add(o, kv, &e);
    if (extra)
        solver_opts_add(o, extra, &e);
    char list[512];
    snprintf(list, sizeof list, "%s", solver_opt_str(s, "fastsa"));
    for (char *sv = NULL, *kvp = strtok_r(list, ";", &sv); kvp; kvp = strtok_r(NULL, ";", &sv))
        solver_opts_add(o, kvp, &e);
}

static Solver *fastsa_member(Solver *s)
{
    Auto *a = s->state;
    if (a->fsa || !member_on(s, "fastsa"))
        return a->fsa;
    /* its own seeds stay on although the members above ran the same
     * solvers: then its search holds every run a standalone fastsa makes
     * (same starts, same random streams), so auto is never worse */
    SolverOpts o;
    fastsa_opts(s, a->seed, NULL, &o);
    Err e;
    a->fsa = solver_new(solver_find("fastsa"), s->g, &o, &e);
    solver_opts_done(&o);
    return a->fsa;
}

/* Run member i's solver m for budget and pool its schedule. */
static void pool_plan(Solver *s, int i, Solver *m, int64_t budget, const Plan *prev, Progress *p)
{
    Plan pl;
    plan_init(&pl);
    Err e;
    err_clear(&e);
    int rc = solver_plan(m, budget, prev, &pl, p, &e);
    if ((rc == ERR_OK || rc == ERR_OVER_BUDGET) && pl.T > 0) {
        ((Auto *)s->state)->last_of[i] = pool_add(s, pl.steps, pl.T, m->cls->name);
        /* FastSA's seeds are members too: it starts from this plan
         * without making it again */
        Solver *f = fastsa_member(s);
        if (f)
            fastsa_seed_plan(f, m->cls->name, budget, pl.steps, pl.T);
    }
    plan_done(&pl);
}

/* Plans of the pool's best for budget: the pick and the lowest peak. */
static int best_starts(const Solver *s, int64_t budget, Plan *starts)
{
    int n = 0, i1 = cands_pick(&s->cands, budget), i2 = cands_pick_lowest(&s->cands);
    Err e;
    if (i1 >= 0 && cands_emit(&s->cands, i1, &starts[n], NULL, &e) == ERR_OK)
        n++;
    if (i2 >= 0 && i2 != i1 && cands_emit(&s->cands, i2, &starts[n], NULL, &e) == ERR_OK)
        n++;
    return n;
}

/* The cascade LP's plan (cascade_plan: the graph's order, reruns where the
 * LP's fractional choice says), made on a thread of its own while FastSA
 * searches. On a transformer at 25 % the cover's choice pays for long
 * chains and the LP's does not (opt_6_7b at 25 %, unit costs: +23.15 %,
 * where FastSA alone ended at +26.5 %), so FastSA runs from each plan it
 * finds (held in the relay). Its LP is solved in a child process
 * (subproc.h): on two cores the search beside it loses nothing, where
 * before it waited (llama_7b at 25 %, FLOP costs: 2.6 s for a plan that
 * did not fit). Not on orders the exact search settles, nor with
 * pin=/force=, which it knows nothing of.
 *
 * The LP starts with the solve, beside the quick members, so its plan
 * comes that much sooner (llama_7b at 25 %, FLOP costs: the members take
 * 0.85 s, the LP and its roundings about 2 s, and the cascade's plan is
 * the answer).
 *
 * Once the LP is done, the thread searches on with a second FastSA (the
 * twin: another seed, no seed solvers of its own), from the pool's best
 * and the cascade's plan, until FastSA ends; the two exchange nothing but
 * what the relay holds, where the first search takes the twin's cheaper
 * plans between its runs. Time-limited annealing runs differ a lot by
 * their random stream (resnet50 at 25 %, FLOP costs, seeds 1-3: +17.3,
 * +20.5, +12.7 %; with the twin +12.3, +11.9, +11.9 %), and the LP
 * leaves the second core idle after its few seconds. The pool's best are
 * known once the members and the cover are done (cascade_go): the twin
 * waits for them. */
typedef struct {
    const Graph *g;
    int64_t budget;
    double seconds, more;   /* the first LP's time; the rounds' (cascade_plan) */
    Deadline d;             /* its Progress: the caller's cancel, the relay's listener */
    Plan pl;
    double bound;
    int rc, started;
    pthread_t th;
    /* the twin (tw_on 0: none) */
    int tw_on, tw_n;
    SolverOpts tw_opts;
    Plan tw_starts[3];      /* the pool's best two; the cascade's plan joins them */
    pthread_mutex_t mu;     /* guards go, which the twin waits on */
    pthread_cond_t cv;
    int go;                 /* 0: starts not given yet; 1: given (cascade_go); -1: no twin */
    double tw_end;          /* when it ends at the latest (clock_now) */
    Deadline twd;           /* the caller's cancel; cascade_join's stop */
    Relay *r;
    Plan tw_best;           /* the last plan it offered, else its answer */
    Solver *tw;             /* its solver, kept for describe (NULL: none ran) */
} Cascade;

/* The twin's listener: keep its latest plan (the twin's thread alone
 * writes it; it is read after the join) and pass it to the relay, which
 * holds it for the first search. */
static void twin_offer(void *ctx, const int *steps, int T, const char *origin)
{
    Cascade *c = ctx;
    plan_set_steps(&c->tw_best, steps, T);
    relay_offer_held(c->r, steps, T, origin);
}

/* Twins shorter than this are not started: a run needs about a second to
 * cool on a thousand-node graph. */
#define TWIN_MIN_SECONDS 1.0

static void twin_run(Cascade *c)
{
    pthread_mutex_lock(&c->mu);
    while (c->go == 0)
        pthread_cond_wait(&c->cv, &c->mu);
    int go = c->go;
    pthread_mutex_unlock(&c->mu);
    if (go < 0)
        return;
    double left = c->tw_end - clock_now();
    if (left < TWIN_MIN_SECONDS || progress_cancelled(&c->twd.child))
        return;
    Err e;
    err_clear(&e);
    Solver *f = solver_new(solver_find("fastsa"), c->g, &c->tw_opts, &e);
    if (!f)
        return;
    int n = c->tw_n;
    if (c->rc == ERR_OK && c->pl.T > 0)
        plan_copy(&c->tw_starts[n++], &c->pl);
    Plan out;
    plan_init(&out);
    if (fastsa_search_from(f, c->budget, c->tw_starts, n, c->tw_end - clock_now(), 1, NULL, &out,
                           &c->twd.child, &e) == ERR_OK &&
        out.T > 0)
        plan_swap_steps(&c->tw_best, &out);
    plan_done(&out);
    c->tw = f;
}

/* The LP's bound, told through the relay (relay_bound) as soon as its
 * first round has it, ends FastSA's search once a plan at hand is within
 * half a thousandth of it (relay_enough), and the explorer shows the gap
 * while the solve refines. The bound is over the graph's order: as with
 * the cover's (pool_meets), a plan in another order may be cheaper. */

static void *cascade_main(void *arg)
{
    Cascade *c = arg;
    Err e;
    err_clear(&e);
    c->rc = cascade_plan(c->g, c->budget, c->seconds, c->more, &c->d.child, &c->pl, &c->bound, &e);
    if (c->tw_on)
        twin_run(c);
    return NULL;
}

/* Start the cascade's thread (where it applies), its twin to follow it
 * until `end` when FastSA is a member, from the starts cascade_go gives
 * it; cascade_join ends both. */
static void cascade_start(Solver *s, int64_t budget, double seconds, double more, double end, Relay *r,
                          Progress *p, Cascade *c)
{
    c->started = 0;
    if (budget == PLAN_NO_BUDGET || seconds < 1 || !member_on(s, "cascade") || s->rule ||
        graph_running_nodes(s->g) <= ORDER_SEARCH_MAX)
        return;
    *c = (Cascade){.g = s->g, .budget = budget, .seconds = seconds, .more = more, .bound = -1, .rc = ERR_CANCELLED,
                   .started = 1, .r = r, .tw_end = end};
    plan_init(&c->pl);
    plan_init(&c->tw_best);
    for (int i = 0; i < 3; i++)
        plan_init(&c->tw_starts[i]);
    /* the LP keeps its own time; the deadline carries the caller's cancel */
    deadline_start(&c->d, p, seconds + 1);
    c->d.child.offer = relay_offer_held;
    c->d.child.on_bound = relay_bound;
    c->d.child.offer_ctx = r;
    Auto *a = s->state;
    c->tw_on = fastsa_member(s) != NULL;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (c->tw_on) {
        fastsa_opts(s, a->seed + 1, "seeds=none", &c->tw_opts);
        deadline_start(&c->twd, p, end - clock_now() + 1);
        c->twd.child.offer = twin_offer;
        c->twd.child.offer_ctx = c;
    }
    if (pthread_create(&c->th, NULL, cascade_main, c) != 0) {
        int tw = c->tw_on;
        c->tw_on = 0;       /* no thread: the LP in turn, as a member; no twin */
        cascade_main(c);
        c->tw_on = tw;
        c->started = 2;
    }
}

/* Give the twin its starts, the pool's best two (it waits for them until
 * then), or, with go -1, tell it not to run. */
static void cascade_go(Solver *s, Cascade *c, int go)
{
    if (!c->started)
        return;
    pthread_mutex_lock(&c->mu);
    if (go > 0 && c->tw_on && c->go == 0)
        c->tw_n = best_starts(s, c->budget, c->tw_starts);
    if (c->go == 0)
        c->go = go;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Stop the twin (and with `stop`, the LP), wait for the cascade's
 * thread, pool both plans and remember the LP's bound. */
static void cascade_join(Solver *s, Cascade *c, int stop)
{
    if (!c->started)
        return;
    if (stop)
        atomic_store(&c->d.child.cancel, 1);
    if (c->tw_on)
        atomic_store(&c->twd.child.cancel, 1);
    cascade_go(s, c, -1);   /* a twin still waiting for its starts: none */
    if (c->started == 1)
        pthread_join(c->th, NULL);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    deadline_stop(&c->d);
    if (c->rc == ERR_OK && c->pl.T > 0)
        pool_add(s, c->pl.steps, c->pl.T, "cascade");
    if (c->tw_on) {
        deadline_stop(&c->twd);
        Auto *a = s->state;
        if (c->tw_best.T > 0 && c->tw) {  /* its solver tells how it found its plan */
            a->last_of[TWIN_OF] = pool_add(s, c->tw_best.steps, c->tw_best.T, "fastsa");
            solver_free(a->twin);
            a->twin = c->tw;
        } else {
            solver_free(c->tw);
        }
        solver_opts_done(&c->tw_opts);
        for (int i = 0; i < 3; i++)
            plan_done(&c->tw_starts[i]);
    }
    plan_done(&c->tw_best);
    /* its LP bounds the graph's order too: the answer's bound, which has
     * the solve's last second, finds it cached (a caller with more time
     * than this solves the whole bound again) */
    bound_cover_remember(s->g, c->budget, c->seconds, c->bound);
    plan_done(&c->pl);
    c->started = 0;
}

/* FastSA from the pool's best plans, for `seconds`, pooled; in a solve it
 * also runs from the plans the cascade's thread holds in `in` (NULL:
 * none), and c (NULL: none) is joined before FastSA's plan is pooled, so
 * a plan both made is named for the cascade, which made it first. */
static int run_fastsa(Solver *s, int64_t budget, double seconds, int full, Relay *in, Cascade *c, Progress *p,
                      Err *e)
{
    Solver *f = fastsa_member(s);
    if (!f || seconds <= 0.005) {
        if (c)
            cascade_join(s, c, 0);
        return ERR_OK;
    }
    Plan starts[2], out;
    for (int i = 0; i < 2; i++)
        plan_init(&starts[i]);
    plan_init(&out);
    int n = best_starts(s, budget, starts);
    /* a re-solve is one warm run from the pick; a solve, a full search */
    int rc = full || n ? fastsa_search_from(f, budget, starts, full ? n : 1, seconds, full, in, &out, p, e)
                       : ERR_OK;
    if (c)
        cascade_join(s, c, 0);
    if (rc == ERR_OK && out.T > 0)
        ((Auto *)s->state)->last_of[N_MEMBERS] = pool_add(s, out.steps, out.T, "fastsa");
    for (int i = 0; i < 2; i++)
        plan_done(&starts[i]);
    plan_done(&out);
    return rc == ERR_CANCELLED ? rc : ERR_OK;
}

/* The cover's plan (checkmate.h: the graph's order, reruns where the cover
 * bound says memory must be freed), pooled; FastSA starts from it when it
 * is the best. Where the bound is tight it is the optimum in that order:
 * on Moccasin's ResNet-50 training graph at 90/80/70 % it is +0.108/
 * +0.279/+0.564 %, each at its bound, where FastSA gave +0.12/+0.32/+0.62 %. */
static int run_cover(Solver *s, int64_t budget, double seconds, Progress *p, double *bound)
{
    *bound = -1;
    /* the cover's plan knows nothing of pin=/force= */
    if (budget == PLAN_NO_BUDGET || seconds < 0.05 || !member_on(s, "cover") || s->rule)
        return ERR_OK;
    Auto *a = s->state;
    Plan pl;
    plan_init(&pl);
    Err e;
    double t0 = clock_now();
    int rc = cover_plan(s->g, budget, seconds, p, &pl, bound, &e);
    a->cover_secs = rc == ERR_OK ? clock_now() - t0 : -1;
    if (rc == ERR_OK && pl.T > 0)
        pool_add(s, pl.steps, pl.T, "cover");
    bound_cover_remember(s->g, budget, seconds, *bound);
    plan_done(&pl);
    return rc == ERR_CANCELLED || progress_cancelled(p) ? ERR_CANCELLED : ERR_OK;
}

/* Most seconds the cascade LP's rounds take in a solve, and their share
 * of the time limit: its LP takes 0.2-7 s on bench_paper's 1K-4K-node
 * graphs at 25 %, and the twin needs the rest. The first LP may take
 * longer: on the 8.3K-node LLaMA-shaped graph at 25 % (FLOP costs) it
 * takes 9 s and its plan costs +13.0 %, where with 6 s there was none and
 * the answer was FastSA's +14.9 %. */
#define CASCADE_PLAN_SECONDS 8.0
#define CASCADE_PLAN_SHARE 0.2
#define CASCADE_FIRST_SECONDS 12.0
#define CASCADE_FIRST_SHARE 0.4

/* Does the pool's pick run each node some output needs once and no node
 * again, so that no plan is cheaper and the search may end? At a budget
 * at the baseline peak or above, noremat's plan does: on the 8.3K-node
 * LLaMA-shaped graph the explorer's solve at the baseline had gone on
 * for 29 s (FastSA its whole time) before it said so. */
static int pool_meets_needed(const Solver *s, int64_t budget)
{
    int i = cands_pick(&s->cands, budget);
    return budget != PLAN_NO_BUDGET && i >= 0 && s->cands.c[i].peak <= budget &&
           s->cands.c[i].cost <= ((const Auto *)s->state)->needed_cost * (1 + 1e-9);
}

/* Does the pool's pick meet the graph order's bound, so that the search
 * may end (a plan in the graph's order at it is optimal there, and no
 * search can do better in that order; the proof is answer()'s)? Not a
 * pick below it: that one left the order, and others may go further
 * (relay_enough's tiny_gpt). Not on
 * graphs of at most ORDER_SEARCH_MAX nodes, where the bound is the order's
 * own optimum (order_search): there the rest of the search is cheap and
 * another order can be cheaper (the 20-node random training graph
 * half-way down: 97000001 in the graph's order, 92000001 in fastsa's). */
static int pool_meets(const Solver *s, int64_t budget, double bound)
{
    int i = cands_pick(&s->cands, budget);
    return graph_running_nodes(s->g) > ORDER_SEARCH_MAX && bound > 0 && i >= 0 &&
           s->cands.c[i].peak <= budget && s->cands.c[i].cost <= bound * (1 + 1e-9) &&
           s->cands.c[i].cost >= bound * (1 - 1e-9);
}

/* Seconds a solve gives the bound over every order before FastSA, on
 * graphs the cover runs on first (at most 2,000 nodes: its first X takes
 * milliseconds there; 0.06 s on lstm64's 2.3K nodes). */
#define ANY_SECONDS 0.1

/* Does the pool's pick meet the bound over every order (src/plan/bound.h
 * bound_any; cached, `seconds` 0 only looks), so that no schedule at all
 * is cheaper and the search may end? On chain32 at 26 B chen's plan
 * does (74), and auto's answer had come after FastSA's 1.7 s. */
static int pool_meets_any(const Solver *s, int64_t budget, double seconds, Progress *p)
{
    int i = cands_pick(&s->cands, budget);
    double lb;
    if (budget == PLAN_NO_BUDGET || i < 0 || s->cands.c[i].peak > budget ||
        graph_running_nodes(s->g) > COVER_FIRST_MAX_NODES)
        return 0;
    return bound_any(s->g, budget, seconds, p, &lb, NULL) == ERR_OK && s->cands.c[i].cost <= lb * (1 + 1e-9);
}

/* Checkmate's MILP for the time left, from the pool's best plan, pooled.
 * FastSA stops early on small graphs (its runs stall), so the time is often
 * most of the portfolio's: measured on 20-node training graphs at tight
 * budgets, the pool was up to 15 % dearer than the MILP's optimum, which
 * CBC proves there in about a second. */
static int run_exact(Solver *s, int64_t budget, double seconds, Progress *p)
{
    if (seconds < 0.25 || !exact_applies(s))
        return ERR_OK;
    Plan start, out;
    plan_init(&start);
    plan_init(&out);
    Err e;
    err_clear(&e);
    int i = cands_pick(&s->cands, budget);
    if (i >= 0 && cands_emit(&s->cands, i, &start, NULL, &e) == ERR_OK) {
        start.peak = s->cands.c[i].peak;    /* checkmate's start must fit */
        start.cost = s->cands.c[i].cost;
    } else {
        plan_reset(&start);
    }
    SolverOpts o;
    member_opts(s, &o);
    char kv[64];
    snprintf(kv, sizeof kv, "time_limit=%g", seconds);
    solver_opts_add(&o, kv, &e);
    Solver *cm = solver_new_cancellable(solver_find("checkmate"), s->g, &o, p, &e);
    solver_opts_done(&o);
    int rc = ERR_OK;
    if (cm) {
        rc = checkmate_solve_from(cm, budget, start.T ? &start : NULL, &out, p, &e);
        if (rc == ERR_OK && out.T > 0)
            pool_add(s, out.steps, out.T, "checkmate");
        if (rc == ERR_OK && out.bound > 0) {   /* 0: CBC gave none */
            Auto *a = s->state;
            a->exact_bound = out.bound;
            a->exact_budget = budget;
        }
        solver_free(cm);
    }
    plan_done(&start);
    plan_done(&out);
    return rc == ERR_CANCELLED || progress_cancelled(p) ? ERR_CANCELLED : ERR_OK;
}

/* How many of the pool's cheapest plans within the budget a solve tidies. */
#define TIDY_MOST 8

/* Pool index j is a tidied copy of i. */
static void note_tidied(Auto *a, int j, int i)
{
    if (j < 0 || j == i)
        return;
    if (j >= a->n_tidied) {
        int n = j + 16;
        a->tidied_from = xreallocarray(a->tidied_from, (size_t)n, sizeof *a->tidied_from);
        for (int k = a->n_tidied; k < n; k++)
            a->tidied_from[k] = -1;
        a->n_tidied = n;
    }
    a->tidied_from[j] = i;
}

/* Pool a tidied copy (plan_tidy: reruns a kept copy can serve, dropped
 * within the budget) of the cheapest plans that fit, beside the members'
 * plans as their solvers made them. Measured by bench_tidy at 70 %:
 * resnet50's chen and twremat plans fall from +27 %/+245 % to +8 %/+11 %,
 * densenet121's fastsa plan from +0.136 % to +0.107 %. A full solve only:
 * on 2K-node graphs a slider re-solve has no time for it; and past the
 * solve's end only the cheapest (a 27K-step plan takes 0.17 s). */
static void pool_tidy(Solver *s, int64_t budget, double end)
{
    if (budget == PLAN_NO_BUDGET)
        return;
    int n = s->cands.n, done = 0;
    unsigned char *seen = xcalloc((size_t)n + 1, 1);
    while (done < TIDY_MOST && (done == 0 || clock_now() < end)) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!seen[i] && s->cands.c[i].peak <= budget &&
                (best < 0 || s->cands.c[i].cost < s->cands.c[best].cost))
                best = i;
        if (best < 0)
            break;
        seen[best] = 1;
        done++;
        Plan pl;
        plan_init(&pl);
        Err e;
        if (cands_emit(&s->cands, best, &pl, NULL, &e) == ERR_OK &&
            plan_tidy(s->g, pl.steps, &pl.T, budget, s->rule) > 0)
            note_tidied(s->state, pool_add(s, pl.steps, pl.T, s->cands.c[best].origin), best);
        plan_done(&pl);
    }
    free(seen);
}

/* The lower bound for the answer when the exact member gave none: the
 * cover bound over the graph's order and the plan's (src/plan/bound.h,
 * one cache for the program). A bound not found within `seconds` (0: only
 * what is cached) leaves none. */
static void answer_cover(Solver *s, int i, int64_t budget, Plan *out, double seconds, Progress *p)
{
    double lb;
    Err e;
    err_clear(&e);
    /* a bound holds at its own budget only: a larger one allows cheaper
     * plans; and a pick cheaper than it left both orders, so nothing is
     * claimed for it */
    if (bound_cover(s->g, out->steps, out->T, budget, seconds, p, &lb, &e) == ERR_OK && lb > 0 &&
        s->cands.c[i].cost >= lb * (1 - 1e-9)) {
        out->bound = lb;
        out->optimal = s->cands.c[i].cost <= lb * (1 + 1e-9);
    }
}

/* The pool's pick, or a member's family pick when it is better, into out,
 * with a lower bound where one is known. */
static int answer(Solver *s, int64_t budget, Plan *out, double bound_seconds, Progress *p, Err *e)
{
    int i = cands_pick(&s->cands, budget);
    if (i < 0)
        return err_set(e, ERR_UNSUPPORTED, "auto: no member produced a plan for this graph");
    int rc = cands_emit(&s->cands, i, out, p, e);
    if (rc == ERR_OK)
        plan_set_origin(out, s->cands.c[i].origin);
    Auto *a = s->state;
    a->last_pick = i;
    /* The exact member's bound holds at its own budget only (a larger one
     * allows cheaper plans), and for plans in its model: a plan cheaper
     * than it comes from another order, and nothing is claimed for it. */
    const Cand *c = &s->cands.c[i];
    if (rc == ERR_OK && pool_meets_needed(s, budget)) {
        out->bound = a->needed_cost;
        out->optimal = 1;
    } else if (rc == ERR_OK && budget != PLAN_NO_BUDGET && budget == a->exact_budget && c->peak <= budget &&
        c->cost >= a->exact_bound * (1 - 1e-9)) {
        out->bound = a->exact_bound;
        out->optimal = c->cost <= a->exact_bound * (1 + 1e-9);
    } else if (rc == ERR_OK && budget != PLAN_NO_BUDGET && c->peak <= budget) {
        answer_cover(s, i, budget, out, bound_seconds, p);
    }
    return rc;
}

/* Of a solve's time limit, what is kept for the tidy and the lower bound
 * after the search, so the answer comes by the limit: on the FastSA
 * paper's large models (bench_paper) solves had ended 1-3 s past it.
 * Beyond CBC's own seconds the bound has work that grows with the graph
 * (answer_overhead): the model for the pick's order when that is not the
 * graph's (cached otherwise), and the bound over every order's first node
 * and pair, tried whatever the time. On the 8,344-node LLaMA-shaped graph
 * at 50 % (dtr's plan, in its own order) they took 0.43 and 1.14 s, and
 * the solve ended at 30.9 s of its 30 with the half second kept before;
 * about half a second at 4K nodes. */
#define ANSWER_SHARE 0.07
#define ANSWER_MOST 2.0

static double answer_overhead(const Graph *g)
{
    return g->n > 1000 ? 0.2 * (g->n - 1000) / 1000.0 : 0;
}

/* The solve's search: the cascade LP on its own thread, the members in
 * turn and the cover beside it, then FastSA (and the cascade's twin),
 * then the exact member.
 * Plans are offered through r; sp carries the caller's cancel (p gets the
 * progress). ERR_CANCELLED when cancelled. */
static int search_all(Solver *s, int64_t budget, double t0, double search_end, Progress *p, Progress *sp,
                      Relay *r)
{
    Auto *a = s->state;
    /* the cascade LP on its thread from the start, beside the members */
    Cascade c;
    double cl = search_end - a->exact_time - clock_now();
    cascade_start(s, budget, fmin(fmin(CASCADE_FIRST_SECONDS, CASCADE_FIRST_SHARE * a->time_limit), cl),
                  fmin(fmin(CASCADE_PLAN_SECONDS, CASCADE_PLAN_SHARE * a->time_limit), cl),
                  search_end - a->exact_time, r, sp, &c);
    /* the quick members share at most half the time; each one at most
     * what is left of that half */
    double members_end = t0 + a->time_limit * 0.5;
    int done = 0;
    for (int i = 0; i < N_MEMBERS && !done; i++) {
        double left = members_end - clock_now();
        if (left <= 0.01)
            break;
        Deadline d;
        deadline_start(&d, sp, left);
        Solver *m = member(s, i, &d.child);
        if (m)
            pool_plan(s, i, m, budget, NULL, &d.child);
        deadline_stop(&d);
        if (progress_cancelled(sp)) {
            cascade_join(s, &c, 1);
            return ERR_CANCELLED;
        }
        offer_pick(s, budget, r);
        progress_set(p, 0.5 * (i + 1) / N_MEMBERS);
        done = pool_meets_needed(s, budget);
    }
    double cover = -1;
    if (!done && graph_running_nodes(s->g) <= COVER_FIRST_MAX_NODES &&
        run_cover(s, budget, fmin(COVER_SECONDS, search_end - a->exact_time - clock_now()), sp, &cover) ==
        ERR_CANCELLED) {
        cascade_join(s, &c, 1);
        return ERR_CANCELLED;
    }
    /* a pick at the graph order's bound ends the search, and one at the
     * bound over every order */
    done = done || pool_meets(s, budget, cover) || pool_meets_any(s, budget, ANY_SECONDS, sp);
    double any;     /* the bound over every order, where it was found: the searches' floor */
    if (!done && budget != PLAN_NO_BUDGET && graph_running_nodes(s->g) <= COVER_FIRST_MAX_NODES &&
        bound_any(s->g, budget, 0, sp, &any, NULL) == ERR_OK)
        relay_set_floor(r, any);
    int rc = ERR_OK;
    offer_pick(s, budget, r);
    if (!done) {
        cascade_go(s, &c, 1);
        Err e;
        err_clear(&e);
        rc = run_fastsa(s, budget, search_end - a->exact_time - clock_now(), 1, r, &c, sp, &e);
        done = pool_meets(s, budget, cover) || pool_meets_any(s, budget, 0, sp);
    } else {
        cascade_join(s, &c, 1);
    }
    if (rc != ERR_CANCELLED && !progress_cancelled(sp) && !done) {
        offer_pick(s, budget, r);
        rc = run_exact(s, budget, search_end - clock_now(), sp);
    }
    return rc == ERR_CANCELLED || progress_cancelled(sp) ? ERR_CANCELLED : ERR_OK;
}

static int auto_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    Auto *a = s->state;
    double t0 = clock_now(), end = t0 + a->time_limit;
    double keep = fmin(ANSWER_MOST, ANSWER_SHARE * a->time_limit) + answer_overhead(s->g), search_end = end - keep;
    /* every plan offered on the way passes the relay, as two threads
     * offer at once while the cascade LP is solved beside FastSA; sp is
     * the solve's own Progress: the caller's cancel, the relay's listener */
    Relay r;
    relay_init(&r, s->g, budget, p, -1);
    relay_set_floor(&r, a->needed_cost);
    Deadline sd;
    deadline_start(&sd, p, 1e9);
    if (p && p->offer) {
        sd.child.offer = relay_offer;
        sd.child.offer_ctx = &r;
    }
    int rc = search_all(s, budget, t0, search_end, p, &sd.child, &r);
    deadline_stop(&sd);
    relay_done(&r);
    if (rc == ERR_CANCELLED || progress_cancelled(p))
        return err_set(e, ERR_CANCELLED, "auto: cancelled");
    pool_tidy(s, budget, end - 0.75 * keep);
    /* the bound gets what is left of the limit (none: only a cached one) */
    double left = fmin(COVER_SECONDS, end - clock_now() - answer_overhead(s->g));
    rc = answer(s, budget, out, left >= 0.05 ? left : 0, p, e);
    progress_set(p, 1.0);
    return rc;
}

static int auto_resolve(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p,
                        Err *e)
{
    (void)prev;
    Auto *a = s->state;
    if (!s->cands.n)    /* nothing in hand yet: the first answer is a solve */
        return auto_solve(s, budget, out, p, e);
    for (int i = 0; i < N_MEMBERS; i++) {
        if (!a->m[i] || !(MEMBERS[i].pick || MEMBERS[i].quick))
            continue;
        /* a family member's pick is a lookup; a quick member runs again */
        Deadline d;
        deadline_start(&d, p, MEMBERS[i].quick ? QUICK_MEMBER_SECONDS : 1e9);
        pool_plan(s, i, a->m[i], budget, NULL, &d.child);
        deadline_stop(&d);
        if (progress_cancelled(p))
            return err_set(e, ERR_CANCELLED, "auto: cancelled");
    }
    /* where the cover is quick, its plan, and when that meets its bound it
     * is the answer: nothing in the graph's order is cheaper */
    int quick = a->cover_secs >= 0 && a->cover_secs <= COVER_RESOLVE_MAX;
    double cover = -1;
    if (quick && !pool_meets_needed(s, budget) &&
        run_cover(s, budget, COVER_RESOLVE_SECONDS, p, &cover) == ERR_CANCELLED)
        return err_set(e, ERR_CANCELLED, "auto: cancelled");
    if (!pool_meets_needed(s, budget) && !pool_meets(s, budget, cover) &&
        !pool_meets_any(s, budget, quick ? COVER_RESOLVE_SECONDS : 0, p) &&
        run_fastsa(s, budget, a->resolve_time, 0, NULL, NULL, p, e) == ERR_CANCELLED)
        return err_set(e, ERR_CANCELLED, "auto: cancelled");
    return answer(s, budget, out, quick ? COVER_RESOLVE_SECONDS : 0, p, e);
}

/* The winner's own structure when the member's last plan is the answer
 * (its describe speaks of its last solve), else who made it. */
static void auto_describe(const Solver *s, Overlay *out)
{
    const Auto *a = s->state;
    if (a->last_pick < 0 || a->last_pick >= s->cands.n)
        return;
    const char *who = s->cands.c[a->last_pick].origin;
    /* the pick, else the plan it was tidied from, and so on */
    for (int want = a->last_pick, hops = 0; want >= 0 && hops < 8; hops++) {
        for (int i = 0; i <= TWIN_OF; i++) {
            Solver *m = i < N_MEMBERS ? a->m[i] : i == N_MEMBERS ? a->fsa : a->twin;
            /* the member that made the plan: two members may return the
             * same schedule (greedy's and twremat's on kumar_fig1), which
             * the pool keeps once, under the first one's name */
            if (!m || a->last_of[i] != want || !m->cls->describe || strcmp(m->cls->name, who))
                continue;
            m->cls->describe(m, out);
            overlay_set_titlef(out, "auto, %s's plan%s%s: %s", who, i == TWIN_OF ? " (its second search)" : "",
                               want != a->last_pick ? ", tidied" : "", out->title ? out->title : m->cls->name);
            return;
        }
        want = want < a->n_tidied ? a->tidied_from[want] : -1;
    }
    overlay_set_titlef(out, "auto, %s's plan: no structure of its own to show", who);
}

static void auto_adopt(Solver *s, const int *steps, int T, const char *origin)
{
    pool_add(s, steps, T, origin);
}

static void auto_release(Solver *s)
{
    Auto *a = s->state;
    for (int i = 0; i < N_MEMBERS; i++)
        solver_free(a->m[i]);
    solver_free(a->fsa);
    solver_free(a->twin);
    free(a->tidied_from);
}

const SolverClass solver_auto = {
    .name = "auto",
    .title = "Portfolio: every solver that applies within a time budget, the best plan wins (named in the plan)",
    .caps = SOLVER_CONSTRAINTS,
    .optimal_among = "among plans whose first runs follow the graph's order or this plan's",
    .params = params,
    .state_size = sizeof(Auto),
    .prepare = auto_prepare,
    .solve = auto_solve,
    .resolve = auto_resolve,
    .describe = auto_describe,
    .adopt = auto_adopt,
    .release = auto_release,
};
