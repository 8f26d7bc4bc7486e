/* json_util.c — checked cJSON access and exact number output. */
#include "src/json_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "src/fileio.h"

cJSON *json_parse(const char *text, size_t len, const char *fname, Err *e)
{
    const char *end = NULL;
    if (memchr(text, '\0', len)) {
        size_t off = strlen(text);
        int line, col;
        text_line_col(text, off, &line, &col);
        err_set(e, ERR_PARSE, "%s:%d:%d: invalid JSON: NUL byte in text", fname, line, col);
        return NULL;
    }
    if (text_check_utf8(text, len, fname, e))
        return NULL;
    /* length includes the final NUL so trailing-text rejection works */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (root)
        return root;
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

int json_get_size(const cJSON *obj, const char *key, int64_t def, int64_t *out,
                  const char *fname, const char *path, Err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it || cJSON_IsNull(it)) {
        *out = def;
        return ERR_OK;
    }
    if (!cJSON_IsNumber(it))
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected a number", fname, path, key);
    double d = it->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected an integer, got %g", fname, path, key, d);
    if (d < 0)
        return err_set(e, ERR_INVALID, "%s: %s.%s: negative value %.0f", fname, path, key, d);
    if (d > 9007199254740992.0)
        return err_set(e, ERR_INVALID, "%s: %s.%s: value %g exceeds 2^53", fname, path, key, d);
    *out = (int64_t)d;
    return ERR_OK;
}

int json_get_cost(const cJSON *obj, const char *key, double def, double *out,
                  const char *fname, const char *path, Err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it || cJSON_IsNull(it)) {
        *out = def;
        return ERR_OK;
    }
    if (!cJSON_IsNumber(it))
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected a number", fname, path, key);
    double d = it->valuedouble;
    if (!isfinite(d) || d < 0 || d > 1e300)
        return err_set(e, ERR_INVALID, "%s: %s.%s: expected a finite non-negative number, got %g",
                       fname, path, key, d);
    *out = d;
    return ERR_OK;
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
