/* keymap.c — the action table expanded from ACTIONS(X). */
#include "ui/keymap.h"

const Action keymap[ACT_COUNT] = {
#define X(name, k1, k2, label, help) {#name, label, help, k1, k2},
    ACTIONS(X)
#undef X
};

int keymap_find(int key)
{
    for (int i = 0; i < ACT_COUNT; i++)
        if (keymap[i].key1 == key || (keymap[i].key2 && keymap[i].key2 == key))
            return i;
    return -1;
}
