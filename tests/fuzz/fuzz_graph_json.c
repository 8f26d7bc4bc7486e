/* fuzz_graph_json.c — libFuzzer harness for the remat-graph JSON loader:
 * any input either loads into a graph that writes, re-reads identically
 * and simulates, or is refused with a one-line message naming the file. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/graph_io.h"
#include "src/plan/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    Err e;
    err_clear(&e);
    Graph *g = graph_from_json(text, size, "fuzz.json", &e);
    if (!g) {
        assert(e.code != ERR_OK && strncmp(e.msg, "fuzz.json", 9) == 0 && !strchr(e.msg, '\n'));
    } else {
        char *j1 = graph_to_json(g);
        Graph *g2 = graph_from_json(j1, strlen(j1), "j1", &e);
        assert(g2);
        char *j2 = graph_to_json(g2);
        assert(strcmp(j1, j2) == 0);
        int64_t peak;
        double cost;
        sim_baseline(g, &peak, &cost);
        assert(peak >= g->input_bytes);
        free(j1);
        free(j2);
        graph_free(g2);
        graph_free(g);
    }
    free(text);
    return 0;
}
