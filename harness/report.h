/* report.h — `pagelab report`: the MADV_FREE article's tables, this host's
 * figures beside the article's published ones.
 *
 *   pagelab report [--format markdown|csv|json] [--reference FILE] RESULT.json...
 *
 * Every result document given (harness/result.md, "pagelab.result/1") feeds
 * the tables its scenario names in "scenario.report".  Runs are grouped into
 * one column per (host.kernel, host.cgroup.memory); a column's figure is the
 * median over its repeats, with min–max when they differ.  The article's
 * figures come from the reference document (default
 * results/reference/madv-free.json, relative to the current directory, else to
 * PAGELAB_SOURCE_DIR).
 */
#ifndef PAGELAB_REPORT_H
#define PAGELAB_REPORT_H

/* argv[0] is the subcommand's name ("report"); options and files follow, in
 * any order.  Prints the report on stdout, errors as one line on stderr.
 * Returns the exit status: 0 printed, 2 bad usage or an unreadable /
 * non-pagelab.result/1 input, 1 internal failure. */
int report_main(int argc, char **argv);

#endif
