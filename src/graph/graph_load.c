/* graph_load.c — load a graph file, picking the loader by content. */
#include <stdlib.h>
#include <string.h>

#include "src/base/fileio.h"
#include "src/graph/graph_import.h"
#include "src/graph/graph_io.h"

Graph *graph_load(const char *path, Err *e)
{
    size_t len;
    char *text = file_read_all(path, &len, e);
    if (!text)
        return NULL;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    Graph *g;
    if (i == len) {
        err_set(e, ERR_PARSE, "%s:1:1: empty file", path);
        g = NULL;
    } else if (text[i] == '{' || text[i] == '[') {
        g = graph_from_json(text, len, path, e);
    } else if (strncmp(text + i, "p remat2", 8) == 0) {
        g = graph_from_remat2(text + i, len - i, path, e);
    } else if (text[i] >= '0' && text[i] <= '9') {
        g = graph_from_pfn(text, len, path, e);
    } else {
        g = graph_from_dot(text, len, path, e);
    }
    free(text);
    return g;
}
