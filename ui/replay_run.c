/* replay_run.c — finding and running the replay programs (replay_run.h):
 * tools/replay_torch.py, a separate Python process so that remat itself
 * never links torch, and remat-cuda, so that remat runs where CUDA does
 * not. Both through subproc_exec, which a cancel stops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/plan/subproc.h"
#include "ui/replay_run.h"

/* path (n bytes) = rel beside this program: <dir of remat>/rel; -1 with
 * "replay: cannot locate <what>" in msg when /proc/self/exe cannot be
 * read. */
static int beside_self(char *path, size_t n, const char *rel, const char *what, char *msg, size_t mn)
{
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        snprintf(msg, mn, "replay: cannot locate %s", what);
        return -1;
    }
    self[k] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(path, n, "%s/%s", slash ? self : ".", rel);
    return 0;
}

int cuda_replay_locate(char *path, size_t n, char *msg, size_t mn)
{
    if (beside_self(path, n, "remat-cuda", "the remat-cuda program", msg, mn))
        return -1;
    if (access(path, X_OK) != 0) {
        snprintf(msg, mn, "replay: built without CUDA (no remat-cuda beside remat; install nvcc and rebuild)");
        return -1;
    }
    return 0;
}

int torch_replay_locate(char *tool, size_t n, char *msg, size_t mn)
{
    const char *dir = getenv("REMAT_TOOLS");
    if (dir && *dir)
        snprintf(tool, n, "%s/replay_torch.py", dir);
    else if (beside_self(tool, n, "../tools/replay_torch.py", "this program, so neither tools/replay_torch.py",
                         msg, mn))
        return -1;
    if (access(tool, R_OK) != 0) {
        snprintf(msg, mn, "replay: no %s (set REMAT_TOOLS to the directory of replay_torch.py)", tool);
        return -1;
    }
    return 0;
}

/* The program's exit status, or -1 when it was cancelled. */
static int run(char *const argv[], const char *log, struct Progress *p)
{
    int st;
    Err e;
    err_clear(&e);
    int rc = subproc_exec(argv, log, p, &st, &e);
    if (rc == ERR_CANCELLED)
        return -1;
    if (rc) {
        fprintf(stderr, "remat: %s\n", e.msg);
        return 127;
    }
    return st;
}

int torch_replay_run(const char *tool, const char *graph, const char *plan, const char *out,
                     const char *log, struct Progress *p)
{
    const char *py = getenv("REMAT_PYTHON");
    if (!py || !*py)
        py = "/usr/bin/python3";
    char *argv[] = {(char *)py, (char *)tool, (char *)graph, (char *)plan, (char *)"-o", (char *)out, NULL};
    return run(argv, log, p);
}

int cuda_replay_run(const char *path, const char *graph, const char *plan, const char *flag,
                    const char *value, const char *out, const char *log, struct Progress *p)
{
    char *argv[] = {(char *)path, (char *)graph, (char *)plan, (char *)flag, (char *)value, (char *)out, NULL};
    return run(argv, log, p);
}
