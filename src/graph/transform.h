/* transform.h — forward-only graph to training graph (docs/transform.md).
 *
 * Input: a graph whose nodes are all `input`/`fwd`. Output: a new graph with
 * the same input and forward nodes, a `loss` node reading every forward
 * output (the forward sinks, or the listed outputs), and for every forward
 * node v a backward node "v.grad" (grad_of v) that reads the gradients of
 * v's consumers (or the loss), v's inputs and v itself. The backward node
 * has v's size (a gradient is shaped like the value), cost and workspace.
 * The outputs of the result are the backward nodes nothing else reads.
 */
#ifndef REMAT_TRANSFORM_H
#define REMAT_TRANSFORM_H

#include "src/graph/graph.h"

/* New training graph (caller frees), or NULL with ERR_INVALID when fwd is
 * not forward-only or has no forward node. */
Graph *graph_make_training(const Graph *fwd, Err *e);

#endif
