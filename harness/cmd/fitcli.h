/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/fitcli.h — what `pagelab fit` (fit.c) shares with `pagelab vm fit`
 * (vm.c): its options, read the one way, and its answer, printed the one
 * way. */
#ifndef PAGELAB_CMD_FITCLI_H
#define PAGELAB_CMD_FITCLI_H

#include <jansson.h>

#include "fit/fit.h"

/* argv[0] is "fit"; options then one scenario (getopt_long permutes argv:
 * afterwards the scenario is argv[argc - 1]).  0 with o filled, or an exit
 * status after one line on stderr; --help prints the usage and exits 0. */
int fit_cli_parse(int argc, char **argv, struct fit_opts *o);

/* The answer of a fit's document in words, then its curve and
 * reconciliation tables, on stdout. */
void fit_cli_print_answer(const json_t *doc);

#endif
