/* fuzz_graph_dot.c — libFuzzer harness for the DOT loader: a loaded graph
 * round-trips through the DOT writer; a refused one gets a one-line
 * message naming the file. */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e;
    err_clear(&e);
    Graph *g = graph_from_dot(text, strlen(text), "fuzz.dot", &e);
    if (!g) {
        fuzz_refused(&e, "fuzz.dot");
    } else {
        char *d = graph_to_dot(g);
        Graph *g2 = graph_from_dot(d, strlen(d), "d", &e);
        assert(g2 && g2->n == g->n && g2->n_edges == g->n_edges);
        free(d);
        graph_free(g2);
        graph_free(g);
    }
    free(text);
    return 0;
}
