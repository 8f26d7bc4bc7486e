/* pairing.h — which forward node each backward node works for.
 *
 * Solvers that reverse the forward pass (lower-set, chain and join
 * checkpointing, Chen's segments) run each backward node with the forward
 * block it belongs to. Where the graph names any grad_of (the training-graph
 * transform and the importers write it), that is the pairing, unchanged.
 * A joint graph traced from autograd (tools/export_torch.py) names none;
 * its pairing is inferred here from the data flow, in this one place:
 * a backward node belongs with the forward value it reads that comes last
 * in the graph's topological order, the most recent activation its work
 * needs. In a joint graph that is the output of the operator whose gradient
 * it computes: threshold_backward reads relu's output, the
 * convolution_backward of a layer reads the previous layer's output (the
 * value whose gradient it produces), native_batch_norm_backward reads the
 * statistics its forward saved.
 *
 * One check keeps the pairing consistent with where the gradient goes. A
 * forward input qualifies only when the pairs of all of the node's backward
 * consumers lie at or before it (it, or its forward ancestors; a side
 * value, which no forward node reads, counts at its inputs). The backward
 * of a product of two branches' outputs (siamese towers meeting at a * b)
 * reads the other branch's output, but its result flows into its own
 * branch: it fails the check. A node with no qualifying input (and a node
 * reading no forward value: a gradient sum, the gradient of a matrix
 * product's input) takes its consumers' latest pair when they lie on one
 * line of ancestors, else the plain rule; a backward node with neither a
 * forward input nor a paired consumer pairs with none, and solvers place it
 * by its backward inputs, as they always did for nodes without grad_of
 * (docs/solvers/). Consumers are paired first (reverse topological order).
 * The ancestor sets are bitsets, built for up to 4096 forward nodes; past
 * that only the plain rule applies.
 */
#ifndef REMAT_PAIRING_H
#define REMAT_PAIRING_H

#include "src/graph/graph.h"

/* Set nodes[v].pair for every node of g (topo and adjacency built): grad_of
 * when any node of g has one, else the inference above; -1 for nodes that
 * are not bwd and for bwd nodes with nothing to pair with. Called by
 * graph_finalize. */
void pairing_fill(Graph *g);

/* The training-graph check of every solver that needs the pairing: ERR_OK
 * when some bwd node pairs with a forward node, else ERR_UNSUPPORTED with
 * "<who>: not a training graph (...)". */
int pairing_require(const Graph *g, const char *who, Err *e);

#endif
