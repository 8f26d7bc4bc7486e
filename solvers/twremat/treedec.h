/* treedec.h — tree decompositions of undirected graphs, for TWRemat
 * (Kumar et al. 2019, §2.2 and §3).
 *
 * treedec_min_fill eliminates vertices by the minimum fill-in heuristic
 * (Bodlaender & Koster 2010) and returns one bag per eliminated vertex;
 * treedec_shrink merges adjacent bags where one is a subset of the other
 * (Lemma 1: at most n bags remain); treedec_centroids finds, recursively,
 * the balanced separator bag of every component (Lemma 3), i.e. the
 * centroid decomposition of the bag tree that Algorithm 1 recurses along.
 * treedec_validate checks the three properties of a decomposition.
 *
 * Graphs are given in CSR form over vertices 0..n-1: the neighbours of v
 * are adj[off[v] .. off[v+1]); each undirected edge may be listed from one
 * side or both; self loops are ignored.
 *
 * The caller owns a TreeDec and frees it with treedec_done.
 */
#ifndef REMAT_TREEDEC_H
#define REMAT_TREEDEC_H

#include "src/base/err.h"
#include "src/plan/solver.h"

/* Vertex count above which min-fill is refused: its adjacency is a bit
 * matrix (n^2/8 bytes, 32 MiB here). */
#define TREEDEC_MAX_N 16384

typedef struct TreeDec {
    int n;              /* vertices of the decomposed graph */
    int nbags;
    int *off, *nodes;   /* bag b holds nodes[off[b] .. off[b+1]), sorted */
    int *parent;        /* tree parent bag, -1 for the root */
    int root;           /* -1 when nbags == 0 */
    int width;          /* max bag size - 1 (-1 when nbags == 0) */
} TreeDec;

void treedec_init(TreeDec *td);
void treedec_done(TreeDec *td);

/* Min-fill elimination: repeatedly eliminate the vertex whose neighbours
 * need the fewest extra edges to become a clique (ties: fewer neighbours,
 * then lower index). Bag i is {v_i} ∪ its neighbours when eliminated; its
 * parent is the bag of the neighbour eliminated first after v_i; the roots
 * of a forest (disconnected graph) are chained under the last bag.
 * ERR_LIMIT over TREEDEC_MAX_N vertices; ERR_CANCELLED when p cancels. */
int treedec_min_fill(int n, const int *off, const int *adj, TreeDec *td, Progress *p, Err *e);

/* Lemma 1: contract every tree edge whose one bag is a subset of the other
 * (one pass over the edges, union-find), so that every remaining bag has a
 * vertex its neighbours lack and nbags <= n. Bag order is kept. */
void treedec_shrink(TreeDec *td);

/* 0 when td is a tree decomposition of the graph (every vertex in a bag,
 * every edge inside a bag, the bags holding any vertex connected, parent
 * a tree, width right); otherwise -1 and why[] says what fails. */
int treedec_validate(const TreeDec *td, int n, const int *off, const int *adj, char *why,
                     size_t whylen);

/* Centroid decomposition of the bag tree (Lemma 3 applied recursively):
 * for every bag b, cpar[b] is the separator whose removal cut out the
 * component b is the separator of (-1 for the top one), cdepth[b] its
 * recursion depth (0 at the top) and csize[b] the number of bags of that
 * component. Every component left after removing b has <= csize[b]/2
 * bags, so depths are < log2(nbags) + 1. Returns the top separator, or -1
 * when nbags == 0. Iterative: no recursion over the tree. */
int treedec_centroids(const TreeDec *td, int *cpar, int *cdepth, int *csize);

#endif
