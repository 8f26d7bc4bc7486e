/* err.h — status codes and the error value every core function fills.
 *
 * The core never prints or exits: a failing call returns one of the ERR_*
 * codes below and writes a one-line, human-readable message into an Err the
 * caller owns. Only the front ends (ui/) decide what to print and how to exit.
 */
#ifndef REMAT_ERR_H
#define REMAT_ERR_H

#include <stdarg.h>

/* X-macro: code, short name. The table in err.c gives each a label. */
#define ERR_CODES(X)                          \
    X(ERR_OK, "ok")                           \
    X(ERR_NOMEM, "out of memory")             \
    X(ERR_IO, "i/o error")                    \
    X(ERR_PARSE, "parse error")               \
    X(ERR_INVALID, "invalid input")           \
    X(ERR_CYCLE, "cycle")                     \
    X(ERR_USAGE, "usage")                     \
    X(ERR_OVER_BUDGET, "over budget")         \
    X(ERR_UNSUPPORTED, "not applicable")      \
    X(ERR_LIMIT, "limit reached")             \
    X(ERR_CANCELLED, "cancelled")

enum {
#define X(code, label) code,
    ERR_CODES(X)
#undef X
    ERR_COUNT
};

#define ERR_MSG_MAX 1024

typedef struct Err {
    int code;               /* ERR_OK when nothing went wrong */
    char msg[ERR_MSG_MAX];  /* one line, no trailing newline */
} Err;

/* Reset e to ERR_OK with an empty message. e may be NULL. */
void err_clear(Err *e);

/* Set code and a printf-style message; returns code so callers can write
 * `return err_set(e, ERR_INVALID, "...")`. e may be NULL. Newlines in the
 * message are replaced by spaces so the result stays one line. */
int err_set(Err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int err_vset(Err *e, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Prefix the existing message with "prefix: " (e.g. a file name). */
void err_prefix(Err *e, const char *prefix);

/* Label of a code ("parse error"); "unknown" for out-of-range codes. */
const char *err_label(int code);

#endif
