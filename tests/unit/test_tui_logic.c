/* test_tui_logic.c — the explorer's terminal-free arithmetic (render/plot):
 * slider value<->column, curve step<->column, axis labels, curve cells. */
#include "testutil.h"

#include "render/plot.h"
#include "src/base/units.h"

static void slider_round_trips(void **st TU_UNUSED)
{
    int64_t lo = 1000, hi = 1000 + 7919;
    for (int w = 2; w < 120; w += 7)
        for (int c = 0; c < w; c++)
            assert_int_equal(plot_slider_col(plot_slider_value(c, lo, hi, w), lo, hi, w), c);
    assert_int_equal(plot_slider_value(0, lo, hi, 50), lo);
    assert_int_equal(plot_slider_value(49, lo, hi, 50), hi);
    assert_int_equal(plot_slider_col(lo - 5, lo, hi, 50), 0);
    assert_int_equal(plot_slider_col(hi + 5, lo, hi, 50), 49);
    assert_int_equal(plot_slider_col(lo + (hi - lo) / 2, lo, hi, 51), 25);
    /* huge byte counts do not overflow */
    int64_t big = (int64_t)1 << 52;
    assert_int_equal(plot_slider_col(big, 0, big, 80), 79);
    assert_int_equal(plot_slider_value(40, 0, big, 81), big / 2);
    /* an empty range pins the knob at the left */
    assert_int_equal(plot_slider_col(5, 5, 5, 40), 0);
    assert_int_equal(plot_slider_value(17, 5, 5, 40), 5);
}

static void steps_map_to_columns_both_ways(void **st TU_UNUSED)
{
    /* fewer steps than columns: each step gets a band of columns */
    assert_int_equal(plot_col_of_step(0, 5, 70), 0);
    assert_int_equal(plot_col_of_step(1, 5, 70), 14);
    assert_int_equal(plot_col_of_step(4, 5, 70), 56);
    assert_int_equal(plot_step_of_col(13, 5, 70), 0);
    assert_int_equal(plot_step_of_col(14, 5, 70), 1);
    assert_int_equal(plot_step_of_col(69, 5, 70), 4);
    /* more steps than columns: monotone, every column reached */
    for (int steps = 1; steps < 400; steps += 13)
        for (int w = 1; w < 90; w += 11) {
            int prev = 0;
            for (int t = 0; t < steps; t++) {
                int c = plot_col_of_step(t, steps, w);
                assert_true(c >= prev && c < w);
                prev = c;
                assert_int_equal(plot_col_of_step(plot_step_of_col(c, steps, w), steps, w), c);
            }
        }
}

static void axis_labels_use_units(void **st TU_UNUSED)
{
    char buf[32], want[32];
    int64_t top = (int64_t)8 << 30;
    assert_true(plot_axis_label(0, 8, top, 4, buf, sizeof buf));
    assert_string_equal(buf, "8.00 GiB");
    assert_true(plot_axis_label(4, 8, top, 4, buf, sizeof buf));
    units_format_bytes(top / 2, want, sizeof want);
    assert_string_equal(buf, want);
    assert_false(plot_axis_label(3, 8, top, 4, buf, sizeof buf));
    assert_false(plot_axis_label(8, 8, top, 4, buf, sizeof buf));
    /* tiny sizes: rows 0, 4 and 8 of 16 under a top of 2 B name 2, 1 and
     * 1 B; the second "1 B" is not written */
    assert_true(plot_axis_label(0, 16, 2, 4, buf, sizeof buf));
    assert_string_equal(buf, "2 B");
    assert_true(plot_axis_label(4, 16, 2, 4, buf, sizeof buf));
    assert_string_equal(buf, "1 B");
    assert_false(plot_axis_label(8, 16, 2, 4, buf, sizeof buf));
}

static void curve_cells_show_plan_baseline_budget_peak(void **st TU_UNUSED)
{
    int64_t mem[4] = {2, 8, 4, 2}, base[4] = {2, 8, 8, 2};
    PlotInput in = {.mem = mem, .T = 4, .base = base, .TB = 4, .budget = 6, .peak_step = 1};
    int w = 4, h = 10;
    int64_t top = 10;
    PlotCell cells[40];
    plot_curve(&in, w, h, top, cells);
#define CELL(r, c) cells[(r) * w + (c)]
    /* column 1 (value 8 of 10) fills 8 rows, the peak mark sits above */
    assert_int_equal(CELL(9, 1).kind, PC_PLAN);
    assert_int_equal(CELL(2, 1).kind, PC_PLAN);
    assert_int_equal(CELL(2, 1).eighths, 8);
    assert_int_equal(CELL(1, 1).kind, PC_PEAK);
    /* column 2: plan 4, baseline 8 shows faintly above the plan */
    assert_int_equal(CELL(6, 2).kind, PC_PLAN);
    assert_int_equal(CELL(5, 2).kind, PC_BASE);
    assert_int_equal(CELL(2, 2).kind, PC_BASE);
    assert_int_equal(CELL(1, 2).kind, PC_EMPTY);
    /* budget 6 of 10 is on the row whose axis label reads 6 (row 4 from
     * the top: plot_row_value(4) is 6), not on the one above it */
    assert_int_equal(plot_row_value(4, h, top), 6);
    assert_int_equal(CELL(4, 0).kind, PC_BUDGET);
    assert_int_equal(CELL(4, 3).kind, PC_BUDGET);
    assert_int_equal(CELL(4, 1).kind, PC_PLAN);
    assert_int_equal(CELL(3, 0).kind, PC_EMPTY);
    /* top leaves headroom above the largest value */
    assert_true(plot_top(&in, h) > 8);
#undef CELL
}

TU_MAIN(TU_TEST(slider_round_trips)
        TU_TEST(steps_map_to_columns_both_ways)
        TU_TEST(axis_labels_use_units)
        TU_TEST(curve_cells_show_plan_baseline_budget_peak))
