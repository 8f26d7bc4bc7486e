/* test_export.c — exports of big graphs (render/export.c): AUTO picks the
 * layered layout beyond EXPORT_DOT_MAX_NODES; the layered SVG draws every
 * node and every edge; the edges' polylines (render/graph_cells.c) are
 * orthogonal and join their ends; progress reaches 1 through increasing
 * stages; a cancel leaves the old file; a failing write leaves the old
 * file and no temporary one. Reads samples/models/resnet18.json (202
 * nodes), so run from the repository root as the test runner does. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "render/export.h"
#include "render/graph_cells.h"
#include "src/base/fileio.h"
#include "src/graph/graph_io.h"
#include "src/plan/overlay.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"

static char dir[64];
static Graph *g;

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/remat-test-export-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    Err e;
    err_clear(&e);
    g = graph_load("samples/models/resnet18.json", &e);
    if (!g)
        fprintf(stderr, "%s\n", e.msg);
    file_fault_set("");
    return g ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    file_fault_set(NULL);
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[512];
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    graph_free(g);
    return 0;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static int dir_entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    closedir(d);
    return n;
}

static void test_auto_threshold(void **state)
{
    (void)state;
    assert_true(g->n > EXPORT_DOT_MAX_NODES);
    assert_true(export_layered_for(g, NULL));
    ExportOpts dot = {EXPORT_LAYOUT_DOT, NULL, NULL, NULL};
    assert_false(export_layered_for(g, &dot));
    Err e;
    err_clear(&e);
    Graph *small = graph_load("samples/chain32.json", &e);
    assert_non_null(small);
    assert_false(export_layered_for(small, NULL));
    graph_free(small);
}

/* Every node is drawn once, with its label, and every edge once. */
static void test_layered_svg_complete(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/r18.svg", dir);
    Err e;
    err_clear(&e);
    assert_int_equal(export_graph(g, NULL, NULL, "svg", path, &e), ERR_OK);
    size_t len;
    char *svg = file_read_all(path, &len, &e);
    assert_non_null(svg);
    assert_int_equal(count(svg, "class=\"node\""), g->n);
    assert_int_equal(count(svg, "class=\"edge\""), g->n_edges);
    for (int v = 0; v < g->n; v++) {
        char t[300];
        snprintf(t, sizeof t, "<title>%s</title>", g->nodes[v].id);
        if (!strstr(svg, t))
            fail_msg("node %s not drawn", g->nodes[v].id);
    }
    free(svg);
    assert_int_equal(dir_entries(), 1);
    unlink(path);
}

/* The polylines: one per drawn edge, axis-parallel pieces, starting in
 * the source's label cells and ending in the target's. */
static void test_paths_orthogonal(void **state)
{
    (void)state;
    CellParams prm = {0, 2, 1, 1 << 26};
    CellLayout l;
    Err e;
    err_clear(&e);
    assert_int_equal(cell_layout(g, NULL, &prm, &l, NULL, &e), ERR_OK);
    assert_int_equal(l.long_edges, 0);
    assert_int_equal(l.n_paths, l.edges);
    assert_int_equal(l.edges, g->n_edges);
    for (int i = 0; i < l.n_paths; i++) {
        int a = l.path_off[i], b = l.path_off[i + 1], u = l.path_u[i], v = l.path_v[i];
        assert_true(b - a >= 2);
        assert_int_equal(l.path_y[a], l.y[u]);
        assert_int_equal(l.path_y[b - 1], l.y[v]);
        assert_in_range(l.path_x[a], l.x[u], l.x[u] + l.len[u] - 1);
        assert_in_range(l.path_x[b - 1], l.x[v], l.x[v] + l.len[v] - 1);
        for (int k = a + 1; k < b; k++) {
            assert_true(l.path_x[k] == l.path_x[k - 1] || l.path_y[k] == l.path_y[k - 1]);
            assert_true(l.path_y[k] >= l.path_y[k - 1]);  /* edges run down */
            if (k + 1 < b) /* corners only: no point in the middle of a straight run */
                assert_false((l.path_x[k - 1] == l.path_x[k] && l.path_x[k] == l.path_x[k + 1]) ||
                             (l.path_y[k - 1] == l.path_y[k] && l.path_y[k] == l.path_y[k + 1]));
        }
    }
    cell_layout_done(&l);
}

/* A plan and a structure on the layered path: the title, recomputed and
 * held nodes marked as on the dot path, each group a cluster with its box. */
static void test_layered_plan_and_groups(void **state)
{
    (void)state;
    Plan p;
    plan_init(&p);
    int T;
    int *ord = sim_baseline_order(g, &T);
    for (int t = 0; t < T; t++)
        plan_push(&p, ord[t]);
    plan_push(&p, ord[T - 1]);  /* the last node again: a rerun */
    free(ord);
    Err e;
    err_clear(&e);
    assert_int_equal(plan_evaluate(&p, g, &e), ERR_OK);
    Overlay ov;
    overlay_init(&ov);
    int a = overlay_add(&ov, OVERLAY_BLOCK, "first block", -1, 0);
    int b = overlay_add(&ov, OVERLAY_SEGMENT, "second", -1, 0);
    for (int v = 0; v < 10; v++)
        overlay_add_node(&ov, v < 5 ? a : b, v);
    char path[128];
    snprintf(path, sizeof path, "%s/plan.svg", dir);
    assert_int_equal(export_graph(g, &p, &ov, "svg", path, &e), ERR_OK);
    size_t len;
    char *svg = file_read_all(path, &len, &e);
    assert_non_null(svg);
    assert_int_equal(count(svg, "class=\"cluster\""), 2);
    assert_non_null(strstr(svg, ">first block<"));
    assert_non_null(strstr(svg, ">second<"));
    assert_non_null(strstr(svg, "orange = recomputed"));
    assert_true(count(svg, "fill=\"orange\"") >= 1);
    assert_true(count(svg, "stroke=\"red\"") >= 1);
    assert_int_equal(count(svg, "class=\"node\""), g->n);
    free(svg);
    unlink(path);
    overlay_done(&ov);
    plan_done(&p);
}

typedef struct Seen {
    double last;
    int calls;
    int bad;
} Seen;

static void on_progress(void *arg, double done, const char *stage)
{
    Seen *s = arg;
    if (done < s->last || !stage || !*stage)
        s->bad = 1;
    s->last = done;
    s->calls++;
}

static void test_progress(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/p.png", dir);
    Progress p;
    progress_init(&p);
    Seen s = {0, 0, 0};
    ExportOpts o = {EXPORT_LAYOUT_AUTO, &p, on_progress, &s};
    Err e;
    err_clear(&e);
    assert_int_equal(export_graph_opts(g, NULL, NULL, NULL, "png", path, &o, &e), ERR_OK);
    assert_false(s.bad);
    assert_true(s.calls >= 4);
    assert_true(s.last == 1.0);
    assert_true(atomic_load(&p.done) == 1.0);
    assert_int_equal(access(path, F_OK), 0);
    unlink(path);
}

/* A cancelled export (cancelled from the start, and cancelled from the
 * progress callback once rendering starts) leaves the old file. */
static void cancel_at_render(void *arg, double done, const char *stage)
{
    (void)done;
    if (!strcmp(stage, "rendering"))
        atomic_store(&((Progress *)arg)->cancel, 1);
}

static void test_cancel_keeps_old(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/c.svg", dir);
    Err e;
    err_clear(&e);
    assert_int_equal(file_write_all(path, "old", 3, &e), ERR_OK);
    Progress p;
    progress_init(&p);
    atomic_store(&p.cancel, 1);
    ExportOpts o = {EXPORT_LAYOUT_AUTO, &p, NULL, NULL};
    assert_int_equal(export_graph_opts(g, NULL, NULL, NULL, "svg", path, &o, &e), ERR_CANCELLED);
    progress_init(&p);
    ExportOpts o2 = {EXPORT_LAYOUT_AUTO, &p, cancel_at_render, &p};
    assert_int_equal(export_graph_opts(g, NULL, NULL, NULL, "svg", path, &o2, &e), ERR_CANCELLED);
    assert_non_null(strstr(e.msg, "cancelled"));
    size_t len;
    char *s = file_read_all(path, &len, &e);
    assert_string_equal(s, "old");
    free(s);
    assert_int_equal(dir_entries(), 1);
    unlink(path);
}

/* A disk that fills up while Graphviz writes: the old file stays, no
 * temporary file is left, the error names the file and the cause. */
static void test_full_disk_keeps_old(void **state)
{
    (void)state;
    const char *fmts[] = {"svg", "png", "dot"};
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/f.%s", dir, fmts[i]);
        Err e;
        err_clear(&e);
        assert_int_equal(file_write_all(path, "old", 3, &e), ERR_OK);
        /* the DOT text (45 KB) is one write; the SVG and PNG fail mid-file */
        file_fault_set(strcmp(fmts[i], "dot") ? "2" : "1");
        int rc = export_graph(g, NULL, NULL, fmts[i], path, &e);
        file_fault_set("");
        assert_int_equal(rc, ERR_IO);
        char want[300];
        snprintf(want, sizeof want, "%s: cannot write: No space left on device", path);
        assert_string_equal(e.msg, want);
        size_t len;
        char *s = file_read_all(path, &len, &e);
        assert_string_equal(s, "old");
        free(s);
        unlink(path);
        assert_int_equal(dir_entries(), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_auto_threshold),
        cmocka_unit_test(test_layered_svg_complete),
        cmocka_unit_test(test_paths_orthogonal),
        cmocka_unit_test(test_layered_plan_and_groups),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_cancel_keeps_old),
        cmocka_unit_test(test_full_disk_keeps_old),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
