/* The faults `golden drill run --fault` stages, and takes away again:
 *
 * rail-down: one of the node's compute rails reads "1: DOWN" / "3: Disabled"
 *   in <sysroot>/sys/class/infiniband/DEV/ports/N/{state,phys_state}, the
 *   files the ib-ports check reads. Only on a node whose checks read a
 *   sysroot: a write to the real /sys cannot take a port down (the kernel
 *   owns those attributes), and the drill never shells out to tools that
 *   could; refused there with what to use instead.
 * mount-hang: golden.conf's drill_mount (an empty directory) gets a FUSE
 *   filesystem whose statfs never answers, the way a mount of a dead
 *   NFS/Lustre server behaves; the mounts check watches drill_mount while
 *   something is mounted there. The filesystem is served by a child of the
 *   drill straight over /dev/fuse (no libfuse, no helper program): getattr
 *   of its root answers, statfs is never answered, an interrupt of a hung
 *   statfs (its caller was killed) answers EINTR, so a check killed at its
 *   deadline dies instead of waiting in the kernel. On a node whose checks
 *   read a sysroot's mount table, the mount's line is added there too.
 *
 * Taking the fault away restores exactly what was there (the port's files,
 * the mount table's text), detaches the mount and ends its server, which
 * also ends every request still hanging on it (ENOTCONN). A drill program
 * killed with SIGKILL leaves its fault: a port that stays down, or a mount
 * whose requests fail with ENOTCONN (the mounts check keeps the node
 * drained until `umount -l DIR`); no drill runs on a drained node or on a
 * drill_mount that is a mount point. */
#ifndef GOLDEN_NODE_DRILL_FAULT_H
#define GOLDEN_NODE_DRILL_FAULT_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "node/drill_record.h"
#include "topo/topo.h"
#include "util/errbuf.h"

struct golden_drill_fault {
	enum golden_drill_kind kind;
	char target[64]; /* "mlx5_0 p1", the mount point */
	char what[96];   /* "rail-down mlx5_0 port 1", "mount-hang /var/lib/golden/drill" */
	char check[32];  /* ib-ports, mounts */
	/* rail-down */
	char state_path[PATH_MAX], phys_path[PATH_MAX];
	char saved_state[64], saved_phys[64];
	/* mount-hang */
	char mnt[PATH_MAX];
	char table[PATH_MAX]; /* the sysroot's mount table, "" the kernel's */
	char *saved_table;    /* its text before the drill (malloc) */
	pid_t server;         /* the FUSE server, 0 none */
	int server_fd;        /* its golden_child pipe */
	bool staged;
};

/* Choose the compute rail to take down: `rail` (an RDMA device name, or
 * NULL for the first compute rail whose first port is up) from topology t,
 * whose port files are under sysroot. 0, or -1 with err saying why not
 * (no sysroot: the real /sys; a rail the node lacks or that is not a
 * compute rail; a port already down). */
int golden_drill_fault_rail(struct golden_drill_fault *f, const struct golden_topo *t,
                            const char *sysroot, const char *rail, struct golden_err *err);

/* Check the mount point mnt (golden.conf drill_mount) for mount-hang: set,
 * an existing directory, no symlink on the way, not a mount point (in the
 * kernel's table or the sysroot's), no blank or backslash in its name,
 * /dev/fuse there, and a mount table under a sysroot to add it to. 0 or -1. */
int golden_drill_fault_mount(struct golden_drill_fault *f, const char *mnt, const char *sysroot,
                             struct golden_err *err);

/* Stage the prepared fault. 0, or -1 with err (nothing left staged). */
int golden_drill_fault_stage(struct golden_drill_fault *f, struct golden_err *err);

/* Take it away again (nothing when not staged; twice is once). Returns 0,
 * or -1 with err when something could not be restored (what remains). */
int golden_drill_fault_withdraw(struct golden_drill_fault *f, struct golden_err *err);

#endif
