/* fuzz_graph_remat2.c — libFuzzer harness for the importer of twremat's p remat2 text: any input
 * either loads into a graph whose JSON form re-reads to the same JSON and
 * simulates its baseline, or is refused with one line naming the file. */
#include "src/graph/graph_import.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_graph_reader(data, size, graph_from_remat2, "fuzz.remat2");
}
