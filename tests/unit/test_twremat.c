/* test_twremat.c — the min-fill tree decomposition (validity, widths of
 * known graphs, Lemma 1 bag count, balanced separators) and the TWRemat
 * solver: Figure 1's schedule exactly, plans re-validated on every sample,
 * the chain trade-off between k and schedule length, max_steps, resolve. */
#include "tests/unit/testutil.h"

#include "solvers/twremat/treedec.h"

/* An undirected graph under construction: edge list -> CSR (one side). */
typedef struct {
    int n, ne, cap;
    int *eu, *ev;
    int *off, *adj;
} UG;

static void ug_init(UG *u, int n)
{
    memset(u, 0, sizeof *u);
    u->n = n;
}

static void ug_edge(UG *u, int a, int b)
{
    if (u->ne == u->cap) {
        u->cap = u->cap ? 2 * u->cap : 64;
        u->eu = realloc(u->eu, (size_t)u->cap * sizeof *u->eu);
        u->ev = realloc(u->ev, (size_t)u->cap * sizeof *u->ev);
    }
    u->eu[u->ne] = a;
    u->ev[u->ne++] = b;
}

static void ug_build(UG *u)
{
    u->off = calloc((size_t)u->n + 1, sizeof *u->off);
    u->adj = malloc(((size_t)u->ne + 1) * sizeof *u->adj);
    for (int i = 0; i < u->ne; i++)
        u->off[u->eu[i] + 1]++;
    for (int v = 0; v < u->n; v++)
        u->off[v + 1] += u->off[v];
    int *fp = malloc(((size_t)u->n + 1) * sizeof *fp);
    memcpy(fp, u->off, (size_t)u->n * sizeof *fp);
    for (int i = 0; i < u->ne; i++)
        u->adj[fp[u->eu[i]]++] = u->ev[i];
    free(fp);
}

static void ug_free(UG *u)
{
    free(u->eu);
    free(u->ev);
    free(u->off);
    free(u->adj);
}

static void check_valid(const TreeDec *td, const UG *u)
{
    char why[256] = "";
    if (treedec_validate(td, u->n, u->off, u->adj, why, sizeof why))
        fail_msg("invalid tree decomposition: %s", why);
}

/* No bag is a subset of a tree neighbour (what Lemma 1 leaves). */
static void check_no_subset_neighbour(const TreeDec *td)
{
    for (int b = 0; b < td->nbags; b++) {
        int p = td->parent[b];
        if (p < 0)
            continue;
        for (int dir = 0; dir < 2; dir++) {
            int a = dir ? p : b, c = dir ? b : p, all = 1;
            for (int i = td->off[a]; i < td->off[a + 1]; i++) {
                int in = 0;
                for (int j = td->off[c]; j < td->off[c + 1]; j++)
                    in |= td->nodes[j] == td->nodes[i];
                all &= in;
            }
            if (all)
                fail_msg("bag %d is a subset of its neighbour %d", a, c);
        }
    }
}

/* Decompose, validate, shrink, validate again; returns the width. */
static int decompose(const UG *u, TreeDec *td)
{
    Err e;
    err_clear(&e);
    assert_int_equal(treedec_min_fill(u->n, u->off, u->adj, td, NULL, &e), ERR_OK);
    check_valid(td, u);
    assert_int_equal(td->nbags, u->n);   /* one bag per eliminated vertex */
    int w = td->width;
    treedec_shrink(td);
    check_valid(td, u);
    assert_true(td->nbags <= u->n);      /* Lemma 1 */
    assert_true(td->nbags >= 1);
    assert_int_equal(td->width, w);      /* merging subsets keeps the width */
    check_no_subset_neighbour(td);
    return td->width;
}

/* Lemma 3, checked independently: removing the top separator leaves tree
 * components of at most nbags/2 bags; and every separator below splits
 * its own component the same way. */
static void check_separators(const TreeDec *td)
{
    int B = td->nbags;
    int *cpar = malloc((size_t)B * sizeof *cpar), *cdep = malloc((size_t)B * sizeof *cdep);
    int *csz = malloc((size_t)B * sizeof *csz);
    int top = treedec_centroids(td, cpar, cdep, csz);
    assert_true(top >= 0 && top < B);
    assert_int_equal(cpar[top], -1);
    assert_int_equal(csz[top], B);
    int ntop = 0;
    for (int b = 0; b < B; b++) {
        ntop += cpar[b] < 0;
        if (cpar[b] >= 0) {
            assert_true(2 * csz[b] <= csz[cpar[b]]);
            assert_int_equal(cdep[b], cdep[cpar[b]] + 1);
        }
        assert_true((1 << cdep[b]) <= B);   /* depth < log2(B) + 1 */
    }
    assert_int_equal(ntop, 1);
    /* components of the bag tree without top, by repeated relaxation */
    int *comp = malloc((size_t)B * sizeof *comp);
    for (int b = 0; b < B; b++)
        comp[b] = b == top ? -1 : b;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int b = 0; b < B; b++) {
            int p = td->parent[b];
            if (p < 0 || b == top || p == top)
                continue;
            int m = comp[b] < comp[p] ? comp[b] : comp[p];
            if (comp[b] != m || comp[p] != m) {
                comp[b] = comp[p] = m;
                changed = 1;
            }
        }
    }
    int *cnt = calloc((size_t)B, sizeof *cnt);
    for (int b = 0; b < B; b++)
        if (comp[b] >= 0)
            cnt[comp[b]]++;
    for (int b = 0; b < B; b++)
        assert_true(2 * cnt[b] <= B);
    free(cnt);
    free(comp);
    free(cpar);
    free(cdep);
    free(csz);
}

static void test_known_widths(void **state TU_UNUSED)
{
    TreeDec td;
    UG u;
    /* path of 12: width 1 */
    ug_init(&u, 12);
    for (int i = 0; i + 1 < 12; i++)
        ug_edge(&u, i, i + 1);
    ug_build(&u);
    assert_int_equal(decompose(&u, &td), 1);
    assert_int_equal(td.nbags, 11);   /* one bag per edge after merging */
    check_separators(&td);
    treedec_done(&td);
    ug_free(&u);
    /* cycle of 9: width 2 */
    ug_init(&u, 9);
    for (int i = 0; i < 9; i++)
        ug_edge(&u, i, (i + 1) % 9);
    ug_build(&u);
    assert_int_equal(decompose(&u, &td), 2);
    check_separators(&td);
    treedec_done(&td);
    ug_free(&u);
    /* 6-clique: width 5, a single bag */
    ug_init(&u, 6);
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            ug_edge(&u, j, i);
    ug_build(&u);
    assert_int_equal(decompose(&u, &td), 5);
    assert_int_equal(td.nbags, 1);
    treedec_done(&td);
    ug_free(&u);
    /* star (a tree): width 1; a forest of two paths and an isolated vertex */
    ug_init(&u, 8);
    for (int i = 1; i < 8; i++)
        ug_edge(&u, 0, i);
    ug_build(&u);
    assert_int_equal(decompose(&u, &td), 1);
    treedec_done(&td);
    ug_free(&u);
    ug_init(&u, 7);
    ug_edge(&u, 0, 1);
    ug_edge(&u, 1, 2);
    ug_edge(&u, 3, 4);
    ug_edge(&u, 5, 4);
    ug_build(&u);
    assert_int_equal(decompose(&u, &td), 1);
    check_separators(&td);
    treedec_done(&td);
    ug_free(&u);
    /* n x n grids: treewidth n; min-fill is exact up to 6 x 6 and then
     * drifts above (10 at 8 x 8: its diagonal elimination front), so the
     * bound checked is n + n/2 */
    for (int n = 2; n <= 8; n++) {
        ug_init(&u, n * n);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                if (c + 1 < n)
                    ug_edge(&u, r * n + c, r * n + c + 1);
                if (r + 1 < n)
                    ug_edge(&u, (r + 1) * n + c, r * n + c);
            }
        ug_build(&u);
        int w = decompose(&u, &td);
        if (!(w >= n && w <= n + n / 2) || (n <= 6 && w != n))
            fail_msg("grid %dx%d: width %d", n, n, w);
        check_separators(&td);
        treedec_done(&td);
        ug_free(&u);
    }
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void test_random_graphs(void **state TU_UNUSED)
{
    unsigned seed = 7;
    for (int trial = 0; trial < 300; trial++) {
        int n = 1 + (int)(lcg(&seed) % 70);
        int dens = 1 + (int)(lcg(&seed) % 30);   /* percent */
        UG u;
        ug_init(&u, n);
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++)
                if ((int)(lcg(&seed) % 100) < dens)
                    ug_edge(&u, (lcg(&seed) & 1) ? a : b, (lcg(&seed) & 1) ? a : b);
        ug_build(&u);   /* self loops from a == a above are ignored */
        TreeDec td;
        int w = decompose(&u, &td);
        assert_true(w >= 0 && w < n);
        check_separators(&td);
        treedec_done(&td);
        ug_free(&u);
    }
    /* the validator itself catches a broken decomposition */
    UG u;
    ug_init(&u, 4);
    for (int i = 0; i < 4; i++)
        ug_edge(&u, i, (i + 1) % 4);
    ug_build(&u);
    TreeDec td;
    decompose(&u, &td);
    char why[256];
    td.nodes[td.off[0]] = (td.nodes[td.off[0]] + 1) % 4;   /* lose one vertex */
    assert_int_equal(treedec_validate(&td, u.n, u.off, u.adj, why, sizeof why), -1);
    treedec_done(&td);
    ug_free(&u);
}

static const char *const samples[] = {
    "samples/kumar_fig1.json", "samples/chain32.json",          "samples/skip.json",
    "samples/join3.json",      "samples/transformer_small.json", "samples/unet_small.json",
};

/* The decomposition of each sample's non-input graph. */
static void test_samples_decompose(void **state TU_UNUSED)
{
    const char *more[] = {"samples/models/resnet18.json", "samples/models/gpt2.json"};
    for (size_t i = 0; i < sizeof samples / sizeof *samples + 2; i++) {
        const char *path = i < 6 ? samples[i] : more[i - 6];
        Graph *g = tu_load(path);
        int *vid = malloc((size_t)g->n * sizeof *vid), m = 0;
        for (int v = 0; v < g->n; v++)
            vid[v] = g->nodes[v].phase == PHASE_INPUT ? -1 : m++;
        UG u;
        ug_init(&u, m);
        for (int v = 0; v < g->n; v++)
            for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++)
                if (vid[v] >= 0 && vid[g->in_idx[q]] >= 0)
                    ug_edge(&u, vid[v], vid[g->in_idx[q]]);
        ug_build(&u);
        TreeDec td;
        int w = decompose(&u, &td);
        assert_true(w >= 1);
        if (i == 0)
            assert_int_equal(w, 2);   /* Figure 1: a cycle with a chord */
        if (i == 1)
            assert_int_equal(w, 2);   /* a training chain is a ladder */
        check_separators(&td);
        treedec_done(&td);
        ug_free(&u);
        free(vid);
        graph_free(g);
    }
}

/* solver_new + solver_plan keeping the Err. */
static int plan_with(const Graph *g, int64_t budget, const char *const *opts, Plan *out,
                     const Plan *prev, Solver **keep, Err *e)
{
    err_clear(e);
    Solver *s = keep && *keep ? *keep : tu_solver_new(g, "twremat", opts, e);
    if (!s)
        return e->code;
    plan_init(out);
    int rc = solver_plan(s, budget, prev, out, NULL, e);
    if (keep)
        *keep = s;
    else
        solver_free(s);
    return rc;
}

static void sched_is(const Graph *g, const Plan *p, const char *want)
{
    char buf[512] = "";
    size_t k = 0;
    for (int t = 0; t < p->T; t++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", t ? " " : "", g->nodes[p->steps[t]].id);
    assert_string_equal(buf, want);
}

/* Figure 1 by hand: min-fill eliminates C ({B,C,D}), A ({A,B,E}, fill edge
 * B-E), then B, D, E; shrinking leaves 3 bags around the separator
 * {B,D,E}. Its nodes run in topological order B, D, E, each after its
 * inputs in the side components: A for B, C for D, A again for E. */
static void test_fig1_exact(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/kumar_fig1.json");
    Plan p;
    Err e;
    const char *k1[] = {"k=1", NULL};
    assert_int_equal(plan_with(g, PLAN_NO_BUDGET, k1, &p, NULL, NULL, &e), ERR_OK);
    sched_is(g, &p, "A B C D A E");
    assert_int_equal(p.peak, 3);
    assert_true(p.cost == 6);
    assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), 3);
    plan_done(&p);
    /* k above the bag count: one topological pass, the baseline */
    const char *k4[] = {"k=4", NULL};
    assert_int_equal(plan_with(g, PLAN_NO_BUDGET, k4, &p, NULL, NULL, &e), ERR_OK);
    sched_is(g, &p, "A B C D E");
    assert_int_equal(p.peak, 4);
    plan_done(&p);
    /* describe: 3 bags of width 2, separator {B,D,E} at level 0 */
    Solver *s = NULL;
    assert_int_equal(plan_with(g, PLAN_NO_BUDGET, k1, &p, NULL, &s, &e), ERR_OK);
    Overlay ov;
    tu_describe(s, &ov);
    assert_int_equal(ov.width, 2);
    assert_non_null(strstr(ov.title, "3 bags, width 2"));
    int bags = 0, seps = 0, roots = 0;
    for (int i = 0; i < ov.n; i++) {
        const OverlayGroup *gr = &ov.groups[i];
        if (gr->kind == OVERLAY_BAG) {
            bags++;
            assert_int_equal(gr->n, 3);
            roots += gr->parent < 0;
            if (gr->parent >= 0)
                assert_int_equal(ov.groups[gr->parent].kind, OVERLAY_BAG);
        }
        if (gr->kind == OVERLAY_SEPARATOR) {
            seps++;
            if (gr->level == 0) {
                assert_int_equal(gr->n, 3);
                assert_string_equal(g->nodes[gr->nodes[0]].id, "B");
                assert_string_equal(g->nodes[gr->nodes[1]].id, "D");
                assert_string_equal(g->nodes[gr->nodes[2]].id, "E");
                assert_int_equal(gr->parent, -1);
            } else {
                assert_int_equal(gr->level, 1);
                assert_int_equal(gr->n, 1);
                assert_int_equal(ov.groups[gr->parent].kind, OVERLAY_SEPARATOR);
            }
        }
    }
    assert_int_equal(bags, 3);
    assert_int_equal(roots, 1);
    assert_int_equal(seps, 3);
    overlay_done(&ov);
    tu_end(g, s, &p, NULL);
}

/* Every sample: plans at no budget and at each budget the scan can meet
 * are valid by the independent checker, and peaks/costs agree. */
static void test_samples_plans(void **state TU_UNUSED)
{
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        Graph *g = tu_load(samples[i]);
        Plan p;
        Err e;
        int64_t base_peak;
        double base_cost;
        sim_baseline(g, &base_peak, &base_cost);
        for (int k = 1; k <= 64; k *= 2) {
            char kv[16];
            snprintf(kv, sizeof kv, "k=%d", k);
            const char *opts[] = {kv, NULL};
            assert_int_equal(plan_with(g, PLAN_NO_BUDGET, opts, &p, NULL, NULL, &e), ERR_OK);
            tu_check_plan(g, &p);
            assert_true(p.cost >= base_cost);
            plan_done(&p);
        }
        /* no budget: the lowest peak of the scan, never above the baseline */
        assert_int_equal(plan_with(g, PLAN_NO_BUDGET, NULL, &p, NULL, NULL, &e), ERR_OK);
        int64_t low = p.peak;
        assert_true(low <= base_peak);
        assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), low);
        plan_done(&p);
        /* at the baseline peak: nothing to save, the one-pass schedule */
        assert_int_equal(plan_with(g, base_peak, NULL, &p, NULL, NULL, &e), ERR_OK);
        assert_true(p.cost == base_cost);
        plan_done(&p);
        /* at the lowest peak: met */
        assert_int_equal(plan_with(g, low, NULL, &p, NULL, NULL, &e), ERR_OK);
        assert_true(p.peak <= low);
        assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), p.peak);
        plan_done(&p);
        graph_free(g);
    }
}

/* A chain of 32 layers: recursion halves the held activations, so the
 * peak falls far below noremat's (35 here), and smaller k means longer
 * schedules. */
static void test_chain(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/chain32.json");
    Plan p, nr;
    Err e;
    assert_int_equal(tu_solve(g, "noremat", PLAN_NO_BUDGET, &nr, NULL), ERR_OK);
    int prevT = -1;
    int64_t peak1 = -1;
    int T1 = 0, Tbig = 0;
    for (int k = 1; k <= 128; k *= 2) {
        char kv[16];
        snprintf(kv, sizeof kv, "k=%d", k);
        const char *opts[] = {kv, NULL};
        assert_int_equal(plan_with(g, PLAN_NO_BUDGET, opts, &p, NULL, NULL, &e), ERR_OK);
        assert_int_equal(tu_check_peak(g, p.steps, p.T, NULL), p.peak);
        if (prevT >= 0)
            assert_true(p.T <= prevT);   /* larger k: no longer */
        prevT = p.T;
        if (k == 1) {
            peak1 = p.peak;
            T1 = p.T;
        }
        Tbig = p.T;
        plan_done(&p);
    }
    assert_true(peak1 < nr.peak);
    /* O(log n) against noremat's n: below half of it already at n = 32 */
    assert_true(2 * peak1 < nr.peak);
    assert_true(T1 > Tbig);
    assert_int_equal(Tbig, nr.T);       /* k past the bag count: one pass */
    tu_end(g, NULL, &nr, NULL);
}

static void test_max_steps(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/chain32.json");
    Plan p;
    Err e;
    const char *opts[] = {"k=1", "max_steps=50", NULL};
    assert_int_equal(plan_with(g, PLAN_NO_BUDGET, opts, &p, NULL, NULL, &e), ERR_LIMIT);
    assert_non_null(strstr(e.msg, "max_steps=50"));
    assert_non_null(strstr(e.msg, "k=1"));
    plan_done(&p);
    /* the scan skips the k too long and returns a shorter one */
    const char *auto50[] = {"max_steps=70", NULL};
    assert_int_equal(plan_with(g, PLAN_NO_BUDGET, auto50, &p, NULL, NULL, &e), ERR_OK);
    assert_true(p.T <= 70);
    plan_done(&p);
    const char *bad[] = {"k=0", NULL};
    assert_int_equal(plan_with(g, PLAN_NO_BUDGET, bad, &p, NULL, NULL, &e), ERR_USAGE);
    assert_non_null(strstr(e.msg, "k=0"));
    graph_free(g);
}

/* A new budget through resolve gives the plan a fresh solve gives. */
static void test_resolve(void **state TU_UNUSED)
{
    const char *paths[] = {"samples/chain32.json", "samples/unet_small.json",
                           "samples/transformer_small.json"};
    for (int i = 0; i < 3; i++) {
        Graph *g = tu_load(paths[i]);
        int64_t bp = tu_baseline_peak(g);
        Solver *s = NULL;
        Plan a, b, fresh;
        Err e;
        int rca = plan_with(g, bp, NULL, &a, NULL, &s, &e);
        assert_int_equal(rca, ERR_OK);
        int64_t b2 = bp * 3 / 4;
        int rcb = plan_with(g, b2, NULL, &b, &a, &s, &e);
        int rcf = plan_with(g, b2, NULL, &fresh, NULL, NULL, &e);
        assert_int_equal(rcb, rcf);
        if (rcb == ERR_OK || rcb == ERR_OVER_BUDGET) {
            assert_int_equal(b.T, fresh.T);
            assert_memory_equal(b.steps, fresh.steps, (size_t)b.T * sizeof *b.steps);
            assert_int_equal(b.peak, fresh.peak);
        }
        plan_done(&a);
        plan_done(&b);
        plan_done(&fresh);
        solver_free(s);
        graph_free(g);
    }
}

/* prepare (the tree decomposition) polls the caller's cancel flag: a
 * cancelled prepare is ERR_CANCELLED, not a refusal, and a later prepare
 * of the same graph succeeds */
static void test_prepare_cancel(void **state TU_UNUSED)
{
    Graph *g = tu_load("samples/models/resnet18.json");
    Err e;
    Progress p;
    progress_init(&p);
    atomic_store(&p.cancel, 1);
    err_clear(&e);
    Solver *s = solver_new_cancellable(solver_find("twremat"), g, NULL, &p, &e);
    assert_null(s);
    assert_int_equal(e.code, ERR_CANCELLED);
    assert_non_null(strstr(e.msg, "cancelled"));
    progress_init(&p);
    err_clear(&e);
    s = solver_new_cancellable(solver_find("twremat"), g, NULL, &p, &e);
    assert_non_null(s);
    assert_null(s->prepare_progress);   /* only borrowed while prepare runs */
    tu_end(g, s, NULL);
}

TU_MAIN(TU_TEST(test_known_widths)
        TU_TEST(test_random_graphs)
        TU_TEST(test_samples_decompose)
        TU_TEST(test_fig1_exact)
        TU_TEST(test_samples_plans)
        TU_TEST(test_chain)
        TU_TEST(test_max_steps)
        TU_TEST(test_resolve)
        TU_TEST(test_prepare_cancel))
