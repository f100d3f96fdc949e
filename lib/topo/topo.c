/* golden_topo_discover: hwloc for the PCIe tree, sysfs for the rest, then
 * classification, all in a child process under a deadline. */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/child.h"
#include "util/strutil.h"
#include "util/sysroot.h"
#include "topo/topo_internal.h"

static const struct golden_topo *sort_topo; /* qsort has no context argument */

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(sort_topo->gpus[*(const int *)a].busid,
	              sort_topo->gpus[*(const int *)b].busid);
}

/* PCI devices in bus order, then the rest (virtual, vmbus) by name. */
static int cmp_nic(const void *a, const void *b)
{
	const struct golden_nic *x = &sort_topo->nics[*(const int *)a];
	const struct golden_nic *y = &sort_topo->nics[*(const int *)b];
	int c;

	if (!x->busid[0] != !y->busid[0])
		return x->busid[0] ? -1 : 1;
	c = strcmp(x->busid, y->busid);
	return c ? c : golden_natcmp(x->name, y->name);
}

/* Output order must not depend on hwloc's or readdir's order, so that
 * `golden topo` and the facts are the same on identical nodes. */
static int sort_devices(struct golden_topo *topo)
{
	struct golden_topo *copy = malloc(sizeof(*copy));
	int gi[GOLDEN_MAX_GPUS], ni[GOLDEN_MAX_NICS];

	if (!copy)
		return -1;
	for (int i = 0; i < topo->ngpus; i++)
		gi[i] = i;
	for (int i = 0; i < topo->nnics; i++)
		ni[i] = i;
	sort_topo = topo;
	qsort(gi, (size_t)topo->ngpus, sizeof(int), cmp_gpu);
	qsort(ni, (size_t)topo->nnics, sizeof(int), cmp_nic);
	memcpy(copy, topo, sizeof(*copy));
	for (int g = 0; g < topo->ngpus; g++)
		topo->gpus[g] = copy->gpus[gi[g]];
	for (int n = 0; n < topo->nnics; n++)
		topo->nics[n] = copy->nics[ni[n]];
	for (int g = 0; g < topo->ngpus; g++)
		for (int n = 0; n < topo->nnics; n++)
			topo->loc[g][n] = copy->loc[gi[g]][ni[n]];
	free(copy);
	return 0;
}

void golden_topo_note(struct golden_topo *topo, bool warning, const char *fmt, ...)
{
	struct golden_topo_note *n;
	va_list ap;

	if (topo->nnotes < 0 || topo->nnotes >= GOLDEN_TOPO_MAX_NOTES)
		return;
	n = &topo->notes[topo->nnotes++];
	n->warning = warning;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

/* Host names compare without their domain: hwloc records uname's nodename,
 * which may or may not be fully qualified. */
static bool same_host(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	return la == lb && !strncmp(a, b, la);
}

/* The host whose /sys and /proc a sysroot holds ("" if it does not say). */
static void sysroot_host(const char *sysroot, char *buf, size_t len)
{
	struct utsname u;

	buf[0] = '\0';
	if (sysroot && *sysroot && strcmp(sysroot, "/")) {
		if (golden_sys_read(sysroot, "/proc/sys/kernel/hostname", buf, len) < 0)
			buf[0] = '\0';
	} else if (uname(&u) == 0) {
		golden_strlcpy(buf, u.nodename, len);
	}
}

/* sysfs facts (link state, rates, GIDs, addresses, routes, extra netdevs)
 * belong to the host they are read on. With an XML export and no sysroot,
 * they are this machine's: mixed into another node's answer they would name
 * interfaces that node may not have (NCCL fails to bootstrap on a
 * NCCL_SOCKET_IFNAME that does not exist). So they are used only when the
 * export names this host; a sysroot given explicitly ("/" included) is
 * taken as asked, with a warning when it names another host than the XML. */
static bool sysfs_belongs(const struct golden_topo_opts *opts, struct golden_topo *topo)
{
	char here[GOLDEN_NAME_LEN];

	if (!opts->topology_xml)
		return true;
	sysroot_host(opts->sysroot, here, sizeof(here));
	if (opts->sysroot) {
		if (topo->xml_host[0] && here[0] && !same_host(topo->xml_host, here))
			golden_topo_note(topo, true,
			                 "%s describes host '%s' but sysroot %s is host '%s': link "
			                 "states, addresses and routes of one are mixed into the "
			                 "PCIe tree of the other",
			                 opts->topology_xml, topo->xml_host, opts->sysroot, here);
		return true;
	}
	if (topo->xml_host[0] && here[0] && same_host(topo->xml_host, here))
		return true;
	golden_topo_note(topo, true,
	                 "%s %s%s%s, and no sysroot was given: this host's (%s) sysfs is not "
	                 "mixed in, so link states, rates, addresses, routes and the bootstrap "
	                 "interface are unknown; give the node's /sys and /proc with --sysroot "
	                 "(sysroot=), or --sysroot / if this host's are meant",
	                 opts->topology_xml,
	                 topo->xml_host[0] ? "describes host '" : "does not name its host",
	                 topo->xml_host, topo->xml_host[0] ? "'" : "", here[0] ? here : "?");
	return false;
}

static int discover_here(const struct golden_topo_opts *opts, struct golden_topo *topo,
                         struct golden_err *err)
{
	memset(topo, 0, sizeof(*topo));
	if (golden_topo_load_hwloc(opts, topo, err) < 0)
		return -1;
	if (sysfs_belongs(opts, topo))
		golden_topo_read_sysfs(opts->sysroot, topo);
	if (sort_devices(topo) < 0)
		return golden_err_set(err, "out of memory");
	golden_topo_classify(topo);
	return 0;
}

struct discovery {
	int rc; /* 0 done, -1 failed (msg), anything else: the child never got there */
	char msg[sizeof(((struct golden_err *)0)->msg)];
	struct golden_topo topo;
};

/* hwloc explains why it rejects an XML only on stderr, and only when
 * HWLOC_XML_VERBOSE is set: "x.xml: cannot import XML version 3.0 > 2".
 * Its lines, joined, for the error message. */
static void hwloc_reason(int fd, char *buf, size_t len)
{
	char raw[1024];
	ssize_t n = pread(fd, raw, sizeof(raw) - 1, 0);
	size_t used = 0;

	buf[0] = '\0';
	if (n <= 0)
		return;
	raw[n] = '\0';
	for (char *line = strtok(raw, "\n"); line && used + 1 < len; line = strtok(NULL, "\n")) {
		int w;

		golden_rtrim(line);
		if (!*line)
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", line);
		if (w < 0)
			break;
		used += (size_t)w < len - used ? (size_t)w : len - used - 1;
	}
}

static void discover_child(void *shared, void *arg)
{
	struct discovery *d = shared;
	const struct golden_topo_opts *opts = arg;
	struct golden_err err = {{0}};
	int fd = memfd_create("golden-hwloc-stderr", MFD_CLOEXEC);

	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	setenv("HWLOC_XML_VERBOSE", "1", 1);
	d->rc = discover_here(opts, &d->topo, &err);
	if (d->rc < 0) {
		char why[512];

		hwloc_reason(fd, why, sizeof(why));
		golden_strlcpy(d->msg, err.msg, sizeof(d->msg));
		if (why[0] && opts->topology_xml) {
			/* Cut to fit: the reason matters more than a full path. */
			golden_strlcat(d->msg, "; hwloc says: ", sizeof(d->msg));
			golden_strlcat(d->msg, why, sizeof(d->msg));
		}
	}
}

int golden_topo_discover(const struct golden_topo_opts *opts, struct golden_topo *topo,
                         struct golden_err *err)
{
	const char *what = opts->topology_xml ? opts->topology_xml : "the live topology";
	int deadline_ms = opts->deadline_ms > 0 ? opts->deadline_ms : GOLDEN_TOPO_DEADLINE_MS;
	struct discovery *d =
	    mmap(NULL, sizeof(*d), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct golden_child ch;
	char how[64];
	int status = 0, rc = -1;

	if (d == MAP_FAILED)
		return golden_err_set(err, "topology discovery: cannot map memory: %s",
		                      strerror(errno));
	d->rc = 1;
	if (golden_child_spawn(&ch, discover_child, d, (void *)opts) < 0) {
		golden_err_set(err, "topology discovery: cannot start a process: %s",
		               strerror(errno));
		goto out;
	}
	ch.deadline = golden_child_now_ms() + deadline_ms;
	golden_child_wait_all(&ch, 1);
	close(ch.fd);
	if (!ch.done) {
		golden_child_kill(ch.pid);
		golden_err_set(err, "hwloc did not finish reading %s within %d ms; stopped it",
		               what, deadline_ms);
	} else if (waitpid(ch.pid, &status, 0) != ch.pid || !WIFEXITED(status) ||
	           WEXITSTATUS(status) || d->rc > 0) {
		/* A signal, or a sanitizer's or valgrind's exit on one. */
		if (WIFSIGNALED(status))
			snprintf(how, sizeof(how), "signal %d, %s", WTERMSIG(status),
			         strsignal(WTERMSIG(status)));
		else
			snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(status));
		golden_err_set(err,
		               "hwloc crashed (%s) reading %s; is it a valid hwloc export? "
		               "(`lstopo --input FILE` shows hwloc's view)",
		               how, what);
	} else if (d->rc < 0) {
		golden_err_set(err, "%s", d->msg);
	} else {
		memcpy(topo, &d->topo, sizeof(*topo));
		rc = 0;
	}
out:
	munmap(d, sizeof(*d));
	return rc;
}
