/* fuzz_graph_dot.c — libFuzzer harness for the DOT loader: a loaded graph
 * round-trips through the DOT writer; a refused one gets a one-line
 * message naming the file. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/graph_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    Err e;
    err_clear(&e);
    Graph *g = graph_from_dot(text, strlen(text), "fuzz.dot", &e);
    if (!g) {
        assert(e.code != ERR_OK && strncmp(e.msg, "fuzz.dot", 8) == 0 && !strchr(e.msg, '\n'));
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
