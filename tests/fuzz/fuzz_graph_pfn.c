/* fuzz_graph_pfn.c — libFuzzer harness for the importer of Kusumoto et al.'s computational-graph text: any input
 * either loads into a graph whose JSON form re-reads to the same JSON and
 * simulates its baseline, or is refused with one line naming the file. */
#include "src/graph/graph_import.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e;
    err_clear(&e);
    Graph *g = graph_from_pfn(text, size, "fuzz.txt", &e);
    if (g)
        fuzz_json_round_trip(g);
    else
        fuzz_refused(&e, "fuzz.txt");
    free(text);
    return 0;
}
