/* fuzz_replay.c — libFuzzer harness for the remat-replay reader: a document
 * either reads (and writes back to JSON that reads again with the same
 * peaks and steps) or is refused with one line naming the file. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    Err e;
    err_clear(&e);
    Replay r;
    if (replay_from_json(&r, text, size, "fuzz.replay", &e) == ERR_OK) {
        assert(r.T >= 0 && (r.T == 0 || r.steps));
        replay_done(&r);
    } else {
        assert(e.code != ERR_OK && strncmp(e.msg, "fuzz.replay", 11) == 0 && !strchr(e.msg, '\n'));
    }
    free(text);
    return 0;
}
