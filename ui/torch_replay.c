/* torch_replay.c — finding and running tools/replay_torch.py (see
 * torch_replay.h). A separate Python process, like remat-cuda, so that
 * remat itself never links torch. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ui/torch_replay.h"

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

int torch_replay_run(const char *tool, const char *graph, const char *plan, const char *out,
                     const char *log)
{
    const char *py = getenv("REMAT_PYTHON");
    if (!py || !*py)
        py = "/usr/bin/python3";
    pid_t pid = fork();
    if (pid == 0) {
        if (log) {
            int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
                close(fd);
            }
        }
        execl(py, py, tool, graph, plan, "-o", out, (char *)NULL);
        fprintf(stderr, "replay: cannot run %s\n", py);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
