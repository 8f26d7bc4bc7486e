/* test_tidy.c — plan_tidy (src/plan/tidy.c): dropping reruns keeps a
 * schedule valid and within its limit, never raises its cost, drops every
 * rerun when nothing limits it, and leaves none that could go alone. Each
 * result is re-checked by testutil's independent simulator. */
#include "tests/unit/testutil.h"

#include "src/base/xalloc.h"
#include "src/plan/tidy.h"
#include "tests/bench/gen.h"

/* Insert `extra` reruns of random steps into s[0..n) (room for n + extra),
 * each somewhere after the step it copies (always valid: the node's inputs
 * ran before that step). Returns the new length. */
static int add_reruns(int *s, int n, int extra, unsigned *st)
{
    for (int k = 0; k < extra && n > 0; k++) {
        int at = (int)(gen_rand(st) % (unsigned)n);   /* the rerun's model */
        int pos = at + 1 + (int)(gen_rand(st) % (unsigned)(n - at));
        memmove(s + pos + 1, s + pos, (size_t)(n - pos) * sizeof *s);
        s[pos] = s[at];
        n++;
    }
    return n;
}

/* The graph's own order with `extra` random reruns. */
static int *with_reruns(const Graph *g, int extra, unsigned *st, int *T)
{
    int n = 0, *base = sim_baseline_order(g, &n);
    int *s = xmallocarray((size_t)(n + extra), sizeof *s);
    memcpy(s, base, (size_t)n * sizeof *s);
    free(base);
    *T = add_reruns(s, n, extra, st);
    return s;
}

/* Nothing limits it: every rerun goes, and the cost is the baseline's. */
static void test_unlimited_drops_every_rerun(void **st TU_UNUSED)
{
    const char *kinds[] = {"chain", "resnet", "transformer", "random"};
    unsigned rs = 7;
    for (int k = 0; k < 4; k++) {
        Graph *g = gen_training(kinds[k], 9, 3 + k);
        int T, *s = with_reruns(g, 25, &rs, &T);
        int64_t bp;
        double bc, c;
        sim_baseline(g, &bp, &bc);
        int got = plan_tidy(g, s, &T, INT64_MAX, NULL);
        assert_int_equal(T, graph_running_nodes(g));
        assert_int_equal(got, 25);
        assert_true(tu_check_peak(g, s, T, &c) >= 0);
        assert_true(c == bc);
        free(s);
        graph_free(g);
    }
}

/* Each rerun that could go on its own: fails the test naming it. */
static void nothing_left(const Graph *g, const int *s, int T, int64_t limit, const char *what)
{
    int *b = xmallocarray((size_t)T, sizeof *b);
    double c;
    for (int t = 0; t < T; t++) {
        int first = 1;
        for (int u = 0; u < t; u++)
            first &= s[u] != s[t];
        if (first)
            continue;
        memcpy(b, s, (size_t)t * sizeof *b);
        memcpy(b + t, s + t + 1, (size_t)(T - t - 1) * sizeof *b);
        int64_t pk = tu_check_peak(g, b, T - 1, &c);
        if (pk >= 0 && pk <= limit)
            fail_msg("%s, limit %lld: step %d (%s) could still go (peak %lld)", what, (long long)limit,
                     t, g->nodes[s[t]].id, (long long)pk);
    }
    free(b);
}

/* Real plans (twremat's and chen's reruns, which free memory) with random
 * reruns added, tidied at their own peak: valid, within it, no dearer,
 * fewer steps, and no rerun left that could be dropped on its own. */
static void test_limit_kept_and_nothing_left(void **st TU_UNUSED)
{
    const char *kinds[] = {"chain", "resnet", "transformer", "random"};
    const char *solvers[] = {"twremat", "chen"};
    unsigned rs = 11;
    int dropped = 0, tight = 0;
    for (int k = 0; k < 4; k++) {
        Graph *g = gen_training(kinds[k], 7, 5 + k);
        int64_t bp, lo = graph_min_peak(g, NULL);
        double bc;
        sim_baseline(g, &bp, &bc);
        for (int q = 0; q < 2; q++)
            for (int f = 1; f <= 3; f++) {
                Plan p;
                if (tu_solve(g, solvers[q], lo + (bp - lo) * f / 4, &p, NULL) != ERR_OK) {
                    plan_done(&p);
                    continue;
                }
                int *s = xmallocarray((size_t)p.T + 10, sizeof *s);
                memcpy(s, p.steps, (size_t)p.T * sizeof *s);
                int T = add_reruns(s, p.T, 10, &rs);
                double c0, c1;
                int64_t limit = tu_check_peak(g, s, T, &c0);
                assert_true(limit >= 0);
                int T0 = T, got = plan_tidy(g, s, &T, limit, NULL);
                int64_t p1 = tu_check_peak(g, s, T, &c1);
                assert_int_equal(T0 - T, got);
                assert_true(p1 >= 0 && p1 <= limit && c1 <= c0);
                nothing_left(g, s, T, limit, kinds[k]);
                dropped += got;
                tight += p1 == limit;
                free(s);
                plan_done(&p);
            }
        graph_free(g);
    }
    assert_true(dropped > 0 && tight > 0);
}

/* A forced node (force=) keeps its runs; the others' reruns still go. */
static void test_forced_runs_kept(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A; C:B; D:B,C; E:A,D");
    int A = graph_find(g, "A"), B = graph_find(g, "B"), C = graph_find(g, "C"), D = graph_find(g, "D"),
        E = graph_find(g, "E");
    int s[] = {A, B, C, B, D, A, E}, T = 7;
    unsigned char rule[8] = {0};
    rule[B] = NODE_FORCE;
    assert_int_equal(plan_tidy(g, s, &T, INT64_MAX, rule), 1);   /* A's rerun */
    int want[] = {A, B, C, B, D, E};
    assert_int_equal(T, 6);
    assert_memory_equal(s, want, sizeof want);
    T = 7;
    int s2[] = {A, B, C, B, D, A, E};
    assert_int_equal(plan_tidy(g, s2, &T, INT64_MAX, NULL), 2);
    graph_free(g);
}

/* A schedule the simulator rejects is left as it is. */
static void test_invalid_left_alone(void **st TU_UNUSED)
{
    Graph *g = tu_training("A; B:A; C:B");
    int n = 0, *base = sim_baseline_order(g, &n);
    int s[64], T = n;
    for (int t = 0; t < n; t++)
        s[n - 1 - t] = base[t];   /* reversed: reads before production */
    s[T++] = s[0];
    int before[64];
    memcpy(before, s, sizeof before);
    assert_int_equal(plan_tidy(g, s, &T, INT64_MAX, NULL), 0);
    assert_int_equal(T, n + 1);
    assert_memory_equal(s, before, (size_t)T * sizeof *s);
    free(base);
    graph_free(g);
}

TU_MAIN(TU_TEST(test_unlimited_drops_every_rerun)
        TU_TEST(test_limit_kept_and_nothing_left)
        TU_TEST(test_forced_runs_kept)
        TU_TEST(test_invalid_left_alone))
