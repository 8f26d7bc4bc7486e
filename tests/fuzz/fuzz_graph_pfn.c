/* fuzz_graph_pfn.c — libFuzzer harness for the importer of Kusumoto et al.'s computational-graph text: any input
 * either loads into a graph whose JSON form re-reads to the same JSON and
 * simulates its baseline, or is refused with one line naming the file. */
#include "src/graph/graph_import.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_graph_reader(data, size, graph_from_pfn, "fuzz.txt");
}
