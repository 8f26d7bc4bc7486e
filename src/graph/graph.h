/* graph.h — the computation graph: one node per operation, one value per node.
 *
 * A Graph is built in two stages. Loaders call graph_new, graph_add_node and
 * graph_add_input_name (inputs by id, in any order, forward references
 * allowed), then graph_finalize resolves ids, checks the graph (duplicate or
 * unknown ids, cycles, negative figures, empty graph) and builds the derived
 * arrays: adjacency both ways in flat CSR arrays, a stable topological order,
 * the output set and the resident input bytes. After a successful finalize
 * the graph is read-only and may be shared between threads.
 */
#ifndef REMAT_GRAPH_H
#define REMAT_GRAPH_H

#include <stdint.h>

#include "src/base/err.h"

typedef enum Phase { PHASE_INPUT, PHASE_FWD, PHASE_LOSS, PHASE_BWD, PHASE_COUNT } Phase;

/* Largest size or workspace the loaders accept: sizes are exact integers and
 * JSON numbers are doubles, so anything past 2^53 could not round-trip. */
#define GRAPH_SIZE_MAX ((int64_t)1 << 53)

/* The sum of every node's size and workspace stays below this (graph_finalize
 * refuses more). Memory at any step, a peak, a baseline or any solver's sum
 * of live sizes is then below it too, so two such figures add without
 * overflow; models that add more (2 S + A) use bytes_add. */
#define GRAPH_TOTAL_MAX ((int64_t)1 << 62)

/* a + b for memory figures, saturating at INT64_MAX: a sum past it then
 * compares above any budget instead of wrapping to a negative number. */
static inline int64_t bytes_add(int64_t a, int64_t b)
{
    return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Largest cost of one node, the same for every format. A schedule's cost
 * then overflows a double only past 1.7e8 steps of such nodes, which sim.c
 * refuses rather than report as infinite. */
#define GRAPH_COST_MAX 1e300

typedef struct Node {
    char *id;           /* unique, non-empty; owned */
    char *op;           /* operation kind ("conv2d"); owned, never NULL */
    Phase phase;
    int64_t size;       /* bytes of the value the node produces */
    double cost;        /* compute cost of one run */
    int64_t workspace;  /* extra bytes needed only while the node runs */
    int grad_of;        /* index of the forward node this bwd node differentiates, or -1 */
    int pair;           /* grad_of, or inferred from the data flow when the graph names
                         * none (src/graph/pairing.h); -1 when none */
} Node;

typedef struct IdMap {
    int *slots;         /* open addressing; -1 empty, else node index */
    int cap;            /* power of two */
} IdMap;

typedef struct Graph {
    char *name;         /* owned; "" when absent */
    char *source;       /* owned; "" when absent */
    char *cost_unit;    /* owned; "flop" when absent */
    char *size_unit;    /* owned; "byte" when absent */
    char *recipe;       /* owned; the exporter's recipe (JSON text of $.recipe: how to rebuild
                         * the model, for the torch replay), or NULL */

    int n;              /* number of nodes */
    Node *nodes;

    /* Inputs of v: in_idx[in_off[v] .. in_off[v+1]), duplicates removed,
     * in the order first listed. Consumers of v likewise in out_*. */
    int *in_off, *in_idx;
    int *out_off, *out_idx;
    int n_edges;

    int *topo;          /* all nodes; the file order when that is topological */
    int *outputs;       /* indices of output nodes, n_outputs of them */
    int n_outputs;
    int outputs_explicit;       /* 1 when the file listed "outputs" */
    unsigned char *is_output;   /* per node */
    int64_t input_bytes;        /* sum of sizes of phase-input nodes */

    IdMap map;

    /* Builder state, released by graph_finalize. */
    struct GraphPending *pending;
    int cap;
    int finalized;
} Graph;

/* New empty graph; free with graph_free. */
Graph *graph_new(void);
void graph_free(Graph *g);

/* Set the descriptive fields; strings are copied. NULL keeps the default. */
void graph_set_info(Graph *g, const char *name, const char *source,
                    const char *cost_unit, const char *size_unit);

/* Add a node; id and op are copied (op NULL means "op"). `where` names the
 * node's position in the source ("nodes[3]", "line 12") for later messages;
 * copied, may be NULL. Returns the new index, or -1 with ERR_INVALID for an
 * empty or duplicate id, a size or workspace outside 0..GRAPH_SIZE_MAX, or a
 * cost outside 0..GRAPH_COST_MAX. */
int graph_add_node(Graph *g, const char *id, const char *op, Phase phase,
                   int64_t size, double cost, int64_t workspace,
                   const char *where, Err *e);

/* Record that node v reads the value named `input` (resolved at finalize). */
void graph_add_input_name(Graph *g, int v, const char *input);
/* Record v's grad_of id and the graph outputs, likewise resolved later. */
void graph_set_grad_of_name(Graph *g, int v, const char *fwd_id);
void graph_add_output_name(Graph *g, const char *id);

/* Resolve, validate and index. Returns ERR_OK, or ERR_INVALID (unknown id,
 * empty graph, input node with inputs, bad grad_of, sizes and workspaces
 * summing past GRAPH_TOTAL_MAX) or ERR_CYCLE (naming the nodes of one
 * cycle). The graph must not be used after a failure
 * except to graph_free it. */
int graph_finalize(Graph *g, Err *e);

/* Index of the node with this id, or -1. */
int graph_find(const Graph *g, const char *id);

/* "input", "fwd", "loss", "bwd"; phase_parse returns -1 for unknown text. */
const char *phase_name(Phase p);
int phase_parse(const char *s);

/* Keep the exporter's recipe (JSON object text, copied; NULL clears). */
void graph_set_recipe(Graph *g, const char *json);

/* Deep copy of a finalized graph. */
Graph *graph_clone(const Graph *g);

/* Copy with every batch-dependent figure multiplied by mult (> 0): sizes,
 * workspaces and costs of all nodes except parameters (input nodes whose
 * op is "param"), which do not grow with the batch; sizes are rounded to
 * whole bytes. The recipe is kept only for mult 1 (it rebuilds the
 * unscaled model). Caller frees. NULL with ERR_INVALID when a scaled
 * figure leaves the ranges graph_add_node and graph_finalize accept (the
 * message names the node and the multiplier). */
Graph *graph_scaled(const Graph *g, double mult, Err *e);

/* Count of nodes in each phase into counts[PHASE_COUNT]. */
void graph_phase_counts(const Graph *g, int counts[PHASE_COUNT]);

/* 1 when every node is input/fwd (a forward-only graph). */
int graph_is_forward_only(const Graph *g);

/* Smallest peak any valid schedule can have: the resident inputs plus, for
 * the most demanding node some output needs (the others may never run),
 * its output, its non-input inputs and workspace, or all outputs at once.
 * A budget below this cannot be met by any solver. Sets *node to that node
 * (-1: none runs). src/plan/bound.h's bound_min_peak is stronger. */
int64_t graph_min_peak(const Graph *g, int *node);

/* needed[v] = 1 for each node some output needs (the outputs and their
 * ancestors), 0 for the rest; needed has g->n bytes. */
void graph_mark_needed(const Graph *g, unsigned char *needed);

/* The cost of running once each node some output needs: every valid
 * schedule runs them, so none costs less, and a plan within the budget
 * that costs this much is optimal (a budget at the baseline peak or above
 * is met so). */
double graph_needed_cost(const Graph *g);

/* Nodes that run (every node but the inputs). */
int graph_running_nodes(const Graph *g);

#endif
