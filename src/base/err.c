/* err.c — error values: formatting, prefixing and code labels. */
#include "src/base/err.h"

#include <stdio.h>
#include <string.h>

static const char *const labels[ERR_COUNT] = {
#define X(code, label) label,
    ERR_CODES(X)
#undef X
};

void err_clear(Err *e)
{
    if (!e)
        return;
    e->code = ERR_OK;
    e->msg[0] = '\0';
}

/* One line, safe for a terminal: line breaks and tabs become spaces, other
 * control characters (C0, DEL, C1 as UTF-8 C2 80..9F) a '?', since ids and
 * file names quoted in messages come from files. */
static void one_line(char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n' || c == '\r' || c == '\t')
            *s = ' ';
        else if (c < 0x20 || c == 0x7f)
            *s = '?';
        else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f)
            s[0] = s[1] = '?';
    }
}

int err_vset(Err *e, int code, const char *fmt, va_list ap)
{
    if (!e)
        return code;
    e->code = code;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    one_line(e->msg);
    return code;
}

int err_set(Err *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

void err_prefix(Err *e, const char *prefix)
{
    char tmp[ERR_MSG_MAX];
    if (!e || !prefix)
        return;
    size_t pl = strlen(prefix);
    if (pl > ERR_MSG_MAX / 2)
        pl = ERR_MSG_MAX / 2;
    memcpy(tmp, prefix, pl);
    tmp[pl] = ':';
    tmp[pl + 1] = ' ';
    size_t rest = ERR_MSG_MAX - pl - 3, ml = strlen(e->msg);
    if (ml > rest)
        ml = rest;
    memcpy(tmp + pl + 2, e->msg, ml);
    tmp[pl + 2 + ml] = '\0';
    memcpy(e->msg, tmp, sizeof tmp);
    one_line(e->msg);
}

const char *err_label(int code)
{
    return code >= 0 && code < ERR_COUNT ? labels[code] : "unknown";
}
