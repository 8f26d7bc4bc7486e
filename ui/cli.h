/* cli.h — the `remat` command line: one binary, a table of subcommands.
 * Exit status: 0 success, 1 bad input or failure, 2 usage, 3 no plan
 * within the budget. Errors are one line on stderr naming the file. */
#ifndef REMAT_CLI_H
#define REMAT_CLI_H

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_BUDGET = 3 };

int cli_main(int argc, char **argv);

#endif
