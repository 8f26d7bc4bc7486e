/* replay_run.h — the replay programs beside remat: the torch backend
 * (tools/replay_torch.py: a plan run with the model's own operators, for
 * graphs whose exporter recorded a recipe) and the CUDA backend
 * (remat-cuda), found and run as stoppable child processes
 * (subproc_exec). The tool is found through $REMAT_TOOLS (a directory) or beside the
 * build, at <dir of remat>/../tools/; the interpreter is $REMAT_PYTHON or
 * Debian's /usr/bin/python3 (the one with python3-torch). The CUDA
 * backend's program, remat-cuda, is found beside remat here too. */
#ifndef REMAT_REPLAY_RUN_H
#define REMAT_REPLAY_RUN_H

#include <stddef.h>

/* Path of replay_torch.py into tool (n bytes); -1 with msg when absent. */
int torch_replay_locate(char *tool, size_t n, char *msg, size_t mn);

/* Path of remat-cuda beside this program into path (n bytes); -1 with msg
 * (mn bytes) when this program cannot be located or the build has no
 * remat-cuda. */
int cuda_replay_locate(char *path, size_t n, char *msg, size_t mn);

struct Progress;

/* Run the tool on graph and plan files, writing the remat-replay document
 * to out. log: a file for its stdout and stderr ("-": ours). p (may be
 * NULL) stops it. Returns its exit status (127: the interpreter could not
 * be run; -1: cancelled). */
int torch_replay_run(const char *tool, const char *graph, const char *plan, const char *out,
                     const char *log, struct Progress *p);

/* Run remat-cuda (path) on graph and plan files: `flag` is "--scale" or
 * "--fit" with its value, the measured curve to out, messages to log
 * ("-": ours). Returns its exit status as torch_replay_run does. */
int cuda_replay_run(const char *path, const char *graph, const char *plan, const char *flag,
                    const char *value, const char *out, const char *log, struct Progress *p);

#endif
