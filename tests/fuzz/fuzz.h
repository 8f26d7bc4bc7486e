/* fuzz.h — what every libFuzzer harness here shares: the input as a
 * NUL-terminated string, the one-line refusal check, the JSON round
 * trip every loaded graph must pass, and the whole test of a text loader. */
#ifndef REMAT_FUZZ_H
#define REMAT_FUZZ_H

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/graph_io.h"
#include "src/plan/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input with a NUL after it (the bytes may hold NULs of their own). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* A refusal is one line that starts with the file's name. */
static inline void fuzz_refused(const Err *e, const char *fname)
{
    assert(e->code != ERR_OK && strncmp(e->msg, fname, strlen(fname)) == 0 && !strchr(e->msg, '\n'));
}

/* A loaded graph writes JSON that re-reads to the same nodes, edges and
 * JSON, and its baseline simulates; the graph is freed. */
static inline void fuzz_json_round_trip(Graph *g)
{
    Err e;
    err_clear(&e);
    char *j1 = graph_to_json(g);
    Graph *g2 = graph_from_json(j1, strlen(j1), "j1", &e);
    assert(g2 && g2->n == g->n && g2->n_edges == g->n_edges);
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

/* A graph reader: text of len bytes named fname; NULL with e set on refusal. */
typedef Graph *(*FuzzGraphReader)(const char *text, size_t len, const char *fname, Err *e);

/* The harness body of every loader that reads whole text into a graph:
 * the input either loads and round-trips through JSON, or is refused with
 * one line naming fname. */
static inline int fuzz_graph_reader(const uint8_t *data, size_t size, FuzzGraphReader read,
                                    const char *fname)
{
    char *text = fuzz_text(data, size);
    Err e;
    err_clear(&e);
    Graph *g = read(text, size, fname, &e);
    if (g)
        fuzz_json_round_trip(g);
    else
        fuzz_refused(&e, fname);
    free(text);
    return 0;
}

#endif
