/* json_util.c — checked cJSON access and exact number output. */
#include "src/graph/json_util.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "src/base/fileio.h"
#include "src/graph/graph.h"
#include "src/base/strmap.h"
#include "src/base/xalloc.h"

/* ---- what cJSON does not check ------------------------------------------
 * cJSON turns "\u0000" into a NUL that silently ends the string, keeps every
 * duplicate key (lookups then see the first), and reads each number as a
 * double, so "9007199254740993" becomes 2^53 and "1.0000000000000001" an
 * integer. After cJSON has accepted the text, one lexical pass refuses NUL
 * escapes by line:column and lists the number literals whose double may
 * differ from what is written; one walk over the tree refuses duplicate
 * keys by JSON path and hands those literals to the number items that
 * need them (see json_get_int). */

typedef struct NumLit {
    size_t ord;     /* index among all number tokens, in text order */
    size_t off, len;
} NumLit;

typedef struct Scan {
    NumLit *lit;
    int n, cap;
    size_t ord;     /* number items met so far by the walk */
    int next;       /* next lit[] the walk has not reached */
} Scan;

/* Up to 15 digits, optional minus: read exactly by any double parser. */
static int plain_int(const char *t, size_t len)
{
    size_t i = t[0] == '-';
    if (len - i < 1 || len - i > 15)
        return 0;
    for (; i < len; i++)
        if (t[i] < '0' || t[i] > '9')
            return 0;
    return 1;
}

static int scan_text(const char *t, size_t len, Scan *sc, const char *fname, Err *e)
{
    size_t ord = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < len && t[i] != '"'; i++) {
                if (t[i] != '\\')
                    continue;
                if (i + 5 < len && t[i + 1] == 'u' && memcmp(t + i + 2, "0000", 4) == 0) {
                    int line, col;
                    text_line_col(t, i, &line, &col);
                    return err_set(e, ERR_PARSE, "%s:%d:%d: invalid JSON: \\u0000 (NUL) inside a string",
                                   fname, line, col);
                }
                i++;
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t j = i;
            while (j < len && strchr("0123456789+-.eE", t[j]) && t[j])
                j++;
            if (!plain_int(t + i, j - i)) {
                xgrow((void **)&sc->lit, &sc->cap, sc->n + 1, sizeof *sc->lit);
                sc->lit[sc->n++] = (NumLit){ord, i, j - i};
            }
            ord++;
            i = j - 1;
        }
    }
    return ERR_OK;
}

/* A JSON path for messages: "$", "nodes[3]", "units.cost". */
typedef struct PathSeg {
    const struct PathSeg *up;
    const char *key;    /* object member name, or NULL for an array index */
    int idx;
} PathSeg;

static void path_text(const PathSeg *p, char *buf, size_t n)
{
    const PathSeg *seg[64];
    int k = 0;
    for (; p && p->up; p = p->up) /* the root segment prints as nothing */
        if (k < 64)
            seg[k++] = p;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = k - 1; i >= 0 && used + 1 < n; i--) {
        int w = seg[i]->key ? snprintf(buf + used, n - used, "%s%s", used ? "." : "", seg[i]->key)
                            : snprintf(buf + used, n - used, "[%d]", seg[i]->idx);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (!used)
        snprintf(buf, n, "$");
}

static const char *dup_key(const cJSON *obj)
{
    int k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        k++;
    if (k <= 8) {
        for (const cJSON *a = obj->child; a; a = a->next)
            for (const cJSON *b = a->next; b; b = b->next)
                if (a->string && b->string && strcmp(a->string, b->string) == 0)
                    return b->string;
        return NULL;
    }
    StrMap m;
    strmap_init(&m);
    const char *dup = NULL;
    for (const cJSON *c = obj->child; c && !dup; c = c->next)
        if (c->string && strmap_put(&m, c->string, 0) >= 0)
            dup = c->string;
    strmap_done(&m);
    return dup;
}

static int walk(cJSON *it, const PathSeg *at, Scan *sc, const char *text, const char *fname, Err *e)
{
    if (cJSON_IsNumber(it)) {
        if (sc->next < sc->n && sc->lit[sc->next].ord == sc->ord) {
            const NumLit *l = &sc->lit[sc->next++];
            double d = it->valuedouble;
            /* only an integral double can hide a literal that is not it */
            if (isfinite(d) && d == floor(d) && !it->valuestring) {
                it->valuestring = cJSON_malloc(l->len + 1);
                if (!it->valuestring)
                    return err_set(e, ERR_NOMEM, "%s: out of memory", fname);
                memcpy(it->valuestring, text + l->off, l->len);
                it->valuestring[l->len] = '\0';
            }
        }
        sc->ord++;
        return ERR_OK;
    }
    if (cJSON_IsObject(it)) {
        const char *d = dup_key(it);
        if (d) {
            char path[256];
            path_text(at, path, sizeof path);
            return err_set(e, ERR_INVALID, "%s: %s: duplicate key '%s'", fname, path, d);
        }
    }
    int i = 0;
    for (cJSON *c = it->child; c; c = c->next, i++) {
        PathSeg seg = {at, cJSON_IsObject(it) ? c->string : NULL, i};
        int rc = walk(c, &seg, sc, text, fname, e);
        if (rc)
            return rc;
    }
    return ERR_OK;
}

cJSON *json_parse(const char *text, size_t len, const char *fname, Err *e)
{
    const char *end = NULL;
    if (text_check_utf8(text, len, fname, e))
        return NULL;
    /* length includes the final NUL so trailing-text rejection works */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (root) {
        Scan sc = {0};
        PathSeg top = {NULL, NULL, 0};
        int rc = scan_text(text, len, &sc, fname, e);
        if (!rc)
            rc = walk(root, &top, &sc, text, fname, e);
        free(sc.lit);
        if (rc) {
            cJSON_Delete(root);
            return NULL;
        }
        return root;
    }
    size_t off = end ? (size_t)(end - text) : 0;
    if (off > len)
        off = len;
    int line, col;
    text_line_col(text, off, &line, &col);
    char near[24];
    size_t k = 0;
    for (size_t i = off; i < len && k < 16; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n' || ch == '\r' || ch == '\t')
            break;
        near[k++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
    }
    near[k] = '\0';
    if (off >= len)
        err_set(e, ERR_PARSE, "%s:%d:%d: invalid JSON: unexpected end of input", fname, line, col);
    else
        err_set(e, ERR_PARSE, "%s:%d:%d: invalid JSON near '%s'", fname, line, col, near);
    return NULL;
}

cJSON *json_int(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return cJSON_CreateRaw(buf);
}

void json_format_num(double v, char *buf, size_t n)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.17g", v);
}

cJSON *json_num(double v)
{
    char buf[40];
    json_format_num(v, buf, sizeof buf);
    return cJSON_CreateRaw(buf);
}

/* Exact value of a JSON number literal that denotes an integer: 0 and *v,
 * -1 when it is not an integer, 1 when its magnitude passes INT64_MAX. */
static int literal_int(const char *t, int64_t *v)
{
    int neg = *t == '-';
    t += neg;
    size_t ml = strcspn(t, "eE");
    long exp10 = 0;
    if (t[ml]) {
        exp10 = strtol(t + ml + 1, NULL, 10);
        exp10 = exp10 > 1000000 ? 1000000 : exp10 < -1000000 ? -1000000 : exp10;
    }
    const char *dot = memchr(t, '.', ml);
    long ilen = dot ? (long)(dot - t) : (long)ml; /* digits before the point */
    /* digit k of the mantissa (point skipped) has place ilen - 1 - k + exp10 */
    long k = 0, k0 = -1, k1 = -1;
    for (size_t i = 0; i < ml; i++) {
        if (t[i] == '.')
            continue;
        if (t[i] != '0') {
            if (k0 < 0)
                k0 = k;
            k1 = k;
        }
        k++;
    }
    if (k0 < 0) {
        *v = 0;
        return 0;
    }
    long low = ilen - 1 - k1 + exp10, high = ilen - 1 - k0 + exp10;
    if (low < 0)
        return -1;
    if (high >= 19)
        return 1;
    uint64_t x = 0;
    k = 0;
    for (size_t i = 0; i < ml; i++) {
        if (t[i] == '.')
            continue;
        if (k >= k0 && k <= k1)
            x = x * 10 + (uint64_t)(t[i] - '0');
        k++;
    }
    for (long i = 0; i < low; i++)
        x *= 10; /* at most 19 digits: below 10^19 < 2^64 */
    if (x > (uint64_t)INT64_MAX)
        return 1;
    *v = neg ? -(int64_t)x : (int64_t)x;
    return 0;
}

static void max_text(int64_t max, char *buf, size_t n)
{
    if (max == JSON_EXACT_MAX)
        snprintf(buf, n, "2^53");
    else if (max == INT64_MAX)
        snprintf(buf, n, "2^63-1");
    else
        snprintf(buf, n, "%lld", (long long)max);
}

int json_item_int(const cJSON *it, int64_t *out)
{
    double d = it->valuedouble;
    if (!cJSON_IsNumber(it) || !isfinite(d) || d != floor(d))
        return -1;
    if (it->valuestring)
        return literal_int(it->valuestring, out);
    /* a plain literal of at most 15 digits: the double is exact */
    *out = (int64_t)d;
    return 0;
}

/* obj.key as a number item: NULL when absent or null (the default
 * applies), an error when it is there but not a number. */
static int number_item(const cJSON *obj, const char *key, const cJSON **it, const char *fname,
                       const char *path, Err *e)
{
    *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (*it && cJSON_IsNull(*it))
        *it = NULL;
    if (*it && !cJSON_IsNumber(*it)) {
        *it = NULL;
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected a number", fname, path, key);
    }
    return ERR_OK;
}

int json_get_int(const cJSON *obj, const char *key, int64_t def, int64_t max, int64_t *out,
                 const char *fname, const char *path, Err *e)
{
    const cJSON *it;
    int rc = number_item(obj, key, &it, fname, path, e);
    if (rc || !it) {
        *out = def;
        return rc;
    }
    double d = it->valuedouble;
    char lit[40], mx[24];
    max_text(max, mx, sizeof mx);
    if (!isfinite(d) || d != floor(d))
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected an integer, got %g", fname, path, key, d);
    if (it->valuestring)
        snprintf(lit, sizeof lit, "%.32s%s", it->valuestring, strlen(it->valuestring) > 32 ? "..." : "");
    else
        snprintf(lit, sizeof lit, "%.0f", d);
    int64_t v = 0;
    int st = json_item_int(it, &v);
    if (st < 0)
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected an integer, got %s", fname, path, key, lit);
    if ((st == 0 && v < 0) || (st > 0 && d < 0))
        return err_set(e, ERR_INVALID, "%s: %s.%s: negative value %s", fname, path, key, lit);
    if (st > 0 || v > max)
        return err_set(e, ERR_INVALID, "%s: %s.%s: value %s exceeds %s", fname, path, key, lit, mx);
    *out = v;
    return ERR_OK;
}

int json_get_size(const cJSON *obj, const char *key, int64_t def, int64_t *out,
                  const char *fname, const char *path, Err *e)
{
    return json_get_int(obj, key, def, JSON_EXACT_MAX, out, fname, path, e);
}

int json_get_num(const cJSON *obj, const char *key, double def, double max, double *out,
                 const char *fname, const char *path, Err *e)
{
    const cJSON *it;
    int rc = number_item(obj, key, &it, fname, path, e);
    if (rc || !it) {
        *out = def;
        return rc;
    }
    double d = it->valuedouble;
    if (!isfinite(d) || d < 0 || d > max)
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected a finite non-negative number up to %g, got %g",
                       fname, path, key, max, d);
    *out = d;
    return ERR_OK;
}

int json_get_cost(const cJSON *obj, const char *key, double def, double *out,
                  const char *fname, const char *path, Err *e)
{
    return json_get_num(obj, key, def, GRAPH_COST_MAX, out, fname, path, e);
}

int json_get_str(const cJSON *obj, const char *key, const char *def, const char **out,
                 const char *fname, const char *path, Err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it || cJSON_IsNull(it)) {
        *out = def;
        return ERR_OK;
    }
    if (!cJSON_IsString(it))
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected a string", fname, path, key);
    *out = it->valuestring;
    return ERR_OK;
}

char *json_print_line(cJSON *root, int formatted)
{
    char *text = formatted ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    size_t n = strlen(text);
    char *out = xmalloc(n + 2);
    memcpy(out, text, n);
    out[n] = '\n';
    out[n + 1] = '\0';
    cJSON_free(text);
    return out;
}
