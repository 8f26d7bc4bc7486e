/* subproc.c — a stoppable child process (see subproc.h). */
#include "src/base/clock.h"
#include "src/plan/subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <stdio_ext.h>
#endif

#include "src/plan/solver.h"
#include "src/base/xalloc.h"

int subproc_write(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The child must never write on the terminal: under the explorer the UI
 * thread may have had screen updates in stdout's buffer when the worker
 * forked (they would be written a second time, over the screen), and an
 * engine's own chatter would land on the screen too.  So the copied buffer
 * is dropped and standard output goes nowhere, or to standard error when
 * REMAT_CBC_LOG asks for the engine's log. */
static void child_quiet(void)
{
#ifdef __GLIBC__
    __fpurge(stdout);
#endif
    int fd = getenv("REMAT_CBC_LOG") ? dup(2) : open("/dev/null", O_WRONLY);
    if (fd >= 0) {
        dup2(fd, 1);
        close(fd);
    }
}

void subproc_limits(double t0, double limit, double *engine, double *backstop)
{
    double left = t0 + limit - clock_now();
    *engine = left * 0.9 > 0.01 ? left * 0.9 : 0.01;
    *backstop = left > 0.05 ? left : 0.05;
}

int subproc_run(int (*fn)(void *ctx, int fd), void *ctx, Progress *p, double seconds, char **out,
                size_t *len, Err *e)
{
    *out = NULL;
    *len = 0;
    int fds[2];
    if (pipe(fds) != 0)
        return err_set(e, ERR_IO, "cannot create a pipe for the solver process: %s", strerror(errno));
    /* what the parent has buffered must not be written twice, once by
     * each process */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return err_set(e, ERR_IO, "cannot start the solver process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        /* the child must not take the terminal's signals for the parent's,
         * nor run the parent's handlers (which remove its open temporary
         * files) */
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        child_quiet();
        int rc = fn(ctx, fds[1]);
        close(fds[1]);
        fflush(NULL);   /* an engine's own log, when one is asked for */
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    double end = clock_now() + seconds;
    size_t cap = 0;
    int rc = ERR_OK, open = 1, reaped = 0, status = 0;
    while (open) {
        if (progress_cancelled(p)) {
            rc = ERR_CANCELLED;
            break;
        }
        if (clock_now() >= end) {
            rc = ERR_LIMIT;
            break;
        }
        struct pollfd pf = {fds[0], POLLIN, 0};
        int r = poll(&pf, 1, reaped ? 0 : 10);
        if (r < 0 && errno != EINTR)
            break;
        /* The pipe's end of file can come long after the child: a solver
         * process another thread forks meanwhile (the explorer's worker
         * beside the compare view's bound) inherits this write end and
         * keeps it open for its own run. So once the child has exited and
         * nothing more is there to read, its answer is complete. The
         * likely cause of a test_tui failure under the sanitizers: the gap
         * column's bound ran past its 10 s beside the explorer's solves. */
        if (r == 0 && reaped)
            break;
        if (r == 0 && waitpid(pid, &status, WNOHANG) == pid)
            reaped = 1;
        if (r <= 0)
            continue;
        if (*len + 65536 > cap) {
            cap = cap ? 2 * cap : 1 << 17;
            *out = xrealloc(*out, cap);
        }
        ssize_t n = read(fds[0], *out + *len, cap - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            open = 0;
        else
            *len += (size_t)n;
    }
    close(fds[0]);
    if (open && !reaped)
        kill(pid, SIGKILL);
    while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc == ERR_CANCELLED)
        return err_set(e, ERR_CANCELLED, "cancelled");
    if (rc == ERR_LIMIT)
        return err_set(e, ERR_LIMIT, "the solver process ran past %g s and was stopped", seconds);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return err_set(e, ERR_IO, "the solver process failed (%s %d)",
                       WIFSIGNALED(status) ? "signal" : "status",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return ERR_OK;
}

int subproc_exec(char *const argv[], const char *log, Progress *p, int *status, Err *e)
{
    *status = 127;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return err_set(e, ERR_IO, "cannot start %s: %s", argv[0], strerror(errno));
    if (pid == 0) {
#ifdef __GLIBC__
        __fpurge(stdout);
#endif
        if (!log || strcmp(log, "-")) {
            int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
                close(fd);
            }
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGWINCH, SIG_DFL);
        /* a bare name ($REMAT_PYTHON=python3) is looked up on PATH */
        execvp(argv[0], argv);
        dprintf(2, "remat: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    const struct timespec tick = {0, 20000000};
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return err_set(e, ERR_IO, "lost the process of %s: %s", argv[0], strerror(errno));
        if (progress_cancelled(p)) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            return err_set(e, ERR_CANCELLED, "%s: cancelled", argv[0]);
        }
        nanosleep(&tick, NULL);
    }
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    return ERR_OK;
}
