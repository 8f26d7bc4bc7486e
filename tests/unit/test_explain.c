/* test_explain.c — what the explorer explains, checked on small graphs by
 * hand: the values worth recomputing at a step (src/session/advice.c), the
 * structure band under the curve (render/band.c), the baseline drawn on
 * its own time axis (render/plot.c), fractional batch fits (src/session/fit.c),
 * per-plan figures computed at install, per-class options and node rules
 * in the session, and export formats from file names. */
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "render/band.h"
#include "render/export.h"
#include "render/plot.h"
#include "src/graph/graph_io.h"
#include "src/session/advice.h"
#include "src/session/fit.h"
#include "src/session/session.h"
#include "src/session/service.h"

static void advice_ranks_held_values(void **st TU_UNUSED)
{
    /* order A..F: at D (step 4) A idles from B's read (2) to F's (6), B
     * from C's read (3) to E's (5); C is read by D itself */
    Graph *g = tu_graph("A=2; B=3:A; C=1:B; D=1:C; E=1:D,B; F=1:E,A");
    int sched[6] = {0, 1, 2, 3, 4, 5};
    Sim s;
    Err e;
    err_clear(&e);
    assert_int_equal(sim_run(g, sched, 6, &s, &e), ERR_OK);
    Advice *a;
    int n = advice_at(g, sched, &s, 3, &a);
    assert_int_equal(n, 2);
    assert_int_equal(a[0].node, graph_find(g, "A"));
    assert_int_equal(a[0].bytes, 2);
    assert_int_equal(a[0].last_use, 1);
    assert_int_equal(a[0].next_read, 5);
    assert_int_equal(a[0].idle, 4);
    assert_true(a[0].score == 8);
    assert_true(a[0].inputs_held);
    assert_int_equal(a[1].node, graph_find(g, "B"));
    assert_int_equal(a[1].idle, 2);
    assert_true(a[1].score == 6);
    assert_true(a[1].inputs_held);     /* A is held until F */
    free(a);
    /* at the last step nothing idles: F reads E and A, outputs stay */
    assert_int_equal(advice_at(g, sched, &s, 5, &a), 0);
    free(a);
    assert_int_equal(advice_at(g, sched, &s, 6, &a), -1);
    sim_done(&s);
    graph_free(g);
    /* an input freed before the next read: recomputing needs it first */
    Graph *h = tu_graph("A; B:A; C:B; D:C; E:D,B");
    int s2[5] = {0, 1, 2, 3, 4};
    assert_int_equal(sim_run(h, s2, 5, &s, &e), ERR_OK);
    n = advice_at(h, s2, &s, 3, &a);
    assert_int_equal(n, 1);
    assert_int_equal(a[0].node, graph_find(h, "B"));
    assert_false(a[0].inputs_held);
    free(a);
    sim_done(&s);
    graph_free(h);
}

/* The characters of a two-row band w columns wide are want0 over want1. */
static void assert_band(const BandCell *c, int w, const char *want0, const char *want1)
{
    char row0[64], row1[64];
    assert_true(w < (int)sizeof row0);
    for (int i = 0; i < w; i++) {
        row0[i] = c[i].ch;
        row1[i] = c[w + i].ch;
    }
    row0[w] = row1[w] = '\0';
    assert_string_equal(row0, want0);
    assert_string_equal(row1, want1);
}

static void band_shows_groups_and_reruns(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A; B:A; C:B; D:C,A");
    Overlay ov;
    overlay_init(&ov);
    int g1 = overlay_add(&ov, OVERLAY_BLOCK, "G1: first block", -1, 0);
    overlay_add_node(&ov, g1, 0);
    overlay_add_node(&ov, g1, 1);
    int g2 = overlay_add(&ov, OVERLAY_BLOCK, "G2 (second)", -1, 0);
    overlay_add_node(&ov, g2, 2);
    int g3 = overlay_add(&ov, OVERLAY_BAG, "inner", g1, 1);
    overlay_add_node(&ov, g3, 1);
    assert_int_equal(band_rows(&ov, 3), 2);
    assert_int_equal(band_rows(&ov, 1), 1);
    /* A B C A(again): four steps over twelve columns */
    int steps[4] = {0, 1, 2, 0};
    unsigned char rerun[4] = {0, 0, 0, 1};
    BandCell c[2 * 12];
    band_fill(&ov, g, steps, 4, rerun, 12, 2, c);
    assert_band(c, 12, "[G1--][-]G1~", "   [-]      ");
    assert_int_equal(c[0].group, g1);
    assert_int_equal(c[11].rerun, 1);
    assert_int_equal(c[12 + 3].group, g3);
    char lab[32];
    band_short_label("stage 3: 2 nodes, 1.5 MiB", lab, sizeof lab);
    assert_string_equal(lab, "stage 3");
    int first, last, re;
    band_group_steps(&ov, g1, g, steps, 4, rerun, &first, &last, &re);
    assert_int_equal(first, 0);
    assert_int_equal(last, 1);
    assert_int_equal(re, 1);
    overlay_done(&ov);
    /* bags and separators are spans over their subtree (parent links):
     * S holds A and, through its child bag b, C: steps 1-3 */
    overlay_init(&ov);
    int sp = overlay_add(&ov, OVERLAY_SEPARATOR, "S", -1, 0);
    overlay_add_node(&ov, sp, 0);
    int bb = overlay_add(&ov, OVERLAY_BAG, "b", sp, 1);
    overlay_add_node(&ov, bb, 2);
    int s4[4] = {0, 1, 2, 3};
    BandCell d[2 * 4];
    band_fill(&ov, g, s4, 4, NULL, 4, 2, d);
    assert_band(d, 4, "[S] ", "  - ");
    overlay_done(&ov);
    graph_free(g);
}

static void baseline_runs_on_its_own_axis(void **st TU_UNUSED)
{
    /* a plan twice as long as the baseline: both reach the last column */
    int64_t mem[8] = {1, 1, 1, 1, 1, 1, 1, 1}, base[4] = {2, 2, 2, 8};
    PlotInput in = {.mem = mem, .T = 8, .base = base, .TB = 4, .budget = -1, .peak_step = 0};
    assert_int_equal(plot_steps(&in), 8);
    PlotCell cells[8 * 10];
    plot_curve(&in, 8, 10, 10, cells);
    /* the baseline's last step (8 of 10) shows in the last two columns */
    assert_int_equal(cells[2 * 8 + 7].kind, PC_BASE);
    assert_int_equal(cells[2 * 8 + 6].kind, PC_BASE);
    assert_int_equal(cells[2 * 8 + 5].kind, PC_EMPTY);
    /* above the budget, plan cells say so */
    int64_t m2[2] = {2, 9};
    PlotInput in2 = {.mem = m2, .T = 2, .budget = 5, .peak_step = 1};
    plot_curve(&in2, 2, 10, 10, cells);
    assert_int_equal(cells[9 * 2 + 1].kind, PC_PLAN);
    assert_false(cells[9 * 2 + 1].over);
    assert_int_equal(cells[2 * 2 + 1].kind, PC_PLAN);
    assert_true(cells[2 * 2 + 1].over);
    assert_false(cells[9 * 2 + 0].over);
}

static void fit_in_hundredths(void **st TU_UNUSED)
{
    /* parameters 10000 B; every other value scales: 3400 B at multiplier 1 */
    Graph *g = tu_graph_json("{\"format\":\"remat-graph\",\"nodes\":["
                             "{\"id\":\"w\",\"op\":\"param\",\"phase\":\"input\",\"size\":10000},"
                             "{\"id\":\"x\",\"op\":\"input\",\"phase\":\"input\",\"size\":400},"
                             "{\"id\":\"a\",\"size\":1000,\"inputs\":[\"x\",\"w\"]},"
                             "{\"id\":\"b\",\"size\":1000,\"inputs\":[\"a\"]},"
                             "{\"id\":\"c\",\"size\":1000,\"inputs\":[\"b\",\"a\"]}]}");
    assert_true(fit_unit(g) == 0.01);
    FitResult r;
    Err e;
    err_clear(&e);
    assert_int_equal(fit_batch_units(g, solver_find("noremat"), NULL, 18500, -1, 0.01, 64, &r, NULL, &e), ERR_OK);
    assert_true(fabs(r.m_plain - 2.5) < 1e-9);
    assert_true(fabs(r.m_remat - 2.5) < 1e-9);
    assert_int_equal(r.b_plain, 2);
    assert_int_equal(r.b_remat, 2);
    assert_int_equal(r.peak_one, 13400);
    Graph *gb = graph_scaled(g, r.m_remat, NULL);
    assert_int_equal(tu_check_peak(gb, r.plan.steps, r.plan.T, NULL), 18500);
    graph_free(gb);
    fit_result_done(&r);
    /* below multiplier 1: how far the batch must shrink */
    assert_int_equal(fit_batch_units(g, solver_find("noremat"), NULL, 11700, -1, 0.01, 64, &r, NULL, &e), ERR_OK);
    assert_true(fabs(r.m_plain - 0.5) < 1e-9);
    assert_true(fabs(r.m_remat - 0.5) < 1e-9);
    assert_int_equal(r.b_remat, 0);
    fit_result_done(&r);
    graph_free(g);
    Graph *small = tu_graph("A=4; B=5:A");
    assert_true(fit_unit(small) == 1);
    graph_free(small);
}

static void session_keeps_options_rules_and_facts(void **st TU_UNUSED)
{
    Session *s = tu_session(tu_graph("A=2; B=3:A; C=1:B; D=1:C; E=1:D,B; F=1:E,A"), solver_find("fastsa"));
    Err e;
    err_clear(&e);
    const SolverClass *fs = solver_find("fastsa");
    unsigned gen = s->gen;
    assert_int_equal(session_set_option(s, fs, "nonsense", "1", &e), ERR_USAGE);
    assert_string_equal(e.msg, "fastsa has no option 'nonsense'");
    assert_int_equal(s->gen, gen);
    assert_int_equal(session_set_option(s, fs, "time_limit", "0.5", &e), ERR_OK);
    assert_true(s->gen > gen);
    const SolverOpts *o = session_class_opts(s, fs);
    assert_int_equal(o->n, 1);
    assert_string_equal(o->val[0], "0.5");
    /* back to the default */
    assert_int_equal(session_set_option(s, fs, "time_limit", "", &e), ERR_OK);
    assert_int_equal(session_class_opts(s, fs)->n, 0);
    /* node rules go to every class's options */
    session_set_rules(s, "B", "C");
    SolverOpts eff;
    session_effective_opts(s, solver_find("greedy"), &eff);
    char *k = service_opts_key(&eff);
    assert_string_equal(k, "force=C;pin=B");
    free(k);
    solver_opts_done(&eff);
    /* per-plan figures at install, from a plan put in the cache */
    Plan p;
    plan_init(&p);
    int steps[7] = {0, 1, 2, 0, 3, 4, 5};   /* A runs twice */
    for (int i = 0; i < 7; i++)
        plan_push(&p, steps[i]);
    assert_int_equal(plan_evaluate(&p, s->g, &e), ERR_OK);
    session_set_solver(s, solver_find("greedy"));
    session_cache_put(s, s->cls, s->budget, ERR_OK, NULL, &p, 0);
    assert_int_equal(session_request(s), 1);
    assert_int_equal(s->facts.runs[0], 2);
    assert_int_equal(s->facts.first_step[0], 0);
    assert_int_equal(s->facts.rerun[3], 1);
    assert_int_equal(s->facts.n_rerun_steps, 1);
    assert_int_equal(s->facts.n_recomputed, 1);
    assert_int_equal(s->facts.recomputed[0], 0);
    assert_int_equal(s->sim.T, 7);
    assert_int_equal(s->sim.peak, tu_check_peak(s->g, p.steps, p.T, NULL));
    /* by hand: the peak is 7 at D (step 5), where A's second copy, B, C
     * and D are held; E and F come later */
    assert_int_equal(s->sim.peak, 7);
    assert_int_equal(s->sim.peak_step, 4);
    const char *alive = "ABCD";
    for (int v = 0; v < s->g->n; v++)
        assert_int_equal(s->facts.alive_peak[v] != 0, strchr(alive, s->g->nodes[v].id[0]) != NULL);
    plan_done(&p);
    session_free(s);
}

static void export_format_from_the_name(void **st TU_UNUSED)
{
    assert_string_equal(export_format_of("out/x.svg"), "svg");
    assert_string_equal(export_format_of("x.PNG"), "png");
    assert_string_equal(export_format_of("x.gv"), "dot");
    assert_string_equal(export_format_of("plan.json"), "json");
    assert_null(export_format_of("x.pdf"));
    assert_null(export_format_of("dir.svg/x"));
    assert_null(export_format_of("noext"));
}

/* cgraph has one lexer and one error callback per process: an SVG export
 * on one thread (the explorer's) and DOT loads on another must not mix. */
typedef struct {
    const Graph *g;
    const char *text;
    int loads, ok;      /* the loader's alone until it is joined */
    atomic_int done;    /* set by the exporting thread */
} DotRace;

static void *dot_loads(void *arg)
{
    DotRace *r = arg;
    for (; !atomic_load(&r->done) || r->loads < 20; r->loads++) {
        Err e;
        err_clear(&e);
        Graph *h = graph_from_dot(r->text, strlen(r->text), "race.dot", &e);
        r->ok += h && h->n == r->g->n;
        graph_free(h);
    }
    return NULL;
}

static void export_beside_dot_loads(void **st TU_UNUSED)
{
    Graph *g = tu_graph("A=2; B=3:A; C=1:B; D=1:C; E=1:D,B; F=1:E,A");
    char *text = graph_to_dot(g);
    DotRace r = {g, text, 0, 0, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, dot_loads, &r), 0);
    char path[] = "/tmp/remat_test_race_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    int exported = 0;
    for (int i = 0; i < 40; i++) {
        Err e;
        err_clear(&e);
        exported += export_graph(g, NULL, NULL, "svg", path, &e) == ERR_OK;
    }
    atomic_store(&r.done, 1);
    pthread_join(th, NULL);
    remove(path);
    assert_int_equal(exported, 40);
    assert_int_equal(r.ok, r.loads);
    free(text);
    graph_free(g);
}

TU_MAIN(TU_TEST(advice_ranks_held_values)
        TU_TEST(band_shows_groups_and_reruns)
        TU_TEST(baseline_runs_on_its_own_axis)
        TU_TEST(fit_in_hundredths)
        TU_TEST(session_keeps_options_rules_and_facts)
        TU_TEST(export_format_from_the_name)
        TU_TEST(export_beside_dot_loads))
