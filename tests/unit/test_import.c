/* test_import.c — importers of other tools' graph formats: Moccasin's
 * node-link JSON (the public copies in ../shared/data/public when present,
 * checked against the files' own counts and sums), Kusumoto et al.'s text
 * format and `p remat2`, with malformed inputs. */
#include "tests/unit/testutil.h"

#include <cjson/cJSON.h>
#include <dirent.h>

#include "src/base/fileio.h"
#include <unistd.h>

#define PUBLIC "../shared/data/public/moccasin"

/* Independent figures straight from the JSON: node count, link count,
 * size sum, backward count. */
static void check_nodelink_file(const char *path)
{
    Err e;
    size_t len;
    char *text = file_read_all(path, &len, &e);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *nodes = cJSON_GetObjectItem(root, "nodes"), *links = cJSON_GetObjectItem(root, "links");
    int n = cJSON_GetArraySize(nodes), m = cJSON_GetArraySize(links), nbwd = 0;
    double sum = 0;
    cJSON *it;
    cJSON_ArrayForEach(it, nodes)
    {
        cJSON *s = cJSON_GetObjectItem(it, "cost_ram");
        if (!s)
            s = cJSON_GetObjectItem(it, "out_cost");
        sum += s->valuedouble;
        nbwd += cJSON_IsTrue(cJSON_GetObjectItem(it, "backward"));
    }
    Graph *g = graph_load(path, &e);
    if (!g)
        fail_msg("%s", e.msg);
    assert_int_equal(g->n, n);
    assert_int_equal(g->n_edges, m);
    int64_t total = 0;
    int pc[PHASE_COUNT];
    graph_phase_counts(g, pc);
    for (int v = 0; v < g->n; v++)
        total += g->nodes[v].size;
    assert_true((double)total == sum);
    assert_int_equal(pc[PHASE_BWD] + pc[PHASE_LOSS], nbwd);
    if (nbwd) {
        assert_int_equal(pc[PHASE_LOSS], 1);
        for (int v = 0; v < g->n; v++)
            if (g->nodes[v].phase == PHASE_BWD)
                assert_true(g->nodes[v].grad_of >= 0);
    }
    /* the baseline is a valid schedule under the spec */
    int T;
    int *o = sim_baseline_order(g, &T);
    Sim s;
    assert_int_equal(sim_run(g, o, T, &s, &e), ERR_OK);
    sim_done(&s);
    /* graph.order, when given, is the baseline order node for node */
    cJSON *meta = cJSON_GetObjectItem(root, "graph");
    cJSON *ord = meta ? cJSON_GetObjectItem(meta, "order") : NULL;
    if (ord) {
        assert_int_equal(cJSON_GetArraySize(ord), T);
        int q = 0;
        cJSON_ArrayForEach(it, ord)
        {
            char k[32];
            snprintf(k, sizeof k, "%.0f", it->valuedouble);
            assert_string_equal(g->nodes[o[q++]].id, k);
        }
    }
    free(o);
    graph_free(g);
    cJSON_Delete(root);
    free(text);
}

static void test_moccasin_public(void **st TU_UNUSED)
{
    DIR *d = opendir(PUBLIC);
    if (!d) {
        printf("  (no %s here: public graphs skipped)\n", PUBLIC);
        skip();
    }
    struct dirent *de;
    int seen = 0;
    while ((de = readdir(d))) {
        size_t L = strlen(de->d_name);
        if (L < 5 || strcmp(de->d_name + L - 5, ".json"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", PUBLIC, de->d_name);
        check_nodelink_file(path);
        seen++;
    }
    closedir(d);
    assert_true(seen >= 4);
}

/* The graph in text, written to a file and read by graph_load (which
 * picks the format by content); NULL with *e set when refused. */
static Graph *load_text(const char *text, Err *e)
{
    char path[] = "/tmp/remat-import-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    Graph *g = graph_load(path, e);
    unlink(path);
    return g;
}

/* The graph in text; fails the test when it is refused. */
static Graph *load_ok(const char *text)
{
    Err e;
    Graph *g = load_text(text, &e);
    if (!g)
        fail_msg("%s", e.msg);
    return g;
}

/* text is refused by a message that contains msg. */
static void expect_refused(const char *text, const char *msg)
{
    Err e;
    assert_null(load_text(text, &e));
    assert_non_null(strstr(e.msg, msg));
}

static void test_nodelink_edge_cases(void **st TU_UNUSED)
{
    Err e;
    /* RL-style keys "0"/"1", string and numeric ids mixed, param cost */
    Graph *g = load_ok("{\"directed\":true,\"nodes\":[{\"name\":0,\"out_cost\":5,\"duration\":0},"
                       "{\"name\":1,\"out_cost\":7,\"duration\":3,\"param_cost\":11}],"
                       "\"links\":[{\"0\":0,\"1\":\"1\"}]}");
    assert_int_equal(g->n, 3);
    assert_int_equal(g->input_bytes, 11);
    graph_free(g);
    expect_refused("{\"nodes\":[{\"name\":0}],\"links\":[{\"0\":0,\"1\":9}]}", "links[0]: unknown node '9'");
    expect_refused("{\"nodes\":[{\"name\":0,\"out_cost\":-2}],\"links\":[]}", "nodes[0]");
    assert_null(load_text("{\"nodes\":[{\"name\":0},{\"name\":1}],\"links\":[{\"0\":0,\"1\":1},{\"0\":1,\"1\":0}]}", &e));
    assert_int_equal(e.code, ERR_CYCLE);

    /* graph.order sets the baseline: b before a although a is listed first */
    g = load_ok("{\"graph\":{\"order\":[0,2,1]},\"nodes\":[{\"name\":0},{\"name\":1},{\"name\":2}],"
                "\"links\":[{\"0\":0,\"1\":1},{\"0\":0,\"1\":2}]}");
    int T, *o = sim_baseline_order(g, &T);
    assert_int_equal(T, 3);
    assert_string_equal(g->nodes[o[0]].id, "0");
    assert_string_equal(g->nodes[o[1]].id, "2");
    assert_string_equal(g->nodes[o[2]].id, "1");
    free(o);
    graph_free(g);
    expect_refused("{\"graph\":{\"order\":[1,0]},\"nodes\":[{\"name\":0},{\"name\":1}],"
                   "\"links\":[{\"0\":0,\"1\":1}]}", "graph.order: node '1' comes before its input '0'");
    expect_refused("{\"graph\":{\"order\":[0,7]},\"nodes\":[{\"name\":0},{\"name\":1}],"
                   "\"links\":[]}", "graph.order[1]: unknown node");
    expect_refused("{\"graph\":{\"order\":[0]},\"nodes\":[{\"name\":0},{\"name\":1}],"
                   "\"links\":[]}", "graph.order: must list each of the 2 nodes once");
    expect_refused("{\"nodes\":[{\"name\":0},{\"name\":0}],\"links\":[]}", "nodes[1]: duplicate node key '0'");
}

static void test_pfn(void **st TU_UNUSED)
{
    Graph *g = tu_load("tests/data/tiny_pfn.txt");
    int pc[PHASE_COUNT];
    graph_phase_counts(g, pc);
    assert_int_equal(pc[PHASE_INPUT], 3);
    assert_int_equal(pc[PHASE_FWD], 2);
    assert_int_equal(pc[PHASE_LOSS], 1);
    assert_int_equal(pc[PHASE_BWD], 3);
    int c = graph_find(g, "v2");
    assert_true(c >= 0);
    assert_true(g->nodes[c].cost == 10); /* Conv* functions cost 10 */
    int cg = graph_find(g, "v2.grad");
    assert_int_equal(g->nodes[cg].grad_of, c);
    assert_int_equal(g->nodes[cg].size, 1200 + 400); /* gradients of x and W */
    /* v2.grad reads the gradient of v2, made by the ReLU backward */
    int rg = graph_find(g, "v3.grad"), found = 0;
    for (int k = g->in_off[cg]; k < g->in_off[cg + 1]; k++)
        found |= g->in_idx[k] == rg;
    assert_true(found);
    assert_int_equal(graph_find(g, "/predictor/conv/W") >= 0, 1);
    graph_free(g);
    expect_refused("3 0\n0 10 _\n1 x _\n2 4 _\n", ":3:3: value 1: size 'x' is not an integer in 0..2^53");
    expect_refused("3 0\n0 10 _\n1 0x10 _\n2 4 _\n", ":3:3: value 1: size '0x10'");
    /* a header that announces more than the file holds: refused before
     * anything is set aside for it */
    expect_refused("3 2\n0 10 _\n1 4 _\n", ":1:1: the header announces 3 values and 2 functions");
    expect_refused("2 3\n", ":1:1");
    expect_refused("1 2\n0 4 _\nforward\n1 1\n7 _\n0\nT\n{}\nbackward\n0 0\nT\n{}\n", ":5:1: expected \"VALUE_ID ROLE\" with a value id below 1");
}

static void test_remat2(void **st TU_UNUSED)
{
    Graph *g = load_ok("p remat2\nmemlimit 3\nnode 1 cpu 1 mem 1\nnode 2 deps 1 cpu 1 mem 1\n"
                       "node 3 deps 2\nnode 4 deps 2 3 cpu 2 mem 5\nnode 5 deps 1 4 pointer target\n");
    assert_int_equal(g->n, 5);
    assert_int_equal(g->n_edges, 6);
    int n4 = graph_find(g, "4"), n5 = graph_find(g, "5");
    assert_int_equal(g->nodes[n4].size, 5);
    assert_true(g->nodes[n4].cost == 2);
    assert_int_equal(g->nodes[n5].size, 0);
    assert_int_equal(g->n_outputs, 1);
    assert_int_equal(g->outputs[0], n5);
    assert_non_null(strstr(g->source, "memlimit 3"));
    graph_free(g);
    expect_refused("p remat2\nnode 1 deps 7\n", "unknown input id '7'");
    expect_refused("p remat2\nnode 1 cpu x\n", ":2:");
    expect_refused("p remat2\nnode 1\nnode 1\n", "duplicate id '1'");
}

/* The next DOT text parsed in the process is read whole. */
static void next_parse_whole(const char *after)
{
    const char *next = "digraph h { a -> b; b -> c }";
    Err e;
    err_clear(&e);
    Graph *h = graph_from_dot(next, strlen(next), "next.dot", &e);
    if (!h)
        fail_msg("after '%s': %s", after, e.msg);
    assert_int_equal(h->n, 3);
    assert_int_equal(h->n_edges, 2);
    graph_free(h);
}

/* A DOT file that ends inside a comment after its graph loads, and the
 * next file parsed in the same process is read whole (cgraph's lexer was
 * left inside the comment: found by fuzz_graph_dot). */
static void test_dot_comment_after_graph(void **st TU_UNUSED)
{
    static const char *const firsts[] = {"digraph g {d y c;1 } /*\x01", "digraph g { a } /* b",
                                         "digraph g { a } // c", "digraph g { a /* b }"};
    for (size_t i = 0; i < sizeof firsts / sizeof firsts[0]; i++) {
        Err e;
        err_clear(&e);
        Graph *g = graph_from_dot(firsts[i], strlen(firsts[i]), "first.dot", &e);
        graph_free(g);
        next_parse_whole(firsts[i]);
    }
    /* found by the fuzzer: mangled copies of kumar_fig1's drawing left
     * cgraph's lexer in a state one '}' did not reset (the second inside
     * an HTML string of many nested '<'); read up to the first NUL, as the
     * harness does */
    static const char *const fuzzed[] = {"tests/fuzz/corpus/graph_dot/string_left_open",
                                         "tests/fuzz/corpus/graph_dot/html_left_open"};
    for (size_t i = 0; i < sizeof fuzzed / sizeof fuzzed[0]; i++) {
        FILE *f = fopen(fuzzed[i], "rb");
        assert_non_null(f);
        char *t = calloc(1, 65536);
        size_t got = fread(t, 1, 65535, f);
        fclose(f);
        assert_true(got > 0);
        Err fe;
        err_clear(&fe);
        Graph *g = graph_from_dot(t, strlen(t), "fuzzed.dot", &fe);
        graph_free(g);
        next_parse_whole(fuzzed[i]);
        free(t);
    }
}

TU_MAIN(TU_TEST(test_moccasin_public)
        TU_TEST(test_nodelink_edge_cases)
        TU_TEST(test_pfn)
        TU_TEST(test_remat2)
        TU_TEST(test_dot_comment_after_graph))
