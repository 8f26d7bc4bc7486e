/* test_calibrate.c — a graph's workspaces from a replay
 * (src/replay/calibrate.c): the excess over the median taken per node as
 * the largest over its runs, small excesses left out, a replay of another
 * plan refused, and the calibrated graph's peak recomputed by brute force
 * (every step's live sizes plus its workspace) equal to what was
 * measured. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/replay/calibrate.h"
#include "tests/unit/testutil.h"

#define MiB ((int64_t)1 << 20)

/* a chain x -> a -> b -> c -> d of 100 MiB values, its plan with b run
 * twice, and a replay of it whose measured curve is the simulated one plus
 * 3 MiB at every step, plus add[t] at step t */
static void setup(Graph **g, Plan *p, Replay *r, const int64_t *add)
{
    *g = tu_graph("!x=104857600; a=104857600:x; b=104857600:a; c=104857600:b; d=104857600:c,b");
    plan_init(p);
    const char *order[] = {"a", "b", "c", "b", "d"};
    for (int t = 0; t < 5; t++)
        plan_push(p, graph_find(*g, order[t]));
    Err e;
    err_clear(&e);
    assert_int_equal(plan_evaluate(p, *g, &e), 0);
    Sim s;
    assert_int_equal(sim_run(*g, p->steps, p->T, &s, &e), 0);
    replay_init(r);
    r->T = p->T;
    r->steps = calloc((size_t)p->T, sizeof *r->steps);
    r->simulated_peak = p->peak;
    for (int t = 0; t < p->T; t++) {
        r->steps[t].simulated = s.mem[t];
        r->steps[t].measured = s.mem[t] + 3 * MiB + add[t];
        if (r->steps[t].measured > r->measured_peak)
            r->measured_peak = r->steps[t].measured;
    }
    sim_done(&s);
}

static void test_extra_per_node(void **state)
{
    (void)state;
    Graph *g;
    Plan p;
    Replay r;
    /* b's two runs measure 40 and 70 MiB more */
    const int64_t add[] = {0, 40 * MiB, 0, 70 * MiB, 0};
    setup(&g, &p, &r, add);
    int64_t extra[5], floor_b = -1;
    Err e;
    err_clear(&e);
    int given = calibrate_workspaces(g, &p, &r, extra, &floor_b, &e);
    assert_int_equal(given, 1);
    assert_int_equal(floor_b, 3 * MiB);
    assert_true(extra[graph_find(g, "b")] == 70 * MiB);
    assert_true(extra[graph_find(g, "a")] == 0 && extra[graph_find(g, "c")] == 0 &&
                extra[graph_find(g, "d")] == 0);

    Graph *c = graph_with_extra_workspace(g, extra, &e);
    assert_non_null(c);
    assert_true(c->nodes[graph_find(c, "b")].workspace == 70 * MiB);
    assert_true(g->nodes[graph_find(g, "b")].workspace == 0); /* g untouched */
    /* the peak by brute force: each step's live values plus its workspace */
    int64_t peak = tu_check_peak(c, p.steps, p.T, NULL);
    Plan q;
    plan_init(&q);
    plan_set_steps(&q, p.steps, p.T);
    assert_int_equal(plan_evaluate(&q, c, &e), 0);
    assert_true(q.peak == peak);
    /* b's second run measured the most: with 70 MiB more it is the measured peak less 3 MiB */
    assert_true(q.peak == r.measured_peak - 3 * MiB);
    plan_done(&q);
    graph_free(c);
    replay_done(&r);
    plan_done(&p);
    graph_free(g);
}

/* 1 MiB over the median is left out (the allocator's rounding varies that
 * much), one byte more is a workspace */
static void test_small_excess(void **state)
{
    (void)state;
    for (int more = 0; more <= 1; more++) {
        Graph *g;
        Plan p;
        Replay r;
        const int64_t add[] = {0, 0, 0, 0, MiB + more};
        setup(&g, &p, &r, add);
        int64_t extra[5], floor_b;
        Err e;
        err_clear(&e);
        assert_int_equal(calibrate_workspaces(g, &p, &r, extra, &floor_b, &e), more);
        assert_true(floor_b == 3 * MiB);
        for (int v = 0; v < 5; v++)
            assert_true(extra[v] == (more && v == graph_find(g, "d") ? MiB + 1 : 0));
        replay_done(&r);
        plan_done(&p);
        graph_free(g);
    }
}

static void test_another_plan(void **state)
{
    (void)state;
    Graph *g;
    Plan p;
    Replay r;
    const int64_t add[] = {0, 0, 0, 0, 0};
    setup(&g, &p, &r, add);
    int64_t extra[5], floor_b;
    Err e;
    err_clear(&e);
    r.T = 4;
    assert_int_equal(calibrate_workspaces(g, &p, &r, extra, &floor_b, &e), -1);
    assert_non_null(strstr(e.msg, "the replay has 4 steps, the plan 5"));
    r.T = 5;
    r.simulated_peak += 1;
    err_clear(&e);
    assert_int_equal(calibrate_workspaces(g, &p, &r, extra, &floor_b, &e), -1);
    assert_non_null(strstr(e.msg, "another plan"));
    /* a workspace past 2^53 is refused, naming the node */
    extra[0] = extra[1] = extra[2] = extra[3] = extra[4] = 0;
    extra[graph_find(g, "c")] = GRAPH_SIZE_MAX + 1;
    err_clear(&e);
    assert_null(graph_with_extra_workspace(g, extra, &e));
    assert_non_null(strstr(e.msg, "node 'c'"));
    replay_done(&r);
    plan_done(&p);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extra_per_node),
        cmocka_unit_test(test_small_excess),
        cmocka_unit_test(test_another_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
