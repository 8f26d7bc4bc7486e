/* gen.h — generated forward graphs for benchmarks and scale tests: chains,
 * ResNet-like stacks (a skip around every two layers), transformer-like
 * blocks, and random layered DAGs (layers of width w, edges to the previous
 * layers, occasional long skips). Deterministic for a given seed; turned
 * into training graphs with graph_make_training. */
#ifndef REMAT_BENCH_GEN_H
#define REMAT_BENCH_GEN_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/graph.h"
#include "src/graph/transform.h"

static inline unsigned gen_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static inline int gen_add(Graph *g, int i, int64_t size, double cost)
{
    char id[32];
    snprintf(id, sizeof id, "n%d", i);
    Err e;
    return graph_add_node(g, id, i % 3 == 0 ? "matmul" : "relu", PHASE_FWD, size, cost, 0, NULL, &e);
}

static inline void gen_edge(Graph *g, int v, int u)
{
    char id[32];
    if (u < 0)
        snprintf(id, sizeof id, "x");
    else
        snprintf(id, sizeof id, "n%d", u);
    graph_add_input_name(g, v, id);
}

/* kind: "chain", "resnet", "transformer", "random"; n forward nodes. */
static inline Graph *gen_forward(const char *kind, int n, unsigned seed)
{
    Graph *g = graph_new();
    Err e;
    char name[64];
    snprintf(name, sizeof name, "%s-%d", kind, n);
    graph_set_info(g, name, "generated", "flop", "byte");
    graph_add_node(g, "x", "input", PHASE_INPUT, 1 << 20, 0, 0, NULL, &e);
    for (int i = 0; i < n; i++) {
        int64_t size = (int64_t)(1 << 20) + (int64_t)(gen_rand(&seed) % 4) * (1 << 18);
        double cost = 1e6 * (1 + gen_rand(&seed) % 8);
        int v = gen_add(g, i, size, cost) - 1; /* node index minus the input */
        (void)v;
        int idx = i + 1;
        if (!strcmp(kind, "chain")) {
            gen_edge(g, idx, i - 1);
        } else if (!strcmp(kind, "resnet")) {
            gen_edge(g, idx, i - 1);
            if (i % 2 == 1 && i >= 3)
                gen_edge(g, idx, i - 3);
        } else if (!strcmp(kind, "transformer")) {
            /* blocks of 8: ln q k v scores softmax attnv proj(+res) */
            int b = i % 8, base = i - b;
            if (b == 0 || b == 1)
                gen_edge(g, idx, i - 1);
            else if (b <= 3)
                gen_edge(g, idx, base);
            else if (b == 4) {
                gen_edge(g, idx, base + 1);
                gen_edge(g, idx, base + 2);
            } else if (b == 5)
                gen_edge(g, idx, i - 1);
            else if (b == 6) {
                gen_edge(g, idx, i - 1);
                gen_edge(g, idx, base + 3);
            } else {
                gen_edge(g, idx, i - 1);
                gen_edge(g, idx, base - 1);
            }
        } else { /* random layered */
            int w = 8;
            int layer = i / w;
            if (layer == 0) {
                gen_edge(g, idx, -1);
            } else {
                int k = 1 + (int)(gen_rand(&seed) % 3);
                for (int j = 0; j < k; j++)
                    gen_edge(g, idx, (layer - 1) * w + (int)(gen_rand(&seed) % w));
                if (layer > 4 && gen_rand(&seed) % 10 == 0)
                    gen_edge(g, idx, (int)(gen_rand(&seed) % ((layer - 2) * w)));
            }
        }
    }
    if (graph_finalize(g, &e)) {
        fprintf(stderr, "gen: %s\n", e.msg);
        exit(1);
    }
    return g;
}

static inline Graph *gen_training(const char *kind, int n, unsigned seed)
{
    Graph *f = gen_forward(kind, n, seed);
    Err e;
    Graph *t = graph_make_training(f, &e);
    graph_free(f);
    if (!t) {
        fprintf(stderr, "gen: %s\n", e.msg);
        exit(1);
    }
    return t;
}

/* The .json files of folder d (at most 256), sorted by name for a stable
 * document; returns their count. Caller frees each name. */
static inline int gen_json_files(const char *d, char *names[256])
{
    DIR *dir = opendir(d);
    if (!dir)
        return 0;
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(dir)) && nn < 256)
        if (strstr(de->d_name, ".json"))
            names[nn++] = strdup(de->d_name);
    closedir(dir);
    for (int i = 1; i < nn; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    return nn;
}

#endif
