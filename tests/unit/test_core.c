/* test_core.c — the headless core: simulator against the spec's examples
 * and an independent checker, graph validation messages, JSON/DOT round
 * trips, the training transform, units, plans. */
#include "tests/unit/testutil.h"

#include "src/graph/transform.h"
#include "src/base/units.h"
#include "src/base/clock.h"
#include "src/plan/subproc.h"

#include <errno.h>
#include <unistd.h>

static const char *FIG1 = "A; B:A; C:B; D:B,C; E:A,D";

static int *ids(const Graph *g, const char *list, int *T)
{
    static int buf[64];
    char *s = strdup(list), *save = NULL;
    int n = 0;
    for (char *t = strtok_r(s, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        buf[n] = graph_find(g, t);
        assert_true(buf[n] >= 0);
        n++;
    }
    free(s);
    *T = n;
    return buf;
}

static void test_fig1_figures(void **st TU_UNUSED)
{
    Graph *g = tu_graph(FIG1);
    Err e;
    Sim s;
    int T;
    int *sch = ids(g, "A B C D E", &T);
    assert_int_equal(sim_run(g, sch, T, &s, &e), ERR_OK);
    assert_int_equal(s.peak, 4);
    assert_int_equal(s.peak_step, 3);
    assert_true(s.cost == 5);
    /* curve: A(1) B(A,B) C(A,B,C) D(A,B,C,D) E(A,D,E) */
    int64_t want[] = {1, 2, 3, 4, 3};
    for (int t = 0; t < 5; t++)
        assert_int_equal(s.mem[t], want[t]);
    sim_done(&s);
    sch = ids(g, "A B C D A E", &T);
    assert_int_equal(sim_run(g, sch, T, &s, &e), ERR_OK);
    assert_int_equal(s.peak, 3);
    assert_true(s.cost == 6);
    assert_int_equal(s.recomputations, 1);
    sim_done(&s);
    int64_t bp;
    double bc;
    sim_baseline(g, &bp, &bc);
    assert_int_equal(bp, 4);
    assert_true(bc == 5);
    assert_int_equal(graph_min_peak(g, NULL), 3);
    graph_free(g);
}

static void test_invalid_schedules(void **st TU_UNUSED)
{
    Graph *g = tu_graph("!x; A:x; B:A; C:B");
    Err e;
    Sim s;
    int T;
    int *sch = ids(g, "A C B", &T);
    assert_int_equal(sim_run(g, sch, T, &s, &e), ERR_INVALID);
    assert_non_null(strstr(e.msg, "step 2 (C)"));
    assert_non_null(strstr(e.msg, "'B'"));
    sch = ids(g, "A B", &T);
    assert_int_equal(sim_run(g, sch, T, &s, &e), ERR_INVALID);
    assert_non_null(strstr(e.msg, "output 'C' is never produced"));
    sch = ids(g, "x A B C", &T);
    assert_int_equal(sim_run(g, sch, T, &s, &e), ERR_INVALID);
    assert_non_null(strstr(e.msg, "step 1 (x)"));
    graph_free(g);
}

static void test_inputs_workspace(void **st TU_UNUSED)
{
    const char *json = "{\"format\":\"remat-graph\",\"version\":1,\"nodes\":["
                       "{\"id\":\"w\",\"op\":\"param\",\"phase\":\"input\",\"size\":100},"
                       "{\"id\":\"a\",\"size\":10,\"inputs\":[\"w\"],\"workspace\":7},"
                       "{\"id\":\"b\",\"size\":20,\"inputs\":[\"a\",\"w\",\"a\"]}]}";
    Graph *g = tu_graph_json(json);
    assert_int_equal(g->input_bytes, 100);
    assert_int_equal(g->in_off[2 + 1] - g->in_off[2], 2); /* repeated read counted once */
    int s[] = {1, 2};
    Sim sim;
    Err e;
    assert_int_equal(sim_run(g, s, 2, &sim, &e), ERR_OK);
    assert_int_equal(sim.mem[0], 117);
    assert_int_equal(sim.mem[1], 130);
    LiveValue *lv;
    int n = sim_live_at(g, s, &sim, 0, &lv);
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += lv[i].size;
    assert_int_equal(sum, sim.mem[0]);
    assert_int_equal(lv[0].node, 0); /* largest first: w */
    assert_int_equal(lv[1].node, 1);
    assert_int_equal(lv[1].next_read, 1);
    assert_int_equal(lv[2].reason, LIVE_WORKSPACE);
    free(lv);
    sim_done(&sim);
    graph_free(g);
}

/* Random graphs, random valid schedules with recomputation: the simulator
 * and the independent O(T^2) checker agree on peak and cost, and the live
 * set at every step sums to the curve. */
static void test_random_vs_checker(void **st TU_UNUSED)
{
    unsigned seed = 12345;
    for (int iter = 0; iter < 300; iter++) {
        int n = 2 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 9;
        Graph *g = graph_new();
        Err e;
        char id[16];
        for (int v = 0; v < n; v++) {
            snprintf(id, sizeof id, "n%d", v);
            seed = seed * 1103515245u + 12345u;
            Phase ph = v == 0 && (seed >> 20) % 3 == 0 ? PHASE_INPUT : PHASE_FWD;
            graph_add_node(g, id, NULL, ph, 1 + (seed >> 16) % 7, 1 + (seed >> 24) % 3,
                           (seed >> 12) % 4 == 0 ? 2 : 0, NULL, &e);
            if (ph == PHASE_INPUT)
                continue;
            for (int u = 0; u < v; u++) {
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 16) % 3 == 0) {
                    snprintf(id, sizeof id, "n%d", u);
                    graph_add_input_name(g, v, id);
                }
            }
        }
        assert_int_equal(graph_finalize(g, &e), ERR_OK);
        int sched[64], T = 0;
        unsigned char *done = calloc((size_t)n, 1);
        for (int v = 0; v < n; v++)
            if (g->nodes[v].phase == PHASE_INPUT)
                done[v] = 1;
        int remaining = 0;
        for (int v = 0; v < n; v++)
            remaining += !done[v];
        while ((remaining > 0 || (seed >> 18) % 4) && T < 40) {
            seed = seed * 1103515245u + 12345u;
            int v = (int)((seed >> 16) % (unsigned)n);
            if (g->nodes[v].phase == PHASE_INPUT)
                continue;
            int ok = 1;
            for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
                ok &= done[g->in_idx[k]];
            if (!ok)
                continue;
            if (!done[v])
                remaining--;
            done[v] = 1;
            sched[T++] = v;
        }
        free(done);
        if (remaining > 0) {
            graph_free(g);
            continue;
        }
        Sim s;
        assert_int_equal(sim_run(g, sched, T, &s, &e), ERR_OK);
        double c;
        int64_t pk = tu_check_peak(g, sched, T, &c);
        assert_int_equal(pk, s.peak);
        assert_true(c == s.cost);
        for (int t = 0; t < T; t++) {
            LiveValue *lv;
            int m = sim_live_at(g, sched, &s, t, &lv);
            int64_t sum = 0;
            for (int i = 0; i < m; i++)
                sum += lv[i].size;
            assert_int_equal(sum, s.mem[t]);
            free(lv);
        }
        sim_done(&s);
        graph_free(g);
    }
}

static void expect_json_error(const char *json, const char *needle)
{
    Err e;
    err_clear(&e);
    Graph *g = graph_from_json(json, strlen(json), "bad.json", &e);
    assert_null(g);
    if (!strstr(e.msg, needle))
        fail_msg("message '%s' lacks '%s'", e.msg, needle);
    assert_non_null(strstr(e.msg, "bad.json"));
    assert_null(strchr(e.msg, '\n'));
}

static void test_graph_errors(void **st TU_UNUSED)
{
    expect_json_error("{\"format\":\"remat-graph\",\n\"nodes\":[\n{\"id\":\"a\"}\n{\"id\":\"b\"}]}",
                      "bad.json:4:1");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[]}", "empty graph");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\",\"inputs\":[\"zz\"]}]}",
                      "unknown input id 'zz'");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"a\"}]}",
                      "duplicate id 'a'");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\"},{\"id\":\"b\",\"size\":-4}]}",
                      "nodes[1].size");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\",\"cost\":-1}]}",
                      "nodes[0].cost");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"\"}]}", "empty id");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\",\"inputs\":[\"c\"]},"
                      "{\"id\":\"b\",\"inputs\":[\"a\"]},{\"id\":\"c\",\"inputs\":[\"b\"]}]}",
                      "cycle");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\",\"inputs\":[\"a\"]}]}",
                      "'a' -> 'a'");
    {
        /* ids longer than the message: cut, not written past its end (the
         * fuzzer found a cycle of two 800-byte ids) */
        char big[4096], id[801];
        memset(id, 'v', 800);
        id[800] = '\0';
        snprintf(big, sizeof big, "{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"%s1\",\"inputs\":[\"%s2\"]},"
                 "{\"id\":\"%s2\",\"inputs\":[\"%s1\"]}]}", id, id, id, id);
        expect_json_error(big, "cycle: 'vvv");
    }
    expect_json_error("{\"format\":\"other\",\"nodes\":[{\"id\":\"a\"}]}", "remat-graph");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\",\"phase\":\"fwdx\"}]}",
                      "unknown phase");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\",\"size\":1e300}]}",
                      "2^53");
    expect_json_error("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"a\"}]} trailing", "bad.json:1:");
}

static void test_round_trips(void **st TU_UNUSED)
{
    const char *json = "{\"format\":\"remat-graph\",\"version\":1,\"name\":\"t \\\"q\\\"\",\"source\":\"s\","
                       "\"nodes\":[{\"id\":\"x\",\"op\":\"param\",\"phase\":\"input\",\"size\":5},"
                       "{\"id\":\"a b\",\"op\":\"conv2d\",\"cost\":2.5,\"size\":9007199254740992,"
                       "\"inputs\":[\"x\"],\"workspace\":3},"
                       "{\"id\":\"loss\",\"phase\":\"loss\",\"inputs\":[\"a b\"]},"
                       "{\"id\":\"g\",\"phase\":\"bwd\",\"inputs\":[\"loss\",\"a b\",\"x\"],\"grad_of\":\"a b\"}],"
                       "\"outputs\":[\"g\"]}";
    Graph *g = tu_graph_json(json);
    char *j1 = graph_to_json(g);
    Err e;
    Graph *g2 = graph_from_json(j1, strlen(j1), "j1", &e);
    assert_non_null(g2);
    char *j2 = graph_to_json(g2);
    assert_string_equal(j1, j2);
    char *dot = graph_to_dot(g2);
    Graph *g3 = graph_from_dot(dot, strlen(dot), "d", &e);
    if (!g3)
        fail_msg("%s\n%s", e.msg, dot);
    char *j3 = graph_to_json(g3);
    assert_string_equal(j1, j3);
    free(j1);
    free(j2);
    free(j3);
    free(dot);
    graph_free(g);
    graph_free(g2);
    graph_free(g3);
}

static void test_dot_errors(void **st TU_UNUSED)
{
    Err e;
    const char *bad = "digraph g {\n  a -> b;\n  c -> ;\n}\n";
    assert_null(graph_from_dot(bad, strlen(bad), "bad.dot", &e));
    if (!strstr(e.msg, "bad.dot:3:"))
        fail_msg("%s", e.msg);
    const char *cyc = "digraph g { a -> b; b -> a; }";
    assert_null(graph_from_dot(cyc, strlen(cyc), "c.dot", &e));
    assert_int_equal(e.code, ERR_CYCLE);
    assert_non_null(strstr(e.msg, "c.dot"));
    const char *neg = "digraph g { a [size=-3]; }";
    assert_null(graph_from_dot(neg, strlen(neg), "n.dot", &e));
    assert_non_null(strstr(e.msg, "node 'a'"));
    const char *und = "graph g { a -- b; }";
    assert_null(graph_from_dot(und, strlen(und), "u.dot", &e));
    assert_non_null(strstr(e.msg, "digraph"));
}

static void test_transform(void **st TU_UNUSED)
{
    Graph *f = tu_graph("!x; a:x; b:a; c:b,x");
    Err e;
    Graph *t = graph_make_training(f, &e);
    assert_non_null(t);
    assert_int_equal(t->n, 4 + 1 + 3);
    int loss = graph_find(t, "loss"), cg = graph_find(t, "c.grad"), ag = graph_find(t, "a.grad");
    assert_true(loss >= 0 && cg >= 0 && ag >= 0);
    assert_int_equal(t->nodes[cg].grad_of, graph_find(t, "c"));
    /* c.grad reads loss, c's inputs (b, x) and c */
    assert_int_equal(t->in_off[cg + 1] - t->in_off[cg], 4);
    assert_int_equal(t->n_outputs, 1);
    assert_int_equal(t->outputs[0], ag);
    assert_null(graph_make_training(t, &e));
    assert_non_null(strstr(e.msg, "forward-only"));
    /* names the forward graph already uses get a suffix */
    Graph *f2 = tu_graph("a; a.grad:a; loss:a.grad");
    Graph *t2 = graph_make_training(f2, &e);
    assert_non_null(t2);
    int ag1 = graph_find(t2, "a.grad.1"), agg = graph_find(t2, "a.grad.grad");
    assert_true(ag1 >= 0 && agg >= 0);
    assert_int_equal(t2->nodes[ag1].grad_of, graph_find(t2, "a"));
    assert_int_equal(t2->nodes[agg].grad_of, graph_find(t2, "a.grad"));
    assert_true(graph_find(t2, "loss.1") >= 0);
    graph_free(t2);
    graph_free(f2);
    /* the training graph's own order is valid and recomputation-free */
    int64_t bp;
    double bc;
    sim_baseline(t, &bp, &bc);
    assert_true(bc == 1 + 3 + 3);
    graph_free(t);
    graph_free(f);
}

static void test_units(void **st TU_UNUSED)
{
    int64_t v;
    Err e;
    assert_int_equal(units_parse_bytes("512MiB", -1, &v, &e), 0);
    assert_int_equal(v, 512ll << 20);
    assert_int_equal(units_parse_bytes("2GiB", -1, &v, &e), 0);
    assert_int_equal(v, 2ll << 30);
    assert_int_equal(units_parse_bytes("1.5GB", -1, &v, &e), 0);
    assert_int_equal(v, 1500000000ll);
    assert_int_equal(units_parse_bytes("50%", 1000, &v, &e), 0);
    assert_int_equal(v, 500);
    assert_int_equal(units_parse_bytes("3", -1, &v, &e), 0);
    assert_int_equal(v, 3);
    assert_int_equal(units_parse_bytes("12XB", -1, &v, &e), ERR_USAGE);
    assert_non_null(strstr(e.msg, "unknown unit"));
    assert_int_equal(units_parse_bytes("-5", -1, &v, &e), ERR_USAGE);
    char buf[32];
    units_format_bytes(1536, buf, sizeof buf);
    assert_string_equal(buf, "1.50 KiB");
    units_format_bytes(7, buf, sizeof buf);
    assert_string_equal(buf, "7 B");
}

static void test_plan_json(void **st TU_UNUSED)
{
    Graph *g = tu_graph(FIG1);
    Plan p;
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &p, NULL), ERR_OK);
    assert_int_equal(p.peak, 4);
    char *json = plan_to_json(&p, g, NULL);
    Plan q;
    plan_init(&q);
    Err e;
    assert_int_equal(plan_from_json(&q, g, json, strlen(json), "p.json", &e), ERR_OK);
    assert_int_equal(q.T, 5);
    assert_int_equal(plan_check(&q, g, &e), ERR_OK);
    q.peak = 3; /* a plan that lies about its peak is caught */
    assert_int_equal(plan_check(&q, g, &e), ERR_INVALID);
    assert_non_null(strstr(e.msg, "peak 3"));
    const char *bad = "{\"format\":\"remat-plan\",\"schedule\":[\"A\",\"Q\"]}";
    assert_int_equal(plan_from_json(&q, g, bad, strlen(bad), "p.json", &e), ERR_INVALID);
    assert_non_null(strstr(e.msg, "schedule[1]: unknown node id 'Q'"));
    free(json);
    plan_done(&p);
    plan_done(&q);
    /* budget below the lower bound is refused up front */
    assert_int_equal(tu_solve(g, "noremat", 4, &p, NULL), ERR_OK);
    plan_done(&p);
    assert_int_equal(tu_solve(g, "noremat", 3, &p, NULL), ERR_OVER_BUDGET);
    tu_end(g, NULL, &p, NULL);
}

static void test_noremat_memory_order(void **st TU_UNUSED)
{
    /* two independent branches: running one branch to completion first
     * keeps fewer values alive than interleaving them (file order) */
    Graph *g = tu_graph("a1=4; b1=4; a2=1:a1; b2=1:b1; s:a2,b2");
    Plan p;
    const char *o[] = {"order=memory", NULL};
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &p, o), ERR_OK);
    int64_t mem_peak = p.peak;
    assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), mem_peak);
    plan_done(&p);
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &p, NULL), ERR_OK);
    assert_true(mem_peak < p.peak);
    tu_end(g, NULL, &p, NULL);
}

/* Every solver's option table is coherent: each default passes its own
 * check, and a value outside a numeric range or choice list is refused
 * naming the option. */
static void test_solver_param_tables(void **st TU_UNUSED)
{
    Err e;
    for (int i = 0; i < solver_count(); i++)
        for (const SolverParam *p = solver_at(i)->params; p && p->name; p++) {
            if (solver_param_check(p, p->def, &e) != ERR_OK)
                fail_msg("%s: default %s=%s fails its own check: %s", solver_at(i)->name, p->name,
                         p->def, e.msg);
            if (p->kind == OPT_INT || p->kind == OPT_NUM) {
                char v[64];
                snprintf(v, sizeof v, "%.17g", p->hi * 2 + 1);
                assert_int_equal(solver_param_check(p, v, &e), ERR_USAGE);
                assert_non_null(strstr(e.msg, p->name));
                assert_int_equal(solver_param_check(p, "x1", &e), ERR_USAGE);
            }
            if (p->kind == OPT_CHOICE)
                assert_int_equal(solver_param_check(p, "no-such-choice", &e), ERR_USAGE);
        }
}

/* A solver process's answer is complete when the process ends, even while
 * the pipe's write end lives on in another process (one that a second
 * thread forked meanwhile inherits it): here the child forks a grandchild
 * that keeps it until the test lets it go, after subproc_run has returned.
 * subproc_run returns the child's bytes at once; it used to wait for the
 * end of file, which here comes only at its 60 s limit. No timing decides
 * the outcome: the answer must be ERR_OK, and half the limit only tells a
 * wait for the grandchild from a slow machine. */
static int late_eof_child(void *ctx, int fd)
{
    const int *release = ctx;
    pid_t gc = fork();
    if (gc == 0) {
        /* only the pipe and the release stay open: the test's own output
         * must not wait */
        for (int k = 0; k < 1024; k++)
            if (k != fd && k != release[0])
                close(k);
        char c;
        while (read(release[0], &c, 1) < 0 && errno == EINTR) {
        }
        _exit(0);
    }
    return subproc_write(fd, "answer", 6);
}

static void test_subproc_late_eof(void **st TU_UNUSED)
{
    char *out;
    size_t len;
    Err e;
    int release[2];
    assert_int_equal(pipe(release), 0);
    double t0 = clock_now();
    int rc = subproc_run(late_eof_child, release, NULL, 60, &out, &len, &e);
    double dt = clock_now() - t0;
    close(release[1]);  /* the grandchild reads end of file and exits */
    close(release[0]);
    assert_int_equal(rc, ERR_OK);
    assert_int_equal(len, 6);
    assert_memory_equal(out, "answer", 6);
    assert_true(dt < 30);
    free(out);
}

TU_MAIN(TU_TEST(test_fig1_figures)
        TU_TEST(test_invalid_schedules)
        TU_TEST(test_inputs_workspace)
        TU_TEST(test_random_vs_checker)
        TU_TEST(test_graph_errors)
        TU_TEST(test_round_trips)
        TU_TEST(test_dot_errors)
        TU_TEST(test_transform)
        TU_TEST(test_units)
        TU_TEST(test_plan_json)
        TU_TEST(test_noremat_memory_order)
        TU_TEST(test_solver_param_tables)
        TU_TEST(test_subproc_late_eof))
