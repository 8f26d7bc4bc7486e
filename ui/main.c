/* main.c — entry point of `remat`; everything is in cli.c. */
#include "ui/cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
