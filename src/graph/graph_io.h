/* graph_io.h — loading and writing graphs: remat-graph JSON and Graphviz DOT.
 *
 * Every loader returns a finalized Graph the caller frees with graph_free,
 * or NULL with an Err whose message starts with the file name and names the
 * position: line:column for syntax errors, a JSON path (nodes[3].size) or a
 * node name for problems found after parsing.
 */
#ifndef REMAT_GRAPH_IO_H
#define REMAT_GRAPH_IO_H

#include <stddef.h>

#include "src/graph/graph.h"

/* Parse remat-graph JSON from text (len bytes, NUL-terminated). fname is
 * used in messages only. */
Graph *graph_from_json(const char *text, size_t len, const char *fname, Err *e);

/* Parse a Graphviz DOT digraph: node attributes cost, size, phase,
 * workspace, op, grad_of; graph attributes name, source, outputs (comma
 * separated); every edge u -> v means v reads u. */
Graph *graph_from_dot(const char *text, size_t len, const char *fname, Err *e);

/* cgraph has one lexer and one error callback for the whole process:
 * anything that parses DOT through it (the loader, the SVG/PNG export)
 * holds this lock from setting the callback until it is cleared, so a
 * load and an export on two threads cannot mix their text or messages. */
void dot_parse_lock(void);
void dot_parse_unlock(void);

/* Reset cgraph's lexer after a successful agmemread (it otherwise keeps
 * unread text and a drifting line count for the next parse). Anything that
 * parses DOT through cgraph calls it after each successful parse, with the
 * lock above held. */
void dot_lexer_reset(void);

/* Load a file, choosing the format by content: '{' starts JSON, anything
 * else is read as DOT. */
Graph *graph_load(const char *path, Err *e);

/* remat-graph JSON text (pretty-printed, ends with a newline); caller frees. */
char *graph_to_json(const Graph *g);

/* DOT text that graph_from_dot reads back to an identical graph; caller frees. */
char *graph_to_dot(const Graph *g);

/* graph_to_dot with drawing text added that the reader ignores, so a
 * drawing reads back as the same graph: head after the graph attributes
 * (defaults, a label), node_extra[v] (NULL entries allowed; node_extra
 * itself may be NULL) inside node v's attribute list, tail (clusters that
 * name existing nodes) before the closing brace. Caller frees. */
char *graph_to_dot_ex(const Graph *g, const char *head, char *const *node_extra, const char *tail);
/* graph_to_dot_ex with edge_extra[k] (NULL entries allowed; edge_extra
 * itself may be NULL) as the attribute list of the edge g->in_idx[k] -> v
 * (in_off[v] <= k < in_off[v + 1]). */
char *graph_to_dot_draw(const Graph *g, const char *head, char *const *node_extra,
                        char *const *edge_extra, const char *tail);

/* s as a quoted DOT string the reader decodes back to s; caller frees. */
char *dot_quote(const char *s);

#endif
