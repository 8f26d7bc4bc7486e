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

int torch_replay_locate(char *tool, size_t n, char *msg, size_t mn)
{
    const char *dir = getenv("REMAT_TOOLS");
    if (dir && *dir) {
        snprintf(tool, n, "%s/replay_torch.py", dir);
    } else {
        char self[4096];
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        if (k <= 0) {
            snprintf(msg, mn, "replay: cannot locate this program, so neither tools/replay_torch.py");
            return -1;
        }
        self[k] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        snprintf(tool, n, "%s/../tools/replay_torch.py", slash ? self : ".");
    }
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
