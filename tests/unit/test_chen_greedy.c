/* test_chen_greedy.c — the chen (segment checkpointing) and greedy
 * (GreedyRemat) solvers: Kumar et al.'s Figure 1 exactly, chains, refusals,
 * and random small training graphs re-validated with tu_check_peak. */
#include "testutil.h"

#include "solvers/greedy.h"
#include "src/base/xalloc.h"
#include "src/graph/transform.h"

static const char *FIG1 = "A; B:A; C:B; D:B,C; E:A,D";

static int64_t noremat_peak(const Graph *g)
{
    Plan p;
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &p, NULL), ERR_OK);
    int64_t pk = p.peak;
    plan_done(&p);
    return pk;
}

static void test_greedy_fig1_budget3(void **state TU_UNUSED)
{
    Graph *g = tu_graph(FIG1);
    Plan p;
    assert_int_equal(tu_solve(g, "greedy", 3, &p, NULL), ERR_OK);
    assert_int_equal(p.peak, 3);
    assert_true(p.cost == 6);
    assert_int_equal(p.T, 6);
    const char *want[] = {"A", "B", "C", "D", "A", "E"};
    for (int t = 0; t < 6; t++)
        assert_string_equal(g->nodes[p.steps[t]].id, want[t]);
    tu_check_plan(g, &p);
    assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), 3);
    tu_end(g, NULL, &p, NULL);
}

static void test_greedy_fig1_equals_noremat(void **state TU_UNUSED)
{
    Graph *g = tu_graph(FIG1);
    Plan n, p;
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &n, NULL), ERR_OK);
    int64_t budgets[] = {PLAN_NO_BUDGET, 4};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tu_solve(g, "greedy", budgets[i], &p, NULL), ERR_OK);
        assert_int_equal(p.peak, 4);
        assert_true(p.cost == 5);
        assert_int_equal(p.T, n.T);
        assert_memory_equal(p.steps, n.steps, (size_t)n.T * sizeof *n.steps);
        tu_check_plan(g, &p);
        plan_done(&p);
    }
    tu_end(g, NULL, &n, NULL);
}

static void test_greedy_fig1_below_min_peak(void **state TU_UNUSED)
{
    Graph *g = tu_graph(FIG1);
    Plan p;
    assert_int_equal(tu_solve(g, "greedy", 2, &p, NULL), ERR_OVER_BUDGET);
    tu_end(g, NULL, &p, NULL);
}

static void test_chen_chain32(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("f", 0, 32);
    int64_t base = noremat_peak(g);
    assert_int_equal(base, 35); /* x, 32 forward values, loss, one gradient */
    Plan p;
    assert_int_equal(tu_solve(g, "chen", PLAN_NO_BUDGET, &p, NULL), ERR_OK);
    assert_true(p.peak < base);
    assert_true(p.recomputations > 0);
    tu_check_plan(g, &p);
    int64_t auto_peak = p.peak;
    plan_done(&p);

    /* with a budget: the cheapest segment count that fits */
    assert_int_equal(tu_solve(g, "chen", auto_peak, &p, NULL), ERR_OK);
    assert_true(p.peak <= auto_peak);
    tu_check_plan(g, &p);
    plan_done(&p);

    /* a fixed count; one segment recomputes nothing */
    const char *four[] = {"segments=4", NULL};
    assert_int_equal(tu_solve(g, "chen", PLAN_NO_BUDGET, &p, four), ERR_OK);
    assert_true(p.peak < base);
    tu_check_plan(g, &p);
    plan_done(&p);
    const char *one[] = {"segments=1", NULL};
    assert_int_equal(tu_solve(g, "chen", PLAN_NO_BUDGET, &p, one), ERR_OK);
    assert_int_equal(p.peak, base);
    assert_int_equal(p.recomputations, 0);
    tu_check_plan(g, &p);
    tu_end(g, NULL, &p, NULL);
}

static void test_chen_describe_and_resolve(void **state TU_UNUSED)
{
    Graph *g = tu_chain_training("f", 0, 16);
    Solver *s = tu_solver(g, "chen", NULL);
    Plan p, q;
    assert_int_equal(tu_plan(s, PLAN_NO_BUDGET, NULL, &p), ERR_OK);
    Overlay o;
    tu_describe(s, &o);
    assert_int_equal(o.n, 4); /* round(sqrt(16)) segments */
    int covered = 0;
    for (int i = 0; i < o.n; i++) {
        assert_int_equal(o.groups[i].kind, OVERLAY_SEGMENT);
        covered += o.groups[i].n;
    }
    assert_int_equal(covered, 16);
    overlay_done(&o);
    assert_int_equal(tu_plan(s, PLAN_NO_BUDGET, &p, &q), ERR_OK);
    assert_int_equal(q.T, p.T);
    assert_memory_equal(q.steps, p.steps, (size_t)p.T * sizeof *p.steps);
    tu_end(g, s, &p, &q, NULL);
}

static void expect_refusal(const Graph *g, const char *msg)
{
    Err e;
    Solver *s = tu_solver_new(g, "chen", NULL, &e);
    assert_null(s);
    assert_int_equal(e.code, ERR_UNSUPPORTED);
    if (!strstr(e.msg, msg))
        fail_msg("message '%s' lacks '%s'", e.msg, msg);
}

static void test_chen_refusals(void **state TU_UNUSED)
{
    /* two parallel chains into the loss: no node separates source from loss */
    Graph *g = tu_training("!x; A:x; B:x; C:A; D:B");
    expect_refusal(g, "no articulation points in the forward part");
    graph_free(g);
    Graph *f = tu_graph("!x; A:x; B:A");
    expect_refusal(f, "not a training graph");
    graph_free(f);
}

static void test_greedy_random(void **state TU_UNUSED)
{
    uint32_t seed = 12345;
    for (int iter = 0; iter < 200; iter++) {
        Graph *g = tu_random_training(&seed, 3);
        int64_t base = noremat_peak(g), lo = graph_min_peak(g, NULL);
        Plan p;
        assert_int_equal(tu_solve(g, "greedy", PLAN_NO_BUDGET, &p, NULL), ERR_OK);
        assert_true(p.peak <= base);
        tu_check_plan(g, &p);
        plan_done(&p);
        for (int64_t b = lo; b <= base + 1; b++) {
            int rc = tu_solve(g, "greedy", b, &p, NULL);
            assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
            assert_true(p.T > 0);
            tu_check_plan(g, &p);
            if (b >= base) {
                assert_int_equal(rc, ERR_OK);
                assert_true(p.peak <= base);
            }
            assert_true(rc == ERR_OK ? p.peak <= b : p.peak > b);
            plan_done(&p);
        }
        graph_free(g);
    }
}

/* greedy_ranked drops only ranked values: on Figure 1 at budget 3 greedy
 * drops A and runs it again; with A unranked nothing else may go (B and C
 * are D's inputs), so the walk runs each node once and peaks at 4; with A
 * ranked it is greedy's plan. */
static void test_greedy_ranked_fig1(void **state TU_UNUSED)
{
    Graph *g = tu_graph(FIG1);
    unsigned char rank[5] = {0, 2, 2, 2, 0};   /* A B C D E */
    Plan p;
    plan_init(&p);
    Err e;
    assert_int_equal(greedy_ranked(g, 3, rank, GREEDY_LATEST, &p, NULL, &e), ERR_OK);
    assert_int_equal(p.T, 5);
    assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), 4);
    rank[0] = 1;
    assert_int_equal(greedy_ranked(g, 3, rank, GREEDY_LATEST, &p, NULL, &e), ERR_OK);
    const char *want[] = {"A", "B", "C", "D", "A", "E"};
    assert_int_equal(p.T, 6);
    for (int t = 0; t < 6; t++)
        assert_string_equal(g->nodes[p.steps[t]].id, want[t]);
    assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), 3);
    tu_end(g, NULL, &p, NULL);
}

/* Room for E (2) at budget 6 with A (1), B (2, E's input) and D (2) held,
 * A and D next read by F: Belady's rule has a tie and the greedy rule
 * drops the larger D, which runs again with C and C2 (3 steps); the
 * cheapest rerun drops A, which runs again alone (1 step: 1 per byte and
 * step against D's 3 per 2 bytes). */
static void test_greedy_ranked_cheapest_rerun(void **state TU_UNUSED)
{
    Graph *g = tu_graph("A; B=2; C:A; C2:C; D=2:C2; E=2:B; F:A,D");
    unsigned char rank[7] = {1, 1, 1, 1, 1, 1, 1};
    const char *latest[] = {"A", "B", "C", "C2", "D", "E", "C", "C2", "D", "F"};
    const char *cheapest[] = {"A", "B", "C", "C2", "D", "E", "A", "F"};
    Plan p;
    plan_init(&p);
    Err e;
    for (GreedyPick pick = GREEDY_LATEST; pick <= GREEDY_CHEAPEST_RERUN; pick++) {
        assert_int_equal(greedy_ranked(g, 6, rank, pick, &p, NULL, &e), ERR_OK);
        const char **want = pick == GREEDY_CHEAPEST_RERUN ? cheapest : latest;
        assert_int_equal(p.T, pick == GREEDY_CHEAPEST_RERUN ? 8 : 10);
        for (int t = 0; t < p.T; t++)
            assert_string_equal(g->nodes[p.steps[t]].id, want[t]);
        assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), 6);
    }
    /* D unranked: only A may go, whatever the rule */
    rank[4] = 0;
    assert_int_equal(greedy_ranked(g, 6, rank, GREEDY_LATEST, &p, NULL, &e), ERR_OK);
    assert_int_equal(p.T, 8);
    tu_end(g, NULL, &p, NULL);
}

/* On random small training graphs at every budget from the lowest peak
 * up: with random ranks the schedule is valid (the independent checker);
 * with none ranked nothing is dropped, so every node runs once; with every
 * node ranked it fits at the baseline's peak, running each node once
 * there; every node ranked alike and GREEDY_LARGEST, it is the greedy
 * solver's plan. Every pick. (A value freed after
 * its last reader can still run again, unranked, for a rerun that reads
 * it.) */
static void test_greedy_ranked_random(void **state TU_UNUSED)
{
    uint32_t seed = 4242;
    Err e;
    int compared = 0;
    for (int iter = 0; iter < 150; iter++) {
        Graph *g = tu_random_training(&seed, 3);
        int64_t base = noremat_peak(g), lo = graph_min_peak(g, NULL);
        unsigned char *rank = xcalloc((size_t)g->n, 1), *none = xcalloc((size_t)g->n, 1);
        unsigned char *all = xcalloc((size_t)g->n, 1);
        int running = 0;
        for (int v = 0; v < g->n; v++) {
            seed = seed * 1103515245u + 12345u;
            rank[v] = (unsigned char)((seed >> 16) % 3);
            all[v] = 1;
            running += g->nodes[v].phase != PHASE_INPUT;
        }
        Plan p;
        plan_init(&p);
        for (int64_t b = lo; b <= base; b++)
            for (GreedyPick pick = GREEDY_LATEST; pick <= GREEDY_CHEAPEST_RERUN; pick++) {
                assert_int_equal(greedy_ranked(g, b, rank, pick, &p, NULL, &e), ERR_OK);
                assert_true(tu_check_peak(g, p.steps, p.T, NULL) >= 0);
                assert_int_equal(greedy_ranked(g, b, none, pick, &p, NULL, &e), ERR_OK);
                assert_true(tu_check_peak(g, p.steps, p.T, NULL) >= 0);
                assert_int_equal(p.T, running);
                assert_int_equal(greedy_ranked(g, b, all, pick, &p, NULL, &e), ERR_OK);
                int64_t pk = tu_check_peak(g, p.steps, p.T, NULL);
                assert_true(pk >= 0);
                if (b == base)
                    assert_true(pk <= b && p.T == running);
                /* every value of one rank, the largest first: the
                 * greedy solver's own walk, step for step */
                if (pick == GREEDY_LARGEST) {
                    Plan q;
                    plan_init(&q);      /* tu_solve makes it fresh again */
                    if (tu_solve(g, "greedy", b, &q, NULL) == ERR_OK) {
                        assert_int_equal(p.T, q.T);
                        assert_memory_equal(p.steps, q.steps, (size_t)p.T * sizeof *p.steps);
                        compared++;
                    }
                    plan_done(&q);
                }
            }
        plan_done(&p);
        free(rank);
        free(none);
        free(all);
        graph_free(g);
    }
    assert_true(compared >= 300);
}

/* chen on random small training graphs: a refusal names the reason, any
 * plan re-validates, and segments=1 is never worse than noremat. */
static void test_chen_random(void **state TU_UNUSED)
{
    uint32_t seed = 777;
    int planned = 0, refused = 0;
    for (int iter = 0; iter < 200; iter++) {
        Graph *g = tu_random_training(&seed, 2);
        int64_t base = noremat_peak(g), lo = graph_min_peak(g, NULL);
        Err e;
        Solver *s = tu_solver_new(g, "chen", NULL, &e);
        if (!s) {
            assert_int_equal(e.code, ERR_UNSUPPORTED);
            assert_non_null(strstr(e.msg, "no articulation points"));
            refused++;
            graph_free(g);
            continue;
        }
        planned++;
        for (int64_t b = lo; b <= base; b++) {
            Plan p;
            int rc = tu_plan(s, b, NULL, &p);
            assert_true(rc == ERR_OK || rc == ERR_OVER_BUDGET);
            tu_check_plan(g, &p);
            if (b == base) /* one segment recomputes nothing and fits */
                assert_int_equal(rc, ERR_OK);
            plan_done(&p);
        }
        solver_free(s);
        graph_free(g);
    }
    assert_true(planned > 0);
    assert_true(refused > 0);
}

TU_MAIN(TU_TEST(test_greedy_fig1_budget3)
        TU_TEST(test_greedy_fig1_equals_noremat)
        TU_TEST(test_greedy_fig1_below_min_peak)
        TU_TEST(test_chen_chain32)
        TU_TEST(test_chen_describe_and_resolve)
        TU_TEST(test_chen_refusals)
        TU_TEST(test_greedy_random)
        TU_TEST(test_greedy_ranked_fig1)
        TU_TEST(test_greedy_ranked_cheapest_rerun)
        TU_TEST(test_greedy_ranked_random)
        TU_TEST(test_chen_random))
