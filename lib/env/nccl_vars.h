/* The environment variables golden may set (NCCL, UCX, libfabric, CUDA),
 * each with the values NCCL documents as valid (env.rst, NCCL 2.30). A recipe
 * may only name a variable from this table, and every value it renders must
 * pass the variable's check. */
#ifndef GOLDEN_ENV_NCCL_VARS_H
#define GOLDEN_ENV_NCCL_VARS_H

#include <stdbool.h>
#include <stddef.h>

enum golden_nccl_vtype {
	GOLDEN_VT_INT,         /* integer in [min, max] */
	GOLDEN_VT_INT_AUTO,    /* "auto" or an integer in [min, max] */
	GOLDEN_VT_BOOL,        /* 0 or 1 */
	GOLDEN_VT_ENUM,        /* exactly one of values */
	GOLDEN_VT_ENUM_LIST,   /* [^]a,b from values; also "coll:a,b;coll:c" */
	GOLDEN_VT_HCA_LIST,    /* [^][=]hca[:port[:rail[:plane]]],... (NCCL_IB_HCA) */
	GOLDEN_VT_IF_LIST,     /* [^][=]prefix,... (NCCL_SOCKET_IFNAME) */
	GOLDEN_VT_TOKEN_LIST,  /* [^]name[,name...], names [A-Za-z0-9._:/+@-] */
	GOLDEN_VT_WORD,        /* one name [A-Za-z0-9._-] (NCCL_NET) */
	GOLDEN_VT_PLUGIN,      /* none, a library suffix/file name, or an absolute path */
	GOLDEN_VT_PATH,        /* absolute path, no whitespace */
	GOLDEN_VT_FILE,        /* path (may be relative, may hold %h/%p), no whitespace */
	GOLDEN_VT_CIDR,        /* IPv4 or IPv6 address/prefix */
	GOLDEN_VT_NETDEVS_POL, /* AUTO, ALL or MAX:N */
	GOLDEN_VT_CINT         /* C integer literal: decimal or 0x hex (NCCL_SOCKET_MAGIC) */
};

struct golden_nccl_var {
	const char *name;
	enum golden_nccl_vtype type;
	long long min, max; /* INT, INT_AUTO, NETDEVS_POL (N) */
	const char *values; /* ENUM, ENUM_LIST: "a,b,c" */
	bool nocase;        /* NCCL compares this one with strcasecmp */
	const char *help;   /* one line: what it does, NCCL default */
};

/* The table, terminated by an entry with name NULL. */
extern const struct golden_nccl_var golden_nccl_vars[];

/* NULL if golden does not know NAME. */
const struct golden_nccl_var *golden_nccl_var_find(const char *name);

/* Is VALUE valid for NAME? Returns 0, or -1 with why set to
 * "expected ..." (or, for an unknown NAME, what is known). */
int golden_nccl_var_check(const char *name, const char *value, char *why, size_t whylen);

/* The known variable closest to NAME (small edit distance), or NULL: for
 * "did you mean" hints. */
const char *golden_nccl_var_suggest(const char *name);

#endif
