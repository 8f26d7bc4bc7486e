/* fuzz_plan.c — libFuzzer harness for the plan reader against a fixed
 * small training graph: a plan either reads and then simulates (valid or
 * with a message naming a step), or is refused with a one-line message. */
#include "src/graph/graph_io.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"
#include "tests/fuzz/fuzz.h"

static Graph *graph;

static const char *GRAPH =
    "{\"format\":\"remat-graph\",\"nodes\":[{\"id\":\"x\",\"phase\":\"input\",\"size\":3},"
    "{\"id\":\"A\",\"inputs\":[\"x\"]},{\"id\":\"B\",\"inputs\":[\"A\"]},"
    "{\"id\":\"C\",\"inputs\":[\"B\"],\"size\":2},{\"id\":\"D\",\"inputs\":[\"B\",\"C\"]},"
    "{\"id\":\"E\",\"inputs\":[\"A\",\"D\"],\"workspace\":4}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Err e;
    if (!graph)
        graph = graph_from_json(GRAPH, strlen(GRAPH), "g", &e);
    char *text = fuzz_text(data, size);
    Plan p;
    plan_init(&p);
    err_clear(&e);
    if (plan_from_json(&p, graph, text, size, "fuzz.plan", &e) == ERR_OK) {
        Sim s;
        if (sim_run(graph, p.steps, p.T, &s, &e) == ERR_OK) {
            assert(s.peak >= graph->input_bytes);
            sim_done(&s);
        } else {
            assert(strstr(e.msg, "step") || strstr(e.msg, "output"));
        }
        (void)plan_check(&p, graph, &e);
    } else {
        fuzz_refused(&e, "fuzz.plan");
    }
    plan_done(&p);
    free(text);
    return 0;
}
