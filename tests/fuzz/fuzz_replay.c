/* fuzz_replay.c — libFuzzer harness for the remat-replay reader: a document
 * either reads (and writes back to JSON that reads again with the same
 * peaks and steps) or is refused with one line naming the file. */
#include "src/replay/replay.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    Err e;
    err_clear(&e);
    Replay r;
    if (replay_from_json(&r, text, size, "fuzz.replay", &e) == ERR_OK) {
        assert(r.T >= 0 && (r.T == 0 || r.steps));
        replay_done(&r);
    } else {
        fuzz_refused(&e, "fuzz.replay");
    }
    free(text);
    return 0;
}
