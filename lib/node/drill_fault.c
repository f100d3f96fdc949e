/* See drill_fault.h. */
#include <config.h>

#include "node/drill_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "health/check_storage.h"
#include "util/child.h"
#include "util/strutil.h"
#include "util/sysroot.h"

#define SYSFS_MAGIC_NR 0x62656572 /* linux/magic.h SYSFS_MAGIC */
#define FUSE_TYPE      "fuse.golden-drill"
#define TABLE_MAX      (1 << 20)

static const char real_sys[] =
    "writing the real /sys cannot take an InfiniBand port down (the kernel owns the "
    "port's state): take it down for real at the switch or with ibportstate (ibportstate "
    "LID PORT disable, then enable), and time the drain with golden status";

/* A sysroot that is the real root. */
static bool real_root(const char *sysroot)
{
	char abs[PATH_MAX];

	return !sysroot || !sysroot[0] || !realpath(sysroot, abs) || !strcmp(abs, "/");
}

/* Read a small file whole (its text as it is, newline included). */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Rewrite a file in place (its owner, mode and inode stay). */
static int write_over(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	if (close(fd) < 0 || n != (ssize_t)len)
		return -1;
	return 0;
}

static bool port_up(const char *state, const char *phys)
{
	return atoi(state) == 4 && atoi(phys) == 5;
}

static bool compute_rail(const struct golden_nic *n)
{
	return (n->kind == GOLDEN_NIC_IB || n->kind == GOLDEN_NIC_ROCE) &&
	       n->cls == GOLDEN_CLASS_COMPUTE && n->nports > 0;
}

static void port_paths(struct golden_drill_fault *f, const char *sysroot, const char *dev, int port)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/%d/state", dev, port);
	golden_sys_path(sysroot, p, f->state_path, sizeof(f->state_path));
	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/%d/phys_state", dev, port);
	golden_sys_path(sysroot, p, f->phys_path, sizeof(f->phys_path));
}

int golden_drill_fault_rail(struct golden_drill_fault *f, const struct golden_topo *t,
                            const char *sysroot, const char *rail, struct golden_err *err)
{
	const struct golden_nic *pick = NULL;
	char rails[256] = "";
	struct statfs sf;
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->kind = GOLDEN_DRILL_RAIL;
	golden_strlcpy(f->check, "ib-ports", sizeof(f->check));
	if (real_root(sysroot))
		return golden_err_set(
		    err, "--fault rail-down: this node's checks read the real /sys: %s", real_sys);
	for (int i = 0; i < t->nnics; i++) {
		const struct golden_nic *n = &t->nics[i];
		char st_text[64] = "", ph_text[64] = "";

		if (!compute_rail(n))
			continue;
		golden_strlcat(rails, rails[0] ? ", " : "", sizeof(rails));
		golden_strlcat(rails, n->name, sizeof(rails));
		if (pick)
			continue;
		if (rail && rail[0]) {
			if (!strcmp(n->name, rail))
				pick = n;
			continue;
		}
		port_paths(f, sysroot, n->name, n->ports[0].num);
		if (read_small(f->state_path, st_text, sizeof(st_text)) == 0 &&
		    read_small(f->phys_path, ph_text, sizeof(ph_text)) == 0 &&
		    port_up(st_text, ph_text))
			pick = n;
	}
	if (!rails[0])
		return golden_err_set(err,
		                      "--fault rail-down: this node has no compute rail (an "
		                      "InfiniBand or RoCE device of class compute): nothing the "
		                      "ib-ports check drains for");
	if (!pick && rail && rail[0])
		return golden_err_set(err, "--rail %s: not a compute rail of this node (%s)", rail,
		                      rails);
	if (!pick)
		return golden_err_set(err,
		                      "--fault rail-down: no compute rail is up (%s): the health "
		                      "check drains for that already",
		                      rails);
	port_paths(f, sysroot, pick->name, pick->ports[0].num);
	snprintf(f->target, sizeof(f->target), "%.48s p%d", pick->name, pick->ports[0].num);
	snprintf(f->what, sizeof(f->what), "rail-down %.48s port %d", pick->name,
	         pick->ports[0].num);
	if (lstat(f->state_path, &st) < 0 || !S_ISREG(st.st_mode) || lstat(f->phys_path, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return golden_err_set(err, "%s: the port's state files are missing (%s)", f->target,
		                      f->state_path);
	if (statfs(f->state_path, &sf) == 0 && sf.f_type == SYSFS_MAGIC_NR)
		return golden_err_set(err, "--fault rail-down: %s is sysfs: %s", f->state_path,
		                      real_sys);
	if (read_small(f->state_path, f->saved_state, sizeof(f->saved_state)) < 0 ||
	    read_small(f->phys_path, f->saved_phys, sizeof(f->saved_phys)) < 0)
		return golden_err_set(err, "%s: unreadable: %s", f->state_path, strerror(errno));
	if (!port_up(f->saved_state, f->saved_phys))
		return golden_err_set(err,
		                      "%s is already down (state '%s'): the health check drains "
		                      "for that without a drill",
		                      f->target, golden_rtrim(f->saved_state));
	return 0;
}

/* --- mount-hang ------------------------------------------------------- */

int golden_drill_fault_mount(struct golden_drill_fault *f, const char *mnt, const char *sysroot,
                             struct golden_err *err)
{
	char abs[PATH_MAX];
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->kind = GOLDEN_DRILL_MOUNT;
	golden_strlcpy(f->check, "mounts", sizeof(f->check));
	if (!mnt || !mnt[0])
		return golden_err_set(err,
		                      "--fault mount-hang: golden.conf drill_mount is not set: "
		                      "name an empty directory the drill may mount a hanging "
		                      "filesystem on (drill_mount = /var/lib/golden/drill)");
	if (golden_strlcpy(f->mnt, mnt, sizeof(f->mnt)) < 0 || f->mnt[0] != '/')
		return golden_err_set(err, "drill_mount = %s: expected an absolute path", mnt);
	golden_strip_slashes(f->mnt);
	if (strpbrk(f->mnt, " \t\n\\"))
		return golden_err_set(err,
		                      "drill_mount = %s: a blank or backslash in the path (the "
		                      "mount table would escape it): choose a plain path",
		                      f->mnt);
	if (strlen(f->mnt) >= sizeof(f->target))
		return golden_err_set(err, "drill_mount = %s: longer than %zu characters", f->mnt,
		                      sizeof(f->target) - 1);
	golden_strlcpy(f->target, f->mnt, sizeof(f->target));
	snprintf(f->what, sizeof(f->what), "mount-hang %.80s", f->mnt);
	/* The mount tables first: a hung mount must not be touched by lstat. */
	if (golden_storage_mount_listed("", f->mnt) == 1 ||
	    (!real_root(sysroot) && golden_storage_mount_listed(sysroot, f->mnt) == 1))
		return golden_err_set(err,
		                      "drill_mount = %s is a mount point already (a drill's "
		                      "leftover: umount -l %s): the drill mounts only on an empty "
		                      "directory",
		                      f->mnt, f->mnt);
	if (lstat(f->mnt, &st) < 0)
		return golden_err_set(err, "drill_mount = %s: %s (create an empty directory)",
		                      f->mnt, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return golden_err_set(
		    err, "drill_mount = %s is a symlink: name the directory itself", f->mnt);
	if (!S_ISDIR(st.st_mode))
		return golden_err_set(err, "drill_mount = %s is not a directory", f->mnt);
	if (!realpath(f->mnt, abs) || strcmp(abs, f->mnt))
		return golden_err_set(err,
		                      "drill_mount = %s leads through a symlink (to %s): name the "
		                      "real path",
		                      f->mnt, abs);
	if (stat("/dev/fuse", &st) < 0 || !S_ISCHR(st.st_mode))
		return golden_err_set(
		    err, "--fault mount-hang: no /dev/fuse on this node (modprobe fuse)");
	if (!real_root(sysroot)) {
		static const char *const tables[] = {"/proc/self/mounts", "/proc/mounts"};

		for (size_t i = 0; i < 2 && !f->table[0]; i++)
			if (golden_sys_path(sysroot, tables[i], f->table, sizeof(f->table)) < 0 ||
			    lstat(f->table, &st) < 0 || !S_ISREG(st.st_mode))
				f->table[0] = '\0';
		if (!f->table[0])
			return golden_err_set(err,
			                      "--fault mount-hang: no mount table under sysroot %s "
			                      "(proc/self/mounts): the node's checks could not see "
			                      "the mount",
			                      sysroot);
	}
	return 0;
}

/* --- the FUSE server --------------------------------------------------- */

static void reply(int fd, uint64_t unique, int error, const void *arg, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header oh = {(uint32_t)(sizeof(oh) + len), error, unique};

	if (len > 256)
		return;
	memcpy(buf, &oh, sizeof(oh));
	if (len)
		memcpy(buf + sizeof(oh), arg, len);
	if (write(fd, buf, oh.len) < 0) {
		/* ENOENT: the request was interrupted meanwhile; nothing to do. */
	}
}

struct server_arg {
	int fd;
	pid_t parent;
};

/* Serve /dev/fuse fd until the connection ends: the filesystem of a server
 * that is gone for statfs and fine for everything a lookup of its root
 * needs. Runs in a child of the drill. */
static void serve(void *shared, void *arg)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	const struct server_arg *sa = arg;
	int fd = sa->fd;

	(void)shared;
	/* A drill killed outright must not leave a server behind: with it
	 * gone the connection ends and the mount fails fast (ENOTCONN)
	 * instead of hanging on. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != sa->parent)
		return;
	for (;;) {
		const struct fuse_in_header *in = (const struct fuse_in_header *)buf;
		const void *body = buf + sizeof(*in);
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			return; /* ENODEV: unmounted or aborted */
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *ii = body;
			struct fuse_init_out io;

			memset(&io, 0, sizeof(io));
			io.major = FUSE_KERNEL_VERSION;
			io.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION
			               ? ii->minor
			               : FUSE_KERNEL_MINOR_VERSION;
			io.max_write = 4096;
			reply(fd, in->unique, 0, &io, sizeof(io));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out ao;

			if (in->nodeid != FUSE_ROOT_ID) {
				reply(fd, in->unique, -ENOENT, NULL, 0);
				break;
			}
			memset(&ao, 0, sizeof(ao));
			ao.attr_valid = 3600;
			ao.attr.ino = FUSE_ROOT_ID;
			ao.attr.mode = S_IFDIR | 0755;
			ao.attr.nlink = 2;
			reply(fd, in->unique, 0, &ao, sizeof(ao));
			break;
		}
		case FUSE_LOOKUP:
			reply(fd, in->unique, -ENOENT, NULL, 0);
			break;
		case FUSE_STATFS:
			break; /* the server is gone */
		case FUSE_INTERRUPT: {
			/* The caller of a hung statfs was signalled (a check killed
			 * at its deadline): let it go, as a hard NFS mount lets a
			 * killed process go. */
			const struct fuse_interrupt_in *ir = body;

			reply(fd, ir->unique, -EINTR, NULL, 0);
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break;
		case FUSE_DESTROY:
			return;
		default:
			reply(fd, in->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

static void end_server(struct golden_drill_fault *f)
{
	if (f->server > 0) {
		golden_child_kill(f->server);
		close(f->server_fd);
		f->server = 0;
	}
}

static int stage_mount(struct golden_drill_fault *f, struct golden_err *err)
{
	struct golden_child ch;
	struct server_arg sa;
	char opts[128], *text;
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC), rc;
	size_t len;

	if (fd < 0)
		return golden_err_set(err, "/dev/fuse: %s", strerror(errno));
	snprintf(opts, sizeof(opts),
	         "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other,default_permissions", fd);
	if (mount("golden-drill", f->mnt, FUSE_TYPE, MS_NOSUID | MS_NODEV, opts) < 0) {
		int e = errno;

		close(fd);
		return golden_err_set(err, "mount %s on %s: %s", FUSE_TYPE, f->mnt, strerror(e));
	}
	sa.fd = fd;
	sa.parent = getpid();
	if (golden_child_spawn(&ch, serve, NULL, &sa) < 0) {
		int e = errno;

		umount2(f->mnt, MNT_DETACH);
		close(fd);
		return golden_err_set(err, "cannot start the filesystem's server: %s", strerror(e));
	}
	close(fd); /* the server holds the connection: it ends with it */
	f->server = ch.pid;
	f->server_fd = ch.fd;
	f->staged = true;
	if (!f->table[0])
		return 0;
	/* The sysroot's mount table, which the node's checks read. */
	f->saved_table = malloc(TABLE_MAX);
	if (!f->saved_table || read_small(f->table, f->saved_table, TABLE_MAX) < 0) {
		golden_drill_fault_withdraw(f, NULL);
		return golden_err_set(err, "%s: unreadable", f->table);
	}
	len = strlen(f->saved_table);
	text = malloc(len + PATH_MAX + 128);
	if (!text) {
		golden_drill_fault_withdraw(f, NULL);
		return golden_err_set(err, "out of memory");
	}
	snprintf(text, len + PATH_MAX + 128,
	         "%s%sgolden-drill %s " FUSE_TYPE " rw,nosuid,nodev 0 0\n", f->saved_table,
	         len && f->saved_table[len - 1] != '\n' ? "\n" : "", f->mnt);
	rc = write_over(f->table, text, strlen(text));
	free(text);
	if (rc < 0) {
		int e = errno;

		golden_drill_fault_withdraw(f, NULL);
		return golden_err_set(err, "%s: cannot write: %s", f->table, strerror(e));
	}
	return 0;
}

int golden_drill_fault_stage(struct golden_drill_fault *f, struct golden_err *err)
{
	static const char down[] = "1: DOWN\n", disabled[] = "3: Disabled\n";

	if (f->kind == GOLDEN_DRILL_MOUNT)
		return stage_mount(f, err);
	if (f->kind != GOLDEN_DRILL_RAIL)
		return golden_err_set(err, "not a staged fault");
	/* phys_state first: a check reading between the two writes sees a
	 * port going down, never one half restored. */
	if (write_over(f->phys_path, disabled, sizeof(disabled) - 1) < 0 ||
	    write_over(f->state_path, down, sizeof(down) - 1) < 0) {
		int e = errno;

		write_over(f->phys_path, f->saved_phys, strlen(f->saved_phys));
		return golden_err_set(err, "%s: cannot write: %s", f->state_path, strerror(e));
	}
	f->staged = true;
	return 0;
}

int golden_drill_fault_withdraw(struct golden_drill_fault *f, struct golden_err *err)
{
	int rc = 0;

	if (!f->staged)
		return 0;
	if (f->kind == GOLDEN_DRILL_RAIL) {
		if (write_over(f->state_path, f->saved_state, strlen(f->saved_state)) < 0 ||
		    write_over(f->phys_path, f->saved_phys, strlen(f->saved_phys)) < 0)
			rc = err ? golden_err_set(err, "%s: cannot restore '%s': %s", f->state_path,
			                          golden_rtrim(f->saved_state), strerror(errno))
			         : -1;
	} else {
		/* Out of the tables first, then the server: a check that looks in
		 * between finds no mount rather than a dead one. */
		if (f->table[0] && f->saved_table &&
		    write_over(f->table, f->saved_table, strlen(f->saved_table)) < 0)
			rc = err ? golden_err_set(err, "%s: cannot restore: %s", f->table,
			                          strerror(errno))
			         : -1;
		if (umount2(f->mnt, MNT_DETACH) < 0 && errno != EINVAL)
			rc = err ? golden_err_set(err, "umount %s: %s (umount -l %s)", f->mnt,
			                          strerror(errno), f->mnt)
			         : -1;
		end_server(f);
		free(f->saved_table);
		f->saved_table = NULL;
	}
	f->staged = false;
	return rc;
}
