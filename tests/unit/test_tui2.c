/* test_tui2.c — the terminal-free logic behind the explorer's compare,
 * replay, play and graph views (render/explore.c, render/layout.c): every
 * solver side by side, the budget sweep and its chart, the measured curve's
 * rows, the per-step allocate/free line, the viewport and the dot layout. */
#include "testutil.h"

#include <math.h>

#include "render/explore.h"
#include "render/layout.h"
#include "render/plot.h"
#include "src/session.h"
#include "src/sim.h"

/* A 6-layer training-like chain: x -> f1..f4 -> then backward reads all. */
static Graph *chain(void)
{
    return tu_graph("!x; f1=2:x; f2=3:f1; f3=2:f2; f4=3:f3; b4:f4,f3; b3:b4,f2; b2:b3,f1; b1:b2,x");
}

static void compare_lists_every_solver_with_true_peaks(void **st)
{
    (void)st;
    Graph *g = chain();
    int64_t base;
    double bcost;
    sim_baseline(g, &base, &bcost);
    int at_min;
    int64_t lo = graph_min_peak(g, &at_min);
    assert_true(lo < base);
    int n = solver_count();
    CompareRow *rows = calloc((size_t)n, sizeof *rows);
    atomic_int at = -1;
    int64_t budget = lo + (base - lo) / 2;
    assert_int_equal(compare_solvers(g, budget, NULL, NULL, rows, NULL, &at), n);
    assert_int_equal(atomic_load(&at), n - 1);
    int noremat = 0, within = 0;
    for (int i = 0; i < n; i++) {
        assert_ptr_equal(rows[i].cls, solver_at(i));
        char line[1200];
        compare_row_text(&rows[i], line, sizeof line);
        assert_non_null(strstr(line, rows[i].cls->name));
        if (!rows[i].has_plan) {
            assert_true(rows[i].rc != ERR_OK);
            assert_non_null(strstr(line, "refused: "));
            continue;
        }
        /* each figure matches the solver's own plan re-checked independently */
        Plan p;
        assert_int_equal(tu_solve(g, rows[i].cls->name, budget, &p, NULL), rows[i].rc);
        assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), rows[i].peak);
        plan_done(&p);
        if (!strcmp(rows[i].cls->name, "noremat")) {
            noremat = 1;
            assert_int_equal(rows[i].peak, base);
            assert_int_equal(rows[i].rc, ERR_OVER_BUDGET);
            assert_non_null(strstr(line, "OVER budget"));
            assert_true(fabs(rows[i].overhead) < 1e-12);
        }
        if (rows[i].rc == ERR_OK) {
            within++;
            assert_true(rows[i].peak <= budget);
        }
    }
    assert_true(noremat);
    assert_true(within >= 1);   /* greedy/chen meet a mid-range budget */
    /* a cancelled comparison says so */
    Progress pr;
    progress_init(&pr);
    atomic_store(&pr.cancel, 1);
    assert_int_equal(compare_solvers(g, budget, NULL, NULL, rows, &pr, NULL), -1);
    free(rows);
    graph_free(g);
}

static void sweep_budgets_span_the_range(void **st)
{
    (void)st;
    int64_t b[10];
    sweep_budgets(100, 1000, 10, b);
    assert_int_equal(b[0], 100);
    assert_int_equal(b[9], 1000);
    assert_int_equal(b[1], 200);
    for (int i = 1; i < 10; i++)
        assert_true(b[i] > b[i - 1]);
    sweep_budgets(7, 7, 3, b);
    assert_int_equal(b[0], 7);
    assert_int_equal(b[2], 7);
    sweep_budgets(5, 9, 1, b);
    assert_int_equal(b[0], 5);
}

static void sweep_plans_revalidate_and_chart(void **st)
{
    (void)st;
    Graph *g = chain();
    int64_t base;
    double bcost;
    sim_baseline(g, &base, &bcost);
    int at_min;
    int64_t lo = graph_min_peak(g, &at_min);
    enum { N = 6 };
    int64_t b[N];
    sweep_budgets(lo, base, N, b);
    SweepPoint pts[N];
    Err e;
    err_clear(&e);
    atomic_int at = -1;
    assert_int_equal(sweep_run(g, solver_find("greedy"), NULL, b, N, pts, NULL, &at, &e), 0);
    assert_int_equal(atomic_load(&at), N - 1);
    for (int i = 0; i < N; i++) {
        assert_int_equal(pts[i].budget, b[i]);
        assert_true(pts[i].has_plan);
        int64_t pk = tu_check_peak(g, pts[i].plan.steps, pts[i].plan.T, NULL);
        assert_int_equal(pk, pts[i].plan.peak);
        if (pts[i].rc == ERR_OK)
            assert_true(pk <= b[i]);
    }
    /* at the baseline budget nothing needs recomputing */
    assert_int_equal(pts[N - 1].rc, ERR_OK);
    assert_true(plan_overhead(&pts[N - 1].plan) < 1e-12);
    /* chart: the baseline point sits top-left, every point is drawn */
    char grid[20 * 8];
    int drawn = tradeoff_grid(pts, N, lo, base, 20, 8, grid);
    assert_int_equal(drawn, N);
    assert_int_equal(grid[0], '*');
    int stars = 0;
    for (int i = 0; i < 20 * 8; i++)
        stars += grid[i] == '*';
    assert_true(stars >= 1 && stars <= N);
    /* the most expensive point is in the last column */
    int last_col = 0;
    for (int r = 0; r < 8; r++)
        last_col |= grid[r * 20 + 19] == '*';
    double omax = 0;
    for (int i = 0; i < N; i++)
        omax = fmax(omax, plan_overhead(&pts[i].plan));
    assert_int_equal(last_col, omax > 0);
    sweep_points_done(pts, N);
    /* a budget below the smallest possible peak: that point has no plan,
     * the next one does */
    Graph *g2 = tu_graph("A; B:A");
    SweepPoint p2[2];
    int64_t b2[2] = {1, 2};
    err_clear(&e);
    int rc = sweep_run(g2, solver_find("greedy"), NULL, b2, 2, p2, NULL, NULL, &e);
    assert_int_equal(rc, 0);
    assert_int_equal(p2[0].rc, ERR_OVER_BUDGET);
    assert_false(p2[0].has_plan);
    assert_int_equal(p2[1].rc, ERR_OK);
    assert_int_equal(p2[1].plan.peak, 2);
    sweep_points_done(p2, 2);
    graph_free(g2);
    graph_free(g);
}

static void measured_rows_follow_the_values(void **st)
{
    (void)st;
    int64_t m[4] = {10, 5, 0, 8};
    int rows[8];
    /* 4 steps over 8 columns, 10 rows over 0..10 */
    measured_rows(m, 4, 4, 8, 10, 10, rows);
    assert_int_equal(rows[0], 0);       /* 10 of 10: the top row */
    assert_int_equal(rows[1], 0);
    assert_int_equal(rows[2], 5);       /* 5 of 10: row 5 from the top */
    assert_int_equal(rows[4], 9);       /* 0: the bottom row */
    assert_int_equal(rows[6], 2);       /* 8 of 10 */
    /* a shorter measured curve leaves the later columns empty */
    measured_rows(m, 2, 4, 8, 10, 10, rows);
    assert_int_equal(rows[3], 5);
    assert_int_equal(rows[4], -1);
    assert_int_equal(rows[7], -1);
    /* agree with the plan cells: the measured row of a value equal to the
     * plan's holds the plan's topmost filled cell */
    int64_t plan[3] = {3, 7, 4};
    PlotInput in = {.mem = plan, .T = 3, .budget = -1, .peak_step = 1};
    int64_t top = plot_top(&in, 6);
    PlotCell cells[9 * 6];
    plot_curve(&in, 9, 6, top, cells);
    int r3[9];
    measured_rows(plan, 3, 3, 9, 6, top, r3);
    for (int c = 0; c < 9; c++) {
        int first = -1;
        for (int r = 0; r < 6 && first < 0; r++)
            if (cells[r * 9 + c].kind == PC_PLAN)
                first = r;
        assert_int_equal(r3[c], first);
    }
    assert_true(fabs(measured_diff(110, 100) - 0.10) < 1e-12);
    assert_true(fabs(measured_diff(90, 100) + 0.10) < 1e-12);
    assert_true(measured_diff(5, 0) == 0);
}

static void play_line_names_allocations_and_frees(void **st)
{
    (void)st;
    Graph *g = tu_graph("A; B=3:A; C=2:B; D:B,C");
    int sched[4] = {0, 1, 2, 3};
    Sim s;
    Err e;
    err_clear(&e);
    assert_int_equal(sim_run(g, sched, 4, &s, &e), 0);
    char buf[256];
    play_step_text(g, sched, &s, 0, buf, sizeof buf);
    assert_string_equal(buf, "step 1/4 runs A: allocates 1 B; frees nothing");
    play_step_text(g, sched, &s, 1, buf, sizeof buf);
    assert_string_equal(buf, "step 2/4 runs B: allocates 3 B; frees A");
    play_step_text(g, sched, &s, 2, buf, sizeof buf);
    assert_string_equal(buf, "step 3/4 runs C: allocates 2 B; frees nothing");
    /* the output D stays; B and C end at D's step */
    play_step_text(g, sched, &s, 3, buf, sizeof buf);
    assert_string_equal(buf, "step 4/4 runs D: allocates 1 B; frees B, C");
    play_step_text(g, sched, &s, 4, buf, sizeof buf);
    assert_string_equal(buf, "no step 5");
    /* a recomputation: A runs again and the first copy was freed earlier */
    int s2[5] = {0, 1, 0, 2, 3};
    Graph *g2 = tu_graph("A; B:A; C:A; D:B,C");
    sim_done(&s);
    assert_int_equal(sim_run(g2, s2, 5, &s, &e), 0);
    play_step_text(g2, s2, &s, 1, buf, sizeof buf);
    assert_string_equal(buf, "step 2/5 runs B: allocates 1 B; frees A");
    play_step_text(g2, s2, &s, 3, buf, sizeof buf);
    assert_string_equal(buf, "step 4/5 runs C: allocates 1 B; frees A");
    sim_done(&s);
    graph_free(g2);
    graph_free(g);
}

static void viewport_maps_pans_and_zooms(void **st)
{
    (void)st;
    Viewport v;
    viewport_fit(&v, 100, 50, 50, 20);   /* 2 points a column, 4 a row */
    int c, r;
    assert_true(viewport_cell(&v, 0, 50, &c, &r));
    assert_int_equal(c, 0);
    assert_int_equal(r, 0);
    assert_true(viewport_cell(&v, 99, 1, &c, &r));
    assert_int_equal(c, 49);
    assert_int_equal(r, 12);
    assert_false(viewport_cell(&v, 101, 25, &c, &r));
    viewport_pan(&v, 10, 0);
    assert_true(viewport_cell(&v, 20, 50, &c, &r));
    assert_int_equal(c, 0);
    assert_false(viewport_cell(&v, 10, 50, &c, &r));
    v.zoom = 2;
    viewport_center(&v, 60, 25);
    assert_true(viewport_cell(&v, 60, 25, &c, &r));
    assert_int_equal(c, 25);
    assert_int_equal(r, 10);
    /* zoomed in, one column is a point: a neighbour 1 point away moves a column */
    int c2, r2;
    assert_true(viewport_cell(&v, 61, 25, &c2, &r2));
    assert_int_equal(c2, 26);
}

static void layout_places_every_node_in_rank_order(void **st)
{
    (void)st;
    Graph *g = tu_graph("!x; A:x; B:A; C:B; D:A");
    Layout l;
    Err e;
    err_clear(&e);
    assert_int_equal(layout_graph(g, NULL, NULL, &l, &e), 0);
    assert_int_equal(l.n, 5);
    assert_true(l.width > 0 && l.height > 0);
    for (int i = 0; i < 5; i++) {
        assert_false(isnan(l.x[i]));
        assert_true(l.x[i] >= 0 && l.x[i] <= l.width);
        assert_true(l.y[i] >= 0 && l.y[i] <= l.height);
    }
    int x = graph_find(g, "x"), a = graph_find(g, "A"), b = graph_find(g, "B"), c = graph_find(g, "C"),
        d = graph_find(g, "D");
    /* dot ranks top to bottom (y up): each input above its consumer */
    assert_true(l.y[x] > l.y[a]);
    assert_true(l.y[a] > l.y[b]);
    assert_true(l.y[b] > l.y[c]);
    assert_true(l.y[a] > l.y[d]);
    /* siblings B and D share a rank, side by side */
    assert_true(fabs(l.y[b] - l.y[d]) < 1e-6);
    assert_true(fabs(l.x[b] - l.x[d]) > 1);
    layout_done(&l);
    graph_free(g);
}

/* session_cache_put: a plan computed elsewhere (the sweep, --plan) is
 * served by session_request at once and shown as the current plan */
static void cached_plans_are_served_without_the_worker(void **st)
{
    (void)st;
    Err e;
    err_clear(&e);
    Session *s = session_new(chain(), solver_find("greedy"), NULL, &e);
    assert_non_null(s);
    int at_min;
    int64_t lo = graph_min_peak(s->g, &at_min);
    int64_t b = lo + (s->base_peak - lo) / 3;
    Plan p;
    assert_int_equal(tu_solve(s->g, "greedy", b, &p, NULL), ERR_OK);
    assert_false(session_cached(s, s->cls, b));
    session_cache_put(s, s->cls, b, ERR_OK, NULL, &p, 0.5);
    assert_true(session_cached(s, s->cls, b));
    assert_false(session_cached(s, solver_find("chen"), b));
    session_set_budget(s, b);
    assert_int_equal(session_request(s), 1);    /* served now, no worker */
    assert_true(s->have);
    assert_true(s->from_cache);
    assert_int_equal(s->plan.T, p.T);
    assert_memory_equal(s->plan.steps, p.steps, (size_t)p.T * sizeof *p.steps);
    assert_int_equal(s->sim.peak, tu_check_peak(s->g, p.steps, p.T, NULL));
    assert_true(s->secs == 0.5);
    /* putting the same key again replaces the entry, not duplicates it */
    int n = s->n_cache;
    session_cache_put(s, s->cls, b, ERR_OK, NULL, &p, 0.25);
    assert_int_equal(s->n_cache, n);
    /* a refusal without a plan is cached too and keeps the shown plan */
    Err r;
    err_set(&r, ERR_UNSUPPORTED, "not here");
    session_cache_put(s, solver_find("chen"), b, ERR_UNSUPPORTED, &r, NULL, 0);
    session_set_solver(s, solver_find("chen"));
    assert_int_equal(session_request(s), 1);
    assert_int_equal(s->rc, ERR_UNSUPPORTED);
    assert_string_equal(s->err.msg, "not here");
    assert_int_equal(s->plan.T, p.T);
    plan_done(&p);
    session_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compare_lists_every_solver_with_true_peaks),
        cmocka_unit_test(sweep_budgets_span_the_range),
        cmocka_unit_test(sweep_plans_revalidate_and_chart),
        cmocka_unit_test(measured_rows_follow_the_values),
        cmocka_unit_test(play_line_names_allocations_and_frees),
        cmocka_unit_test(viewport_maps_pans_and_zooms),
        cmocka_unit_test(layout_places_every_node_in_rank_order),
        cmocka_unit_test(cached_plans_are_served_without_the_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
