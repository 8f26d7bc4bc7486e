/* graph_import.h — importers for the graph formats other tools publish
 * (docs/importers.md gives each field mapping):
 *  - networkx node-link JSON as written by Moccasin (its copies of the
 *    Checkmate graphs and its random layered graphs);
 *  - the computational-graph text of Kusumoto et al.'s tools ("V F" header,
 *    value lines, forward/backward function records);
 *  - the `p remat2` text read by the Haskell twremat tool.
 * graph_load() picks among them by content; each returns a finalized graph
 * or NULL with a one-line message naming the file and line or JSON path.
 */
#ifndef REMAT_GRAPH_IMPORT_H
#define REMAT_GRAPH_IMPORT_H

#include <stddef.h>

#include "src/graph/graph.h"

struct cJSON;
/* root: a parsed node-link document (object with "nodes" and "links"). */
Graph *graph_from_nodelink(const struct cJSON *root, const char *fname, Err *e);
Graph *graph_from_pfn(const char *text, size_t len, const char *fname, Err *e);
Graph *graph_from_remat2(const char *text, size_t len, const char *fname, Err *e);

#endif
