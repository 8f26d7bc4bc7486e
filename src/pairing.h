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
 * statistics its forward saved. A backward node that reads no forward value
 * (a gradient sum, a parameter gradient's reduction) pairs with none, and
 * solvers place it by its backward inputs, as they always did for nodes
 * without grad_of (docs/solvers/).
 */
#ifndef REMAT_PAIRING_H
#define REMAT_PAIRING_H

#include "src/graph.h"

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
