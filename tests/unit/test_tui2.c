/* test_tui2.c — the terminal-free logic behind the explorer's compare,
 * replay, play and graph views (render/explore.c, render/graph_cells.c,
 * src/session/sweep.c): every solver side by side through the session's worker,
 * the rows' columns, the budget sweep and its chart, the measured curve's
 * rows, the per-step allocate/free line, and the graph drawn in cells. */
#include "testutil.h"

#include <math.h>

#include <poll.h>

#include "render/compare.h"
#include "render/measured.h"
#include "render/play.h"
#include "render/graph_cells.h"
#include "render/plot.h"
#include "src/session/session.h"
#include "src/plan/sim.h"
#include "src/session/sweep.h"

/* A 6-layer training-like chain: x -> f1..f4 -> then backward reads all. */
static Graph *chain(void)
{
    return tu_graph("!x; f1=2:x; f2=3:f1; f3=2:f2; f4=3:f3; b4:f4,f3; b3:b4,f2; b2:b3,f1; b1:b2,x");
}

/* Wait until every wanted plan has an answer in the session (10 minutes:
 * a limit that only catches a hang). */
static int wait_all(Session *s, const SessionWant *w, int n)
{
    for (int i = 0; i < 60000; i++) {
        int left = 0;
        for (int k = 0; k < n; k++)
            left += !session_answer(s, w[k].cls, w[k].budget);
        if (!left)
            return 1;
        tu_session_pump(s, 10);
    }
    return 0;
}

/* The Compare view's rows: every solver at one budget, queued as the
 * session's background work; each answer's figures are the solver's own
 * plan re-checked independently. */
static void compare_lists_every_solver_with_true_peaks(void **st TU_UNUSED)
{
    Session *s = tu_session(chain(), solver_find("noremat"));
    const Graph *g = s->g;
    int64_t base = s->base_peak, lo = s->min_peak;
    assert_true(lo < base);
    int n = solver_count();
    SessionWant *tk = calloc((size_t)n, sizeof *tk);
    int64_t budget = lo + (base - lo) / 2;
    for (int i = 0; i < n; i++)
        tk[i] = (SessionWant){WANT_PLAN, solver_at(i), budget};
    session_background(s, tk, n);
    assert_true(wait_all(s, tk, n));
    int noremat = 0, within = 0;
    for (int i = 0; i < n; i++) {
        const Answer *en = session_answer(s, solver_at(i), budget);
        CompareRow r = {.cls = en->cls, .rc = en->rc, .has_plan = en->has_plan, .secs = en->secs};
        snprintf(r.msg, sizeof r.msg, "%s", en->err.msg);
        if (en->has_plan) {
            r.peak = en->sim.peak;
            r.overhead = plan_overhead(&en->plan);
            r.cost = en->plan.cost;
        }
        char line[1200];
        compare_row_text(&r, budget, -1, 16, line, sizeof line);
        assert_non_null(strstr(line, r.cls->name));
        if (!r.has_plan) {
            assert_true(r.rc != ERR_OK);
            assert_non_null(strstr(line, "refused: "));
            continue;
        }
        /* the answer's simulation is its plan's, and the plan the solver's own */
        assert_int_equal(en->sim.T, en->plan.T);
        assert_int_equal(en->plan.peak, r.peak);
        Plan p;
        assert_int_equal(tu_solve(g, r.cls->name, budget, &p, NULL), r.rc);
        assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), r.peak);
        assert_int_equal(tu_check_peak(g, en->plan.steps, en->plan.T, NULL), r.peak);
        plan_done(&p);
        /* every row's columns line up: "peak" and "cost" at fixed places */
        assert_int_equal(strstr(line, " peak ") - line, 16);
        if (!strcmp(r.cls->name, "noremat")) {
            noremat = 1;
            assert_int_equal(r.peak, base);
            assert_int_equal(r.rc, ERR_OVER_BUDGET);
            assert_non_null(strstr(line, "OVER budget"));
            assert_true(fabs(r.overhead) < 1e-12);
        }
        if (r.rc == ERR_OK) {
            within++;
            assert_true(r.peak <= budget);
        }
    }
    assert_true(noremat);
    assert_true(within >= 1);   /* greedy/chen meet a mid-range budget */
    free(tk);
    session_free(s);
}

/* Columns of compare rows: the gap-to-bound column only when a bound is
 * given, and the peak with enough digits not to read as the budget. */
static void compare_rows_align_and_tell_apart(void **st TU_UNUSED)
{
    CompareRow r = {.cls = solver_find("greedy"), .rc = ERR_OVER_BUDGET, .has_plan = 1,
                    .peak = 135580000, .overhead = 0.25, .cost = 125, .secs = 0.5};
    char a[300], b[300];
    compare_row_text(&r, 134800000, -1, 10, a, sizeof a);
    assert_string_equal(a, "greedy     peak    129.3 MiB  cost    +25.0%     0.500s  OVER budget");
    compare_row_text(&r, 134800000, 100, 10, b, sizeof b);
    assert_string_equal(b, "greedy     peak    129.3 MiB  cost    +25.0%     0.500s  gap         -  OVER budget");
    r.rc = ERR_OK;
    compare_row_text(&r, 135580000, 100, 10, b, sizeof b);   /* peak == budget: as usual */
    assert_string_equal(b, "greedy     peak      129 MiB  cost    +25.0%     0.500s  gap    +25.0%");
    compare_row_text(&r, 135580000, 0, 10, b, sizeof b);
    assert_string_equal(b, "greedy     peak      129 MiB  cost    +25.0%     0.500s  gap         -");
    char x[48], y[48];
    plot_bytes_pair(134800000, 135580000, x, sizeof x, y, sizeof y);
    assert_string_equal(x, "128.6 MiB");
    assert_string_equal(y, "129.3 MiB");
    plot_bytes_pair(1048576, 1048577, x, sizeof x, y, sizeof y);
    assert_string_equal(x, "1048576 B");
    assert_string_equal(y, "1048577 B");
    plot_bytes_pair(5 << 20, 5 << 20, x, sizeof x, y, sizeof y);
    assert_string_equal(x, "5.00 MiB");
    assert_string_equal(y, "5.00 MiB");
}

static void sweep_budgets_span_the_range(void **st TU_UNUSED)
{
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

static void sweep_plans_revalidate_and_chart(void **st TU_UNUSED)
{
    Graph *g = chain();
    int64_t base = tu_baseline_peak(g);
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
    TradeoffPoint tp[N];
    for (int i = 0; i < N; i++)
        tp[i] = (TradeoffPoint){pts[i].has_plan, pts[i].plan.peak, plan_overhead(&pts[i].plan)};
    int drawn = tradeoff_grid(tp, N, lo, base, 20, 8, grid);
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

static void measured_rows_follow_the_values(void **st TU_UNUSED)
{
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

static void play_line_names_allocations_and_frees(void **st TU_UNUSED)
{
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

/* Follow the box-drawing masks from the row under u's label; 1 when a
 * path reaches the row above v's label inside v's columns. */
static int connected(const CellLayout *l, int u, int v)
{
    int W = l->w, H = l->h;
    unsigned char *seen = calloc((size_t)W * H, 1);
    int *q = malloc(sizeof *q * (size_t)W * H), qh = 0, qt = 0, hit = 0;
    for (int x = l->x[u]; x < l->x[u] + l->len[u]; x++)
        if (l->y[u] + 1 < H && (l->edge[(l->y[u] + 1) * W + x] & EDGE_UP)) {
            seen[(l->y[u] + 1) * W + x] = 1;
            q[qt++] = (l->y[u] + 1) * W + x;
        }
    while (qh < qt && !hit) {
        int c = q[qh++], y = c / W, x = c % W;
        unsigned m = l->edge[c];
        if ((m & EDGE_DOWN) && y + 1 == l->y[v] && x >= l->x[v] && x < l->x[v] + l->len[v])
            hit = 1;
        int nb[4][3] = {{EDGE_DOWN, y + 1, x}, {EDGE_UP, y - 1, x}, {EDGE_LEFT, y, x - 1}, {EDGE_RIGHT, y, x + 1}};
        for (int k = 0; k < 4; k++) {
            int ny = nb[k][1], nx = nb[k][2];
            if (!(m & nb[k][0]) || ny < 0 || ny >= H || nx < 0 || nx >= W || seen[ny * W + nx])
                continue;
            if (!l->edge[ny * W + nx])
                continue;   /* a label: paths end there */
            seen[ny * W + nx] = 1;
            q[qt++] = ny * W + nx;
        }
    }
    free(seen);
    free(q);
    return hit;
}

/* No two labels share a cell, and no edge runs through a label. */
static void assert_labels_clear(const Graph *g, const CellLayout *l)
{
    for (int i = 0; i < g->n; i++) {
        if (l->x[i] < 0)
            continue;
        assert_int_equal(l->len[i], (int)strlen(g->nodes[i].id));
        for (int x = l->x[i]; x < l->x[i] + l->len[i]; x++)
            assert_int_equal(l->edge[l->y[i] * l->w + x], 0);
        for (int j = i + 1; j < g->n; j++)
            if (l->x[j] >= 0 && l->y[j] == l->y[i])
                assert_true(l->x[j] >= l->x[i] + l->len[i] + 1 || l->x[i] >= l->x[j] + l->len[j] + 1);
    }
}

static void cells_draw_every_node_and_edge(void **st TU_UNUSED)
{
    /* Kumar et al.'s Figure 1: all five nodes and their six edges */
    Graph *g = tu_graph_json("{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"A\"},{\"id\":\"B\",\"inputs\":[\"A\"]},"
                             "{\"id\":\"C\",\"inputs\":[\"B\"]},{\"id\":\"D\",\"inputs\":[\"B\",\"C\"]},"
                             "{\"id\":\"E\",\"inputs\":[\"A\",\"D\"]}]}");
    CellParams prm = {0, 2, 1, 1000};
    CellLayout l;
    Err e;
    err_clear(&e);
    assert_int_equal(cell_layout(g, NULL, &prm, &l, NULL, &e), ERR_OK);
    assert_int_equal(l.edges, 6);
    assert_int_equal(l.long_edges, 0);
    assert_int_equal(l.ranks, 5);
    assert_true(l.w <= 20 && l.h <= 20);   /* fits the opening view */
    for (int v = 0; v < g->n; v++)
        assert_true(l.x[v] >= 0);
    for (int v = 0; v < g->n; v++)
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            assert_true(l.y[u] < l.y[v]);
            assert_true(connected(&l, u, v));
        }
    assert_labels_clear(g, &l);
    /* no path where there is no edge: C does not reach A */
    assert_false(connected(&l, 2, 0));
    cell_layout_done(&l);
    graph_free(g);
    /* a training chain: long edges from each layer to its gradient */
    Graph *t = chain();
    assert_int_equal(cell_layout(t, NULL, &prm, &l, NULL, &e), ERR_OK);
    assert_int_equal(l.edges, t->n_edges);
    assert_labels_clear(t, &l);
    for (int v = 0; v < t->n; v++)
        for (int k = t->in_off[v]; k < t->in_off[v + 1]; k++)
            assert_true(connected(&l, t->in_idx[k], v));
    cell_layout_done(&l);
    /* without room for pass-throughs the long edges are counted, not drawn */
    CellParams tight = {0, 2, 1, 0};
    assert_int_equal(cell_layout(t, NULL, &tight, &l, NULL, &e), ERR_OK);
    assert_true(l.long_edges > 0);
    assert_int_equal(l.edges + l.long_edges, t->n_edges);
    cell_layout_done(&l);
    /* a focus: only the kept nodes are placed */
    unsigned char keep[16] = {0};
    int f2 = graph_find(t, "f2");
    keep[f2] = keep[graph_find(t, "f1")] = keep[graph_find(t, "f3")] = keep[graph_find(t, "b2")] = 1;
    assert_int_equal(cell_layout(t, keep, &prm, &l, NULL, &e), ERR_OK);
    for (int v = 0; v < t->n; v++)
        assert_int_equal(l.x[v] >= 0, keep[v]);
    assert_int_equal(l.edges, 3);  /* f1->f2, f2->f3, f2->b2 */
    cell_layout_done(&l);
    /* short labels: first characters and '~' */
    char lab[32];
    cell_label(t, graph_find(t, "f1"), 0, lab, sizeof lab);
    assert_string_equal(lab, "f1");
    Graph *w = tu_graph("alongname; b:alongname");
    cell_label(w, 0, 4, lab, sizeof lab);
    assert_string_equal(lab, "alo~");
    assert_string_equal(cell_edge_glyph(EDGE_UP | EDGE_RIGHT, 0), "\u2514");
    assert_string_equal(cell_edge_glyph(EDGE_UP | EDGE_DOWN | EDGE_LEFT | EDGE_RIGHT, 1), "+");
    graph_free(w);
    /* a cancelled layout says so */
    Progress pr;
    progress_init(&pr);
    atomic_store(&pr.cancel, 1);
    assert_int_equal(cell_layout(t, NULL, &prm, &l, &pr, &e), ERR_CANCELLED);
    graph_free(t);
}

/* session_cache_put: a plan computed elsewhere (the sweep, --plan) is
 * served by session_request at once and shown as the current plan */
static void cached_plans_are_served_without_the_worker(void **st TU_UNUSED)
{
    Session *s = tu_session(chain(), solver_find("greedy"));
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

TU_MAIN(TU_TEST(compare_lists_every_solver_with_true_peaks)
        TU_TEST(sweep_budgets_span_the_range)
        TU_TEST(sweep_plans_revalidate_and_chart)
        TU_TEST(measured_rows_follow_the_values)
        TU_TEST(play_line_names_allocations_and_frees)
        TU_TEST(compare_rows_align_and_tell_apart)
        TU_TEST(cells_draw_every_node_and_edge)
        TU_TEST(cached_plans_are_served_without_the_worker))
