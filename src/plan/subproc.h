/* subproc.h — run a computation in a child process that the caller can
 * stop at any moment.
 *
 * MILP and LP libraries (CBC, CLP) have no way to be interrupted from
 * outside once they solve, and some overrun their own time limits. Forked,
 * such a solve is stopped within milliseconds: the parent polls the
 * caller's cancel flag and a hard deadline while it reads what the child
 * writes to a pipe, and kills the child when either fires. The child gets
 * a copy of the parent's memory (built models included) and must only
 * compute and write; it ends with _exit, never returning into the caller.
 */
#ifndef REMAT_SUBPROC_H
#define REMAT_SUBPROC_H

#include <stddef.h>

#include "src/base/err.h"

struct Progress;

/* Run fn(ctx, fd) in a child process; fn writes its result to fd. The
 * bytes written are returned in *out (caller frees; may be NULL when none)
 * and *len. Returns ERR_OK when the child exited on its own with status
 * 0, ERR_CANCELLED when p was cancelled, ERR_LIMIT when `seconds` passed
 * first (the child is killed either way; what it wrote so far is still
 * returned), ERR_IO when the child could not be started or failed. */
int subproc_run(int (*fn)(void *ctx, int fd), void *ctx, struct Progress *p, double seconds,
                char **out, size_t *len, Err *e);

/* How a solve given `limit` seconds from t0 (clock_now()) splits what is
 * left: *engine is the limit to hand the library itself, *backstop the
 * `seconds` for subproc_run. The engine gets 90 % of what is left: CBC and
 * GLPK end a little after their own limit, and CLP's limit is CPU time,
 * which runs slower than the clock on a busy machine. The backstop falls at
 * the end of the whole limit, so a solve ends within the 10 % the limit
 * allows (killing the child and reaping it takes milliseconds) even when
 * the engine does not stop by itself. */
void subproc_limits(double t0, double limit, double *engine, double *backstop);

/* Run the program argv[0] with arguments argv (NULL-terminated) in a
 * child process, its standard output and error written to the file log
 * (created 0600; NULL: /dev/null, so nothing lands on the explorer's
 * screen; "-": left on ours, for the command line). The child is killed
 * when p is cancelled. ERR_OK with the exit status in *status (127: the
 * program could not be run; 128 + N: killed by signal N); ERR_CANCELLED;
 * ERR_IO when no process could be started. The one place, with
 * subproc_run, where the program starts child processes. */
int subproc_exec(char *const argv[], const char *log, struct Progress *p, int *status, Err *e);

/* Write all n bytes to fd (the child's side); 0 or -1. */
int subproc_write(int fd, const void *buf, size_t n);

#endif
