/* The golden command: shared option handling for its subcommands. */
#ifndef GOLDEN_CLI_H
#define GOLDEN_CLI_H

#include <stdbool.h>

struct cli_opts {
	const char *topology;
	const char *sysroot;
	const char *recipes;
	const char *recipe;
	const char *format;
	const char *node;
	const char *cache;
	bool no_cache;
};

/* Parse the options shared by env/topo/recipe. `allowed` lists the long
 * option names this subcommand takes. Returns optind of the first operand,
 * or -1 after printing an error. */
int cli_parse(int argc, char **argv, const char *cmd, const char *allowed, struct cli_opts *o,
              void (*usage)(void));

/* stderr: "golden CMD: message" */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print recipe-file problems on stderr as they are found. */
void cli_diag(void *arg, const char *msg);

/* --NAME V as a whole number lo-hi into *out: 0, or -1 after saying
 * "golden CMD: --NAME V: expected WHAT" (WHAT NULL: "a whole number lo-hi"). */
int cli_int(const char *cmd, const char *name, const char *v, int lo, int hi, const char *what,
            int *out);

/* This program's own path (/proc/self/exe), for running itself as a child
 * (golden check --healthcheck, golden topology facts): 0, or -1 with buf
 * "" and errno set. */
int cli_self_path(char *buf, size_t len);

/* A duration for people: "42s", "17m", "3h05m", "4d". */
void cli_age(long long s, char *buf, size_t len);

int cmd_env(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_recipe(int argc, char **argv);
int cmd_teardown(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_ncclxml(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_active(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_drill(int argc, char **argv);

#endif
