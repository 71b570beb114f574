/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/list.c — `pagelab list` (harness/cmd/cli.md): every scenario of the
 * catalogue (harness/plan/catalog.h), with its title, or why it is broken. */
#include "cmd.h"
#include "readcmd.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exitcode.h"
#include "base/fileio.h"
#include "plan/catalog.h"
#include "plan/scenario.h"

/* One group directory of the catalogue, its *.scn in name order. */
static void list_group(const char *sub)
{
	struct dirent **names;
	int n = scandir(sub, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		size_t l = strlen(names[i]->d_name);

		if (l > 4 && !strcmp(names[i]->d_name + l - 4, ".scn")) {
			char path[PATH_MAX * 3];
			cleanup_free char *text = NULL;
			struct scenario s;
			struct lab_error err;

			snprintf(path, sizeof(path), "%s/%s", sub, names[i]->d_name);
			if (lab_read_input(path, "scenario", LAB_SCENARIO_MAX, 0, &text, NULL, &err) == 0 &&
			    scenario_parse(path, text, &s, &err) == 0) {
				printf("%-28s %s%s\n", s.name, s.destructive ? "[destructive] " : "", s.title ? s.title : "");
				scenario_free(&s);
			} else {
				printf("%-28s (broken: %s)\n", names[i]->d_name, err.msg);
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char dir[PATH_MAX];
	DIR *top;
	struct dirent *g;
	struct lab_error err;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cli_usage_text, stdout);
			return LAB_EXIT_RAN;
		}
		readcmd_say(NULL, "list: unknown option '%s' (see pagelab --help)", argv[optind - 1]);
		return LAB_EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "pagelab: list takes no arguments (see pagelab --help)\n");
		return LAB_EXIT_USAGE;
	}
	if (catalog_dir(dir, sizeof(dir), &err) < 0) {
		readcmd_say(NULL, "%s", err.msg);
		return lab_exit_status(-err.code);
	}
	if ((top = opendir(dir)) == NULL) {
		readcmd_say(NULL, "no scenarios directory (%s)", dir);
		return LAB_EXIT_HARNESS;
	}
	while ((g = readdir(top)) != NULL) {
		char sub[PATH_MAX * 2];

		if (g->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, g->d_name);
		list_group(sub);
	}
	closedir(top);
	return LAB_EXIT_RAN;
}
