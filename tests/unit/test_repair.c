/* test_repair.c — plan_repair (src/plan/repair.c): on hand-made graphs it
 * makes the exact schedule that frees what the peak holds (a rerun, a
 * rerun that needs its input run again, a late reader moved up), keeps
 * pins, leaves invalid schedules alone; on generated graphs its results
 * are valid and never peak higher, each re-checked by testutil's
 * independent simulator; FastSA's search ends within a budget its
 * annealing alone does not reach; and plan_rerun_deep makes again from
 * scratch a value whose rerun is too long for the repair. */
#include "tests/unit/testutil.h"

#include "src/base/xalloc.h"
#include "src/plan/repair.h"
#include "tests/bench/gen.h"

/* The schedule of named nodes, in a fresh array for plan_repair. */
static int *sched(const Graph *g, const char *const *names, int T)
{
    int *s = xmallocarray((size_t)T, sizeof *s);
    for (int t = 0; t < T; t++)
        s[t] = graph_find(g, names[t]);
    return s;
}

static void assert_sched(const Graph *g, const int *s, int T, const char *const *want, int n)
{
    assert_int_equal(T, n);
    for (int t = 0; t < T; t++)
        if (s[t] != graph_find(g, want[t]))
            fail_msg("step %d: %s, wanted %s", t, g->nodes[s[t]].id, want[t]);
}

/* The graph of spec run in order (peak 16), repaired to a limit of 12 in
 * one move: exactly the schedule want, peaking at 12 and costing cost
 * (unit node costs). */
static void repairs_to(const char *spec, const char *const *order, int n, const char *const *want,
                       int nwant, double cost)
{
    Graph *g = tu_graph(spec);
    int T = n, *s = sched(g, order, T);
    double c;
    assert_int_equal(tu_check_peak(g, s, T, &c), 16);
    assert_int_equal(plan_repair(g, &s, &T, 12, NULL, 1 << 20), 1);
    assert_sched(g, s, T, want, nwant);
    assert_int_equal(tu_check_peak(g, s, T, &c), 12);
    assert_true(c == cost);
    free(s);
    graph_free(g);
}

/* A (10) is read by B, then held through C and D (the peak, 16) for E;
 * run again before E, the peak is E's 12. Pinned, A cannot run again:
 * nothing changes. */
static void test_rerun_frees_held_value(void **st TU_UNUSED)
{
    const char *spec = "A=10; B=1:A; C=5:B; D=1:C; E=1:A,D";
    const char *order[] = {"A", "B", "C", "D", "E"};
    const char *want[] = {"A", "B", "C", "D", "A", "E"};
    repairs_to(spec, order, 5, want, 6, 6);

    Graph *g = tu_graph(spec);
    int T = 5, *s = sched(g, order, T);
    unsigned char rule[5] = {0};
    rule[graph_find(g, "A")] = NODE_PIN;
    assert_int_equal(plan_repair(g, &s, &T, 12, rule, 1 << 20), 0);
    assert_sched(g, s, T, order, 5);
    free(s);
    graph_free(g);
}

/* B (10) is held for F; its input A is gone by then, so A runs again
 * first: the chain A, B goes in before F. */
static void test_rerun_brings_its_inputs(void **st TU_UNUSED)
{
    const char *order[] = {"A", "B", "C", "D", "E", "F"};
    const char *want[] = {"A", "B", "C", "D", "E", "A", "B", "F"};
    repairs_to("A=1; B=10:A; C=1:B; D=5:C; E=1:D; F=1:B,E", order, 6, want, 8, 8);
}

/* A (10) is held only for S, a reader whose other inputs are all there
 * early: S moves up to just after B, A's last read before the peak. That
 * meets 12 as the rerun would, at no cost, so it is the one taken. */
static void test_late_reader_moves_up(void **st TU_UNUSED)
{
    const char *order[] = {"A", "B", "C", "D", "S", "E"};
    const char *want[] = {"A", "B", "S", "C", "D", "E"};
    repairs_to("A=10; B=1:A; C=5:B; D=1:C; S=1:A; E=1:D,S", order, 6, want, 6, 6);
}

/* Within the limit already, or invalid: left as it is. */
static void test_left_alone(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A=10; B=1:A; C=5:B; D=1:C; E=1:A,D");
    const char *order[] = {"A", "B", "C", "D", "E"};
    int T = 5, *s = sched(g, order, T);
    assert_int_equal(plan_repair(g, &s, &T, 16, NULL, 1 << 20), 0);
    assert_sched(g, s, T, order, 5);
    free(s);
    const char *bad[] = {"B", "A", "C", "D", "E"};
    s = sched(g, bad, T);
    assert_int_equal(plan_repair(g, &s, &T, 1, NULL, 1 << 20), 0);
    assert_sched(g, s, T, bad, 5);
    free(s);
    graph_free(g);
}

/* Generated training graphs (four kinds, three seeds each), each at nf
 * limits from its peak bound up (the f-th a quarter of the way further
 * toward its baseline peak), handed to fn with the graph's order. */
typedef void (*OnSchedule)(const Graph *g, int **s, int *T, int64_t limit, void *ctx);

static void each_generated(int nf, OnSchedule fn, void *ctx)
{
    const char *kinds[] = {"chain", "resnet", "transformer", "random"};
    for (int k = 0; k < 4; k++)
        for (int seed = 1; seed <= 3; seed++) {
            Graph *g = gen_training(kinds[k], 10, (unsigned)(seed + 10 * k));
            int64_t bp, lo = graph_min_peak(g, NULL);
            double bc;
            sim_baseline(g, &bp, &bc);
            for (int f = 0; f < nf; f++) {
                int T, *s = sim_baseline_order(g, &T);
                fn(g, &s, &T, lo + (bp - lo) * f / 4, ctx);
                free(s);
            }
            graph_free(g);
        }
}

typedef struct {
    int made, met;
} Counts;

static void repair_one(const Graph *g, int **s, int *T, int64_t limit, void *ctx)
{
    Counts *n = ctx;
    double c0, c1;
    int64_t p0 = tu_check_peak(g, *s, *T, &c0);
    int got = plan_repair(g, s, T, limit, NULL, 1 << 24);
    int64_t p1 = tu_check_peak(g, *s, *T, &c1);
    assert_true(p1 >= 0 && p1 <= p0);
    if (!got)
        assert_true(p1 == p0 && c1 == c0);
    n->made += got > 0;
    n->met += p0 > limit && p1 <= limit;
}

/* Generated training graphs, from the graph's order, at limits from the
 * peak bound up: every result is valid, peaks no higher than before, and
 * lower wherever an insertion was made and the limit is not met by a
 * plateau's wearing down alone; some limits are met that were not. */
static void test_generated_never_worse(void **st TU_UNUSED)
{
    Counts n = {0};
    each_generated(4, repair_one, &n);
    assert_true(n.made > 0 && n.met > 0);
}

/* FastSA with one mutation a run cannot anneal: its best is the graph's
 * order (peak 16); the repair takes it within the budget of 12. */
static void test_fastsa_repairs_its_best(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A=10; B=1:A; C=5:B; D=1:C; E=1:A,D");
    const char *opts[] = {"iters=1", "grouping=off", "descent=off", "seeds=none", "restarts=0", NULL};
    Solver *sv = tu_solver(g, "fastsa", opts);
    Plan p;
    assert_int_equal(tu_plan(sv, 12, NULL, &p), ERR_OK);
    assert_true(tu_check_within(g, &p, 12) >= 6);
    Overlay o;
    tu_describe(sv, &o);
    if (!strstr(o.title, "its peak repaired"))
        fail_msg("describe: %s", o.title);
    overlay_done(&o);
    plan_done(&p);
    solver_free(sv);
    graph_free(g);
}

/* G (10) is held across C and D (the peak, 16) for E, and the nine nodes
 * it is made from are gone by then: too long a chain for plan_repair (cut
 * at its eight nodes, the rerun would read A2's first copy, 7, and hold it
 * across the peak), and E cannot move up past D. plan_rerun_deep's cone
 * is G alone, A9's copy (1) held across the peak in G's place: G runs
 * again after D (before D, C would be held beside it), peak 12, cost 15
 * where replaying A1..A9 too would cost 24. A pinned node the cone does not
 * run again (A1) changes nothing; G pinned, nothing can be done. */
#define DEEP_SPEC "A1; A2=7:A1; A3:A2; A4:A3; A5:A4; A6:A5; A7:A6; A8:A7; A9:A8; G=10:A9; " \
                  "B:G; C=5:B; D:C; E:G,D"
static void test_deep_rerun(void **st TU_UNUSED)
{
    Graph *g = tu_graph(DEEP_SPEC);
    const char *order[] = {"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "G", "B", "C", "D", "E"};
    const char *want[] = {"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "G", "B", "C", "D", "G", "E"};
    unsigned char *rule = xcalloc((size_t)g->n, 1);
    for (int pin = 0; pin < 2; pin++) {
        int T = 14, *s = sched(g, order, T);
        double c;
        rule[graph_find(g, "A1")] = (unsigned char)(pin ? NODE_PIN : 0);
        assert_int_equal(tu_check_peak(g, s, T, &c), 16);
        assert_int_equal(plan_repair(g, &s, &T, 12, rule, 1 << 20), 0);
        assert_int_equal(plan_rerun_deep(g, &s, &T, 12, rule, 1 << 20), 1);
        assert_sched(g, s, T, want, 15);
        assert_int_equal(tu_check_peak(g, s, T, &c), 12);
        assert_true(c == 15);
        free(s);
    }

    int T = 14, *s = sched(g, order, T);
    rule[graph_find(g, "G")] = NODE_PIN;
    assert_int_equal(plan_rerun_deep(g, &s, &T, 12, rule, 1 << 20), 0);
    assert_sched(g, s, T, order, 14);
    free(rule);
    free(s);
    graph_free(g);

    /* nothing runs, and the resident input alone is over the limit: no
     * peak step to free anything at */
    g = tu_graph("!x=5");
    T = 0;
    s = xmallocarray(1, sizeof *s);
    assert_int_equal(plan_rerun_deep(g, &s, &T, 1, NULL, 1 << 20), 0);
    assert_int_equal(T, 0);
    free(s);
    graph_free(g);
}

/* The cone reaches past G's inputs when holding them does not fit: G
 * (10) reads A9 and B9 (1 each), both made from A8 (1); at the peak, C
 * (12), one byte of room is left below 13 once G goes: A9 and B9
 * together do not fit, A8 does (and beside G's first run too). So A8 is
 * held, and A9, B9 and G run again after D (size 0): peak 13, cost 15 + 3,
 * the least there is (G must go at the peak, and its inputs cannot both
 * stay), where plan_repair's chains pay 25. */
static void test_deep_cone(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A1; A2=7:A1; A3:A2; A4:A3; A5:A4; A6:A5; A7:A6; A8:A7; A9:A8; B9:A8; "
                        "G=10:A9,B9; B=0:G; C=12:B; D=0:C; E:G,D");
    const char *order[] = {"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "B9", "G", "B", "C", "D", "E"};
    int T = 15, *s = sched(g, order, T);
    double c;
    assert_int_equal(tu_check_peak(g, s, T, &c), 22);
    /* the repair's chains (a copy) reach the limit dearer: B9 held, A1..A9
     * and G run again */
    int T2 = T, *s2 = sched(g, order, T2);
    assert_true(plan_repair(g, &s2, &T2, 13, NULL, 1 << 20) > 0);
    assert_int_equal(tu_check_peak(g, s2, T2, &c), 13);
    assert_true(c == 25);
    free(s2);
    assert_int_equal(plan_rerun_deep(g, &s, &T, 13, NULL, 1 << 20), 1);
    const char *want[] = {"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "B9", "G", "B", "C", "D",
                          "A9", "B9", "G", "E"};
    assert_sched(g, s, T, want, 18);
    assert_int_equal(tu_check_peak(g, s, T, &c), 13);
    assert_true(c == 18);
    free(s);
    graph_free(g);
}

static void deep_one(const Graph *g, int **s, int *T, int64_t limit, void *ctx)
{
    Counts *n = ctx;
    double c;
    n->made += plan_rerun_deep(g, s, T, limit, NULL, 1 << 24);
    assert_true(tu_check_peak(g, *s, *T, &c) >= 0);
}

/* On generated graphs, from the graph's order at limits below its peak:
 * whenever plan_rerun_deep replaces a schedule, the new one is valid (the
 * independent simulator re-checks it). */
static void test_deep_rerun_valid(void **st TU_UNUSED)
{
    Counts n = {0};
    each_generated(3, deep_one, &n);
    assert_true(n.made > 0);
}

/* FastSA with one mutation a run: its best is the graph's order, which
 * the repair cannot lower; a run from the deep rerun's schedule, which
 * fits, gives the answer: before the descent (descent=on, and no runs
 * after the first ones), or among the runs after the first ones
 * (descent=off). */
static void test_fastsa_deep_start(void **st TU_UNUSED)
{
    Graph *g = tu_graph(DEEP_SPEC);
    for (int d = 0; d < 2; d++) {
        const char *opts[] = {"iters=1", "grouping=off", d ? "descent=on" : "descent=off",
                              "seeds=none", d ? "restarts=0" : "restarts=1", NULL};
        Solver *sv = tu_solver(g, "fastsa", opts);
        Plan p;
        assert_int_equal(tu_plan(sv, 12, NULL, &p), ERR_OK);
        assert_int_equal(tu_check_within(g, &p, 12), 15);
        Overlay o;
        tu_describe(sv, &o);
        if (!strstr(o.title, "made again after the peak"))
            fail_msg("descent %d, describe: %s", d, o.title);
        overlay_done(&o);
        plan_done(&p);
        solver_free(sv);
    }
    graph_free(g);
}

TU_MAIN(TU_TEST(test_rerun_frees_held_value)
        TU_TEST(test_rerun_brings_its_inputs)
        TU_TEST(test_late_reader_moves_up)
        TU_TEST(test_left_alone)
        TU_TEST(test_generated_never_worse)
        TU_TEST(test_fastsa_repairs_its_best)
        TU_TEST(test_deep_rerun)
        TU_TEST(test_deep_cone)
        TU_TEST(test_deep_rerun_valid)
        TU_TEST(test_fastsa_deep_start))
