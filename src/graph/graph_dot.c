/* graph_dot.c — Graphviz DOT in (through cgraph) and out (as text).
 *
 * Reading: node attributes op, phase, size, cost, workspace, grad_of and
 * output ("1" marks an explicit output); every edge u -> v means v reads u,
 * in the order the edges appear. Graph attributes source, cost_unit and
 * size_unit; the graph's own name is the graph name. cgraph reports syntax
 * errors by line; we add the column of the offending token when it can be
 * found on that line. This file is the only one in src/ that touches
 * cgraph, whose API takes `char *` for constant strings.
 */
#include <graphviz/cgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/fileio.h"
#include "src/graph/graph_io.h"
#include "src/graph/json_util.h"
#include "src/base/numparse.h"
#include "src/base/strbuf.h"
#include "src/base/xalloc.h"

/* cgraph reports errors through a global callback and keeps one lexer:
 * serialise its users (graph_io.h) so two threads do not share them. */
#include <pthread.h>
static pthread_mutex_t dot_lock = PTHREAD_MUTEX_INITIALIZER;
static char dot_errbuf[512];

void dot_parse_lock(void)
{
    pthread_mutex_lock(&dot_lock);
}

void dot_parse_unlock(void)
{
    pthread_mutex_unlock(&dot_lock);
}

/* cgraph (2.42/2.43) keeps its lexer buffer and line count between
 * agmemread calls: text after the first graph would be read as the start
 * of the next string parsed, and line numbers drift. Only a syntax error
 * resets the lexer, so after each successful parse we feed it one. */
static int reset_errors;
static int reset_err_cb(char *msg)
{
    (void)msg;
    reset_errors++;
    return 0;
}

/* Feed the closers until one ends in a syntax error. An HTML string
 * nests: its closer is 4096 '>' (16 rounds close 65536 levels). */
static void feed_closers(void)
{
    char html[4096 + 3];
    memset(html, '>', 4096);
    memcpy(html + 4096, " }", 3);
    const char *const closers[] = {"}", "*/ }", "\" }", html};
    for (size_t i = 0; i < sizeof closers / sizeof closers[0]; i++) {
        reset_errors = 0;
        Agraph_t *junk = agmemread(closers[i]);
        if (junk)
            agclose(junk);
        if (reset_errors)
            return;
    }
}

void dot_lexer_reset(void)
{
    /* The lexer may also be left inside a comment, a quoted string or an
     * HTML string (text that ends without closing one), or hold unread
     * text. A '}' alone is a syntax error only in the normal state; else
     * a closer ends the comment or string first (fed to the normal state a
     * closer would open a string of its own, so feeding stops at the first
     * error). Then a tiny graph must parse, and one more '}' resets what
     * that parse left; if it does not parse, again. */
    agusererrf old = agseterrf(reset_err_cb);
    for (int round = 0; round < 16; round++) {
        feed_closers();
        reset_errors = 0;
        Agraph_t *probe = agmemread("digraph{}");
        if (probe && !reset_errors) {
            agclose(probe);
            feed_closers();
            break;
        }
        if (probe)
            agclose(probe);
    }
    agseterrf(old);
}

static int dot_err_cb(char *msg)
{
    size_t used = strlen(dot_errbuf);
    if (used < sizeof dot_errbuf - 1)
        snprintf(dot_errbuf + used, sizeof dot_errbuf - used, "%s", msg);
    return 0;
}

/* cgraph: "syntax error in line 3 near 'foo'" — turn into line:col. */
static void dot_syntax_error(const char *text, const char *fname, Err *e)
{
    int line = 0;
    char near[128] = "";
    const char *p = strstr(dot_errbuf, "line ");
    if (p)
        line = atoi(p + 5);
    const char *q = strstr(dot_errbuf, "near '");
    if (q) {
        q += 6;
        size_t k = 0;
        while (q[k] && q[k] != '\'' && k < sizeof near - 1) {
            near[k] = q[k];
            k++;
        }
        near[k] = '\0';
    }
    int col = 1;
    if (line > 0) {
        const char *ls = text;
        for (int l = 1; l < line && ls; l++) {
            ls = strchr(ls, '\n');
            if (ls)
                ls++;
        }
        if (ls && near[0]) {
            const char *le = strchr(ls, '\n');
            const char *hit = strstr(ls, near);
            if (hit && (!le || hit < le))
                col = (int)(hit - ls) + 1;
        }
    }
    /* the reason, when it is not the usual one: "memory exhausted" */
    char why[64] = "";
    const char *r = strstr(dot_errbuf, "Error: ");
    const char *rend = r ? strstr(r, " in line") : NULL;
    if (r && rend && rend - r - 7 < (long)sizeof why - 3 && strncmp(r + 7, "syntax error", 12) != 0)
        snprintf(why, sizeof why, ": %.*s", (int)(rend - r - 7), r + 7);
    if (line > 0)
        err_set(e, ERR_PARSE, "%s:%d:%d: invalid DOT%s%s%s%s", fname, line, col, why,
                near[0] ? " near '" : "", near, near[0] ? "'" : "");
    else
        err_set(e, ERR_PARSE, "%s:1:1: invalid DOT: %s", fname,
                dot_errbuf[0] ? dot_errbuf : "not a graph");
}

static const char *attr(void *obj, const char *name)
{
    char *v = agget(obj, (char *)name);
    return v && *v ? v : NULL;
}

/* cgraph keeps backslashes in quoted strings (only \" is decoded), so undo
 * the writer's other escapes here: \\ is one backslash, \n a newline; any
 * other backslash stays as written. Returns a static buffer per slot
 * (callers copy before the slot is reused), NULL for NULL. */
static const char *unesc(const char *s, int slot)
{
    static char *buf[4];
    if (!s)
        return NULL;
    free(buf[slot]);
    buf[slot] = xmalloc(strlen(s) + 1);
    char *d = buf[slot];
    for (; *s; s++) {
        if (s[0] == '\\' && (s[1] == '\\' || s[1] == 'n')) {
            *d++ = s[1] == 'n' ? '\n' : '\\';
            s++;
        } else {
            *d++ = *s;
        }
    }
    *d = '\0';
    return buf[slot];
}

static int edge_seq_cmp(const void *a, const void *b)
{
    uint64_t x = AGSEQ(*(Agedge_t *const *)a), y = AGSEQ(*(Agedge_t *const *)b);
    return x < y ? -1 : x > y;
}

/* A node attribute by its symbol, looked up once per file rather than by
 * name for every node (cgraph's name lookups dominated large files). */
static const char *nattr(Agnode_t *an, Agsym_t *sym)
{
    if (!sym)
        return NULL;
    char *v = agxget(an, sym);
    return v && *v ? v : NULL;
}

static int read_nodes(Agraph_t *ag, Graph *g, const char *fname, Err *e)
{
    char where[300];
    Agsym_t *s_phase = agattr(ag, AGNODE, "phase", NULL), *s_size = agattr(ag, AGNODE, "size", NULL),
            *s_ws = agattr(ag, AGNODE, "workspace", NULL), *s_cost = agattr(ag, AGNODE, "cost", NULL),
            *s_op = agattr(ag, AGNODE, "op", NULL), *s_grad = agattr(ag, AGNODE, "grad_of", NULL),
            *s_out = agattr(ag, AGNODE, "output", NULL);
    for (Agnode_t *an = agfstnode(ag); an; an = agnxtnode(ag, an)) {
        const char *id = unesc(agnameof(an), 0);
        snprintf(where, sizeof where, "node '%s'", id);
        int64_t size = 1, ws = 0;
        double cost = 1;
        const char *v;
        int phase = PHASE_FWD;
        if ((v = nattr(an, s_phase)) && (phase = phase_parse(v)) < 0)
            return err_set(e, ERR_INVALID, "%s: %s: unknown phase '%s'", fname, where, v);
        if ((v = nattr(an, s_size)) && num_parse_int(v, GRAPH_SIZE_MAX, &size))
            return err_set(e, ERR_INVALID, "%s: %s: size '%s' is not an integer in 0..2^53", fname,
                           where, v);
        if ((v = nattr(an, s_ws)) && num_parse_int(v, GRAPH_SIZE_MAX, &ws))
            return err_set(e, ERR_INVALID, "%s: %s: workspace '%s' is not an integer in 0..2^53",
                           fname, where, v);
        if ((v = nattr(an, s_cost)) && num_parse_real(v, GRAPH_COST_MAX, &cost))
            return err_set(e, ERR_INVALID, "%s: %s: cost '%s' is not a decimal number in 0..1e300",
                           fname, where, v);
        const char *op = unesc(nattr(an, s_op), 1);
        if (!op)
            op = phase == PHASE_INPUT ? "input" : "op";
        Err ne;
        err_clear(&ne);
        if (graph_add_node(g, id, op, (Phase)phase, size, cost, ws, where, &ne) < 0)
            return err_set(e, ne.code, "%s: %s", fname, ne.msg);
        if ((v = nattr(an, s_grad)))
            graph_set_grad_of_name(g, g->n - 1, unesc(v, 1));
        if ((v = nattr(an, s_out)) && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0))
            graph_add_output_name(g, id);
    }
    /* edges in the order they were written: walk every node's out-edges and
     * sort by the edge sequence number cgraph keeps */
    int m = agnedges(ag), k = 0;
    Agedge_t **edges = xmallocarray((size_t)m + 1, sizeof *edges);
    for (Agnode_t *an = agfstnode(ag); an; an = agnxtnode(ag, an))
        for (Agedge_t *ae = agfstout(ag, an); ae; ae = agnxtout(ag, ae))
            if (k < m)
                edges[k++] = ae;
    qsort(edges, (size_t)k, sizeof *edges, edge_seq_cmp);
    for (int i = 0; i < k; i++) {
        int v = graph_find(g, unesc(agnameof(aghead(edges[i])), 0));
        graph_add_input_name(g, v, unesc(agnameof(agtail(edges[i])), 1));
    }
    free(edges);
    return ERR_OK;
}

/* cgraph's parser runs out of stack a few thousand braces deep and then
 * drops what it had read; nothing real nests a tenth as deep. */
#ifndef DOT_DEPTH_MAX
#define DOT_DEPTH_MAX 1000
#endif

/* Offset just past the '}' that closes the first graph body, skipping
 * strings, HTML labels and comments; 0 when there is none (cgraph then
 * reports the syntax error). *deep is the offset of the first '{' nested
 * past DOT_DEPTH_MAX, or 0. */
static size_t dot_body_end(const char *t, size_t len, size_t *deep)
{
    int depth = 0;
    *deep = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < len && t[i] != '"'; i++)
                if (t[i] == '\\' && i + 1 < len)
                    i++;
        } else if (c == '<' && depth > 0) {
            int h = 1;
            for (i++; i < len && h > 0; i++)
                h += t[i] == '<' ? 1 : t[i] == '>' ? -1 : 0;
            i--;
        } else if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(t[i] == '*' && t[i + 1] == '/'); i++)
                ;
            i++;
        } else if (c == '#' && (i == 0 || t[i - 1] == '\n')) {
            while (i < len && t[i] != '\n')
                i++;
        } else if (c == '{') {
            if (++depth > DOT_DEPTH_MAX && !*deep)
                *deep = i;
        } else if (c == '}' && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* 1 when t[from..len) holds only blanks and comments. */
static size_t dot_trailing(const char *t, size_t from, size_t len)
{
    for (size_t i = from; i < len; i++) {
        if (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')
            continue;
        if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n')
                i++;
            continue;
        }
        if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(t[i] == '*' && t[i + 1] == '/'); i++)
                ;
            i++;
            continue;
        }
        return i;
    }
    return 0;
}

Graph *graph_from_dot(const char *text, size_t len, const char *fname, Err *e)
{
    if (text_check_utf8(text, len, fname, e))
        return NULL;
    size_t deep, end = dot_body_end(text, len, &deep), extra = end ? dot_trailing(text, end, len) : 0;
    if (deep) {
        int line, col;
        text_line_col(text, deep, &line, &col);
        err_set(e, ERR_PARSE, "%s:%d:%d: invalid DOT: braces nested more than %d deep", fname, line,
                col, DOT_DEPTH_MAX);
        return NULL;
    }
    if (extra) {
        /* cgraph would silently ignore it and, worse, keep it for the next
         * parse; a second graph or stray text is an error */
        int line, col;
        text_line_col(text, extra, &line, &col);
        err_set(e, ERR_PARSE, "%s:%d:%d: invalid DOT: text after the end of the graph", fname,
                line, col);
        return NULL;
    }
    dot_parse_lock();
    dot_errbuf[0] = '\0';
    agseterr(AGERR);
    agseterrf(dot_err_cb);
    /* cgraph reads the graph alone: a comment after it (unterminated, say)
     * would leave its lexer inside the comment for the next parse */
    char *body = NULL;
    if (end && end < len) {
        body = xmalloc(end + 1);
        memcpy(body, text, end);
        body[end] = '\0';
    }
    Agraph_t *ag = agmemread(body ? body : text);
    free(body);
    Graph *g = NULL;
    if (!ag) {
        dot_syntax_error(text, fname, e);
        goto out;
    }
    if (dot_errbuf[0]) {
        /* cgraph reported an error (its parser out of memory, say) and
         * still returned what it had read so far: not the whole file */
        dot_syntax_error(text, fname, e);
        dot_lexer_reset();
        goto out;
    }
    dot_lexer_reset();
    if (!agisdirected(ag)) {
        err_set(e, ERR_INVALID, "%s:1:1: expected a digraph (edges are data dependencies)", fname);
        goto out;
    }
    g = graph_new();
    const char *nm = agnameof(ag);
    graph_set_info(g, nm && nm[0] != '%' ? unesc(nm, 0) : "", unesc(attr(ag, "source"), 1),
                   unesc(attr(ag, "cost_unit"), 2), unesc(attr(ag, "size_unit"), 3));
    if (read_nodes(ag, g, fname, e) || graph_finalize(g, e)) {
        if (e && e->code != ERR_OK && strncmp(e->msg, fname, strlen(fname)) != 0)
            err_prefix(e, fname);
        graph_free(g);
        g = NULL;
    }
out:
    if (ag)
        agclose(ag);
    agseterrf(NULL);
    dot_parse_unlock();
    return g;
}

/* ---- writer ---------------------------------------------------------- */


static void put_quoted(StrBuf *b, const char *s)
{
    sb_put(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_put(b, "\\%c", *s);
        else if (*s == '\n')
            sb_put(b, "\\n");
        else
            sb_put(b, "%c", *s);
    }
    sb_put(b, "\"");
}

char *graph_to_dot_ex(const Graph *g, const char *head, char *const *node_extra, const char *tail)
{
    return graph_to_dot_draw(g, head, node_extra, NULL, tail);
}

char *graph_to_dot_draw(const Graph *g, const char *head, char *const *node_extra,
                        char *const *edge_extra, const char *tail)
{
    StrBuf b;
    sb_init(&b, 4096);
    sb_put(&b, "digraph ");
    put_quoted(&b, g->name);
    sb_put(&b, " {\n  source=");
    put_quoted(&b, g->source);
    sb_put(&b, ";\n  cost_unit=");
    put_quoted(&b, g->cost_unit);
    sb_put(&b, ";\n  size_unit=");
    put_quoted(&b, g->size_unit);
    sb_put(&b, ";\n");
    if (head)
        sb_put(&b, "%s", head);
    char num[40];
    for (int v = 0; v < g->n; v++) {
        const Node *nd = &g->nodes[v];
        sb_put(&b, "  ");
        put_quoted(&b, nd->id);
        sb_put(&b, " [op=");
        put_quoted(&b, nd->op);
        json_format_num(nd->cost, num, sizeof num);
        /* DOT numerals have no exponent: "1e+20" must be a quoted string */
        sb_put(&b, " phase=%s size=%lld cost=%s%s%s", phase_name(nd->phase), (long long)nd->size,
            strpbrk(num, "eE") ? "\"" : "", num, strpbrk(num, "eE") ? "\"" : "");
        if (nd->workspace)
            sb_put(&b, " workspace=%lld", (long long)nd->workspace);
        if (nd->grad_of >= 0) {
            sb_put(&b, " grad_of=");
            put_quoted(&b, g->nodes[nd->grad_of].id);
        }
        if (g->outputs_explicit && g->is_output[v])
            sb_put(&b, " output=1");
        if (node_extra && node_extra[v])
            sb_put(&b, " %s", node_extra[v]);
        sb_put(&b, "];\n");
    }
    for (int v = 0; v < g->n; v++)
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            sb_put(&b, "  ");
            put_quoted(&b, g->nodes[g->in_idx[k]].id);
            sb_put(&b, " -> ");
            put_quoted(&b, g->nodes[v].id);
            if (edge_extra && edge_extra[k])
                sb_put(&b, " [%s]", edge_extra[k]);
            sb_put(&b, ";\n");
        }
    if (tail)
        sb_put(&b, "%s", tail);
    sb_put(&b, "}\n");
    return b.s;
}

char *graph_to_dot(const Graph *g)
{
    return graph_to_dot_ex(g, NULL, NULL, NULL);
}

char *dot_quote(const char *s)
{
    StrBuf b;
    sb_init(&b, 64);
    put_quoted(&b, s);
    return b.s;
}
