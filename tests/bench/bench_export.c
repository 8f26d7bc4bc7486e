/* bench_export.c — SVG and PNG export time (render/export.c, as `remat
 * export` and the explorer's `e` run it) on the real-model samples: which
 * layout AUTO chose (Graphviz's dot up to EXPORT_DOT_MAX_NODES nodes, the
 * layered layout beyond), the drawing's size, the wall time of each
 * format and the file's size. Run from the repository root; writes its
 * files in a temporary directory it removes. `bench_export --dot FILE...`
 * times Graphviz's dot layout on the files named instead (slow: minutes
 * on the larger models), for the before/after figures in
 * docs/benchmarks.md. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/export.h"
#include "src/base/clock.h"
#include "src/graph/graph_io.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the .json files of dir, sorted, appended to list */
static int list_json(const char *dir, char **list, int n, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return n;
    int first = n;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".json")) {
            list[n] = malloc(strlen(dir) + l + 2);
            sprintf(list[n++], "%s/%s", dir, de->d_name);
        }
    }
    closedir(d);
    qsort(list + first, (size_t)(n - first), sizeof *list, by_name);
    return n;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int time_export(const Graph *g, const char *fmt, const char *path, const ExportOpts *o,
                       double *secs, long *bytes)
{
    Err e;
    err_clear(&e);
    double t0 = clock_now();
    int rc = export_graph_opts(g, NULL, NULL, NULL, fmt, path, o, &e);
    *secs = clock_now() - t0;
    *bytes = file_size(path);
    if (rc)
        fprintf(stderr, "%s\n", e.msg);
    return rc;
}

int main(int argc, char **argv)
{
    char *files[64];
    int n = 0, dot_only = argc > 1 && !strcmp(argv[1], "--dot");
    if (dot_only) {
        for (int i = 2; i < argc && n < 64; i++)
            files[n++] = strdup(argv[i]);
    } else {
        n = list_json("samples/models", files, n, 64);
        n = list_json("samples/models/joint", files, n, 64);
    }
    char dir[] = "/tmp/remat-bench-export-XXXXXX", path[4200];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    printf("%-36s %5s %5s  %-7s %8s %9s %8s %9s\n", "graph", "nodes", "edges", "layout", "svg s",
           "svg KiB", "png s", "png KiB");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        Err e;
        err_clear(&e);
        Graph *g = graph_load(files[i], &e);
        if (!g) {
            printf("%-36s load failed: %s\n", files[i], e.msg);
            bad = 1;
            continue;
        }
        ExportOpts o = {dot_only ? EXPORT_LAYOUT_DOT : EXPORT_LAYOUT_AUTO, NULL, NULL, NULL};
        double ts = 0, tp = 0;
        long bs = 0, bp = 0;
        snprintf(path, sizeof path, "%s/x.svg", dir);
        bad |= time_export(g, "svg", path, &o, &ts, &bs) != 0;
        if (!dot_only) {
            snprintf(path, sizeof path, "%s/x.png", dir);
            bad |= time_export(g, "png", path, &o, &tp, &bp) != 0;
        }
        printf("%-36s %5d %5d  %-7s %8.2f %9ld", files[i], g->n, g->n_edges,
               export_layered_for(g, &o) ? "layered" : "dot", ts, bs / 1024);
        if (dot_only)
            printf(" %8s %9s\n", "-", "-");
        else
            printf(" %8.2f %9ld\n", tp, bp / 1024);
        fflush(stdout);
        graph_free(g);
        free(files[i]);
    }
    snprintf(path, sizeof path, "%s/x.svg", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/x.png", dir);
    unlink(path);
    rmdir(dir);
    return bad;
}
