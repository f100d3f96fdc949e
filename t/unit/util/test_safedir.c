/* Directories golden creates or trusts, and the files in them: planted
 * symlinks in any component, FIFOs, directories and files of another user
 * or writable by others are refused, and nothing outside is touched. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safedir.h"
#include "util/statefile.h"
#include "t/unit/tap.h"

#define OTHER_UID 65534 /* nobody */

static char top[64];

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static const char *at(const char *rel)
{
	static char buf[8][512];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", top, rel);
	return buf[i];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static unsigned mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0;
}

static void test_create(void)
{
	struct golden_err err = {{0}};
	mode_t old = umask(077);
	int fd = golden_safedir_open(at("a/b/c"), 0755, &err);

	umask(old);
	ok(fd >= 0, "missing components are created (%s)", err.msg);
	if (fd >= 0)
		close(fd);
	is_int(mode_of(at("a")), 0755, "... with exactly the mode asked for, whatever the umask");
	is_int(mode_of(at("a/b/c")), 0755, "... down to the last one");
	is_int(golden_mkdir_p(at("state")), 0, "golden_mkdir_p creates");
	is_int(mode_of(at("state")), 0700, "... root-only (0700)");
	is_int(golden_mkdir_p(at("state")), 0, "an existing safe directory is trusted");
	fd = golden_safedir_open(at("nothere"), 0, &err);
	ok(fd < 0 && errno == ENOENT, "without create_mode a missing directory is ENOENT");
}

static void test_relative(void)
{
	char cwd[512];
	int fd;

	if (!getcwd(cwd, sizeof(cwd)) || chdir(top) < 0) {
		ok(0, "chdir");
		return;
	}
	fd = golden_safedir_open("rel/x", 0700, NULL);
	ok(fd >= 0, "a relative path is walked from / through the current directory");
	if (fd >= 0)
		close(fd);
	ok(golden_safedir_open("rel/../state", 0, NULL) < 0 && errno == EINVAL, "'..' is refused");
	if (chdir(cwd) < 0)
		diag("chdir back: %s", strerror(errno));
}

static void test_symlinks(void)
{
	struct golden_err err = {{0}};
	int fd;

	mkdir(at("elsewhere"), 0700);
	put(at("elsewhere/lifecycle.json"), "victim");
	/* a symlink as the last component */
	if (symlink(at("elsewhere"), at("linked")) < 0)
		diag("symlink: %s", strerror(errno));
	fd = golden_safedir_open(at("linked"), 0700, &err);
	ok(fd < 0 && errno == ELOOP, "a symlink as the directory itself is refused");
	ok(strstr(err.msg, "symbolic link") != NULL, "... saying so: %s", err.msg);
	/* a symlink in the middle */
	ok(golden_safedir_open(at("linked/sub"), 0700, NULL) < 0 && errno == ELOOP,
	   "a symlink in a middle component is refused, even when creating below it");
	ok(access(at("elsewhere/sub"), F_OK) < 0, "... and nothing is created behind it");
	ok(golden_write_atomic(at("linked/lifecycle.json"), "x", 1) < 0,
	   "writing through a symlinked directory is refused");
	ok(golden_unlink_trusted(at("linked/lifecycle.json")) < 0,
	   "unlinking through a symlinked directory is refused");
	is(get(at("elsewhere/lifecycle.json")), "victim", "... the file elsewhere is untouched");
	ok(golden_read_trusted(at("linked/lifecycle.json"), 100, NULL) == NULL,
	   "reading through a symlinked directory is refused");

	/* a symlink as the file: reads and locks refuse, writes replace the link */
	mkdir(at("d"), 0700);
	if (symlink(at("elsewhere/lifecycle.json"), at("d/f")) < 0)
		diag("symlink: %s", strerror(errno));
	ok(golden_read_trusted(at("d/f"), 100, NULL) == NULL && errno == ELOOP,
	   "a symlinked file is not read");
	ok(golden_lock_file(at("d/f")) < 0, "a symlinked lock file is refused");
	is_int(golden_write_atomic(at("d/f"), "new", 3), 0, "writing replaces the symlink...");
	is(get(at("elsewhere/lifecycle.json")), "victim", "... never its target");
	is_int(mode_of(at("d/f")) != 0 && !(mode_of(at("d/f")) & 0077), 1,
	       "... with a root-only file of our own");
}

static void alarm_fail(int sig)
{
	static const char msg[] = "not ok - opening a FIFO blocked\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static void test_fifo(void)
{
	int dfd;

	mkdir(at("fifo"), 0700);
	if (mkfifo(at("fifo/kmsg.cursor"), 0600) < 0)
		diag("mkfifo: %s", strerror(errno));
	/* Not a timing assertion: a guard so that a regression fails instead of hanging. */
	signal(SIGALRM, alarm_fail);
	alarm(20);
	ok(golden_read_trusted(at("fifo/kmsg.cursor"), 100, NULL) == NULL && errno == EPERM,
	   "a FIFO where a state file belongs is refused without blocking");
	ok(golden_lock_file(at("fifo/kmsg.cursor")) < 0, "... also as a lock file");
	dfd = golden_safedir_open(at("fifo"), 0, NULL);
	ok(dfd >= 0 && golden_safefile_open(dfd, "kmsg.cursor") < 0, "... and by safefile_open");
	if (dfd >= 0)
		close(dfd);
	alarm(0);
	ok(golden_safedir_open(at("fifo/kmsg.cursor"), 0700, NULL) < 0 && errno == ENOTDIR,
	   "a FIFO where a directory belongs is not a directory");
}

static void test_modes(void)
{
	struct golden_err err = {{0}};
	int fd;

	mkdir(at("shared"), 0700);
	chmod(at("shared"), 0777);
	fd = golden_safedir_open(at("shared"), 0700, &err);
	ok(fd < 0 && errno == EPERM, "a world-writable directory is refused");
	ok(strstr(err.msg, "mode 0777") != NULL, "... naming its mode: %s", err.msg);
	chmod(at("shared"), 01777);
	ok(golden_safedir_open(at("shared"), 0700, NULL) < 0,
	   "... even sticky, as the directory golden keeps its files in");
	fd = golden_safedir_open(at("shared/mine"), 0700, NULL);
	ok(fd >= 0, "a sticky world-writable directory above it is fine (like /tmp)");
	if (fd >= 0)
		close(fd);
	chmod(at("shared"), 0777);
	ok(golden_safedir_open(at("shared/mine"), 0700, NULL) < 0 && errno == EPERM,
	   "a world-writable directory above it that is not sticky is refused");
	chmod(at("shared"), 0770);
	ok(golden_safedir_open(at("shared/mine"), 0700, NULL) < 0, "... and a group-writable one");

	/* A log directory: root's group-writable parent (Ubuntu's /var/log,
	 * 0775 root:syslog) is fine, others-writable or the last one is not. */
	chmod(at("shared"), 0775);
	fd = golden_safedir_open_logdir(at("shared/log"), 0755, NULL);
	ok(fd >= 0, "a log directory under a root-owned 0775 parent (Ubuntu's /var/log)");
	if (fd >= 0)
		close(fd);
	ok(golden_safedir_open(at("shared/log"), 0, NULL) < 0 && errno == EPERM,
	   "... which other directories golden trusts still refuse");
	chmod(at("shared/log"), 0775);
	ok(golden_safedir_open_logdir(at("shared/log"), 0755, NULL) < 0 && errno == EPERM,
	   "the log directory itself group-writable is refused");
	chmod(at("shared/log"), 0755);
	chmod(at("shared"), 0777);
	ok(golden_safedir_open_logdir(at("shared/log"), 0755, NULL) < 0 && errno == EPERM,
	   "a world-writable, not sticky parent is refused for a log too");
	chmod(at("shared"), 0755);
	mkdir(at("loglink-target"), 0755);
	symlink(at("loglink-target"), at("shared/loglink"));
	ok(golden_safedir_open_logdir(at("shared/loglink/sub"), 0755, NULL) < 0 && errno == ELOOP,
	   "a symlink in a log directory's path is refused");
	ok(access(at("loglink-target/sub"), F_OK) < 0, "... and nothing is created behind it");
	if (lchown(at("shared"), OTHER_UID, OTHER_UID) == 0) {
		chmod(at("shared"), 0775);
		ok(golden_safedir_open_logdir(at("shared/log"), 0755, NULL) < 0 && errno == EPERM,
		   "a group-writable parent another user owns is refused");
		lchown(at("shared"), 0, 0);
		chmod(at("shared"), 0755);
	}

	mkdir(at("gw"), 0700);
	put(at("gw/f"), "x");
	chmod(at("gw/f"), 0664);
	ok(golden_read_trusted(at("gw/f"), 100, NULL) == NULL && errno == EPERM,
	   "a group-writable state file is not read");
	chmod(at("gw/f"), 0644);
	put(at("gw/f"), "0123456789");
	ok(golden_read_trusted(at("gw/f"), 5, NULL) == NULL && errno == EFBIG,
	   "a state file larger than its reader's limit is refused");
	{
		size_t len = 0;
		char *s = golden_read_trusted(at("gw/f"), 10, &len);

		is(s, "0123456789", "... and one within it is read whole");
		is_int((long)len, 10, "... with its length");
		free(s);
	}
}

static void test_owner(void)
{
	struct golden_err err = {{0}};

	if (geteuid() != 0) {
		ok(1, "owner checks # SKIP not root: cannot give files away");
		return;
	}
	mkdir(at("theirs"), 0700);
	if (chown(at("theirs"), OTHER_UID, OTHER_UID) < 0)
		diag("chown: %s", strerror(errno));
	ok(golden_safedir_open(at("theirs"), 0700, &err) < 0 && errno == EPERM,
	   "a directory owned by another user is refused");
	ok(strstr(err.msg, "uid 65534") != NULL, "... naming the owner: %s", err.msg);
	ok(golden_safedir_open(at("theirs/below"), 0700, NULL) < 0,
	   "... also as a component above");
	mkdir(at("own"), 0700);
	put(at("own/lifecycle.json"), "{}");
	if (chown(at("own/lifecycle.json"), OTHER_UID, OTHER_UID) < 0)
		diag("chown: %s", strerror(errno));
	ok(golden_read_trusted(at("own/lifecycle.json"), 100, NULL) == NULL && errno == EPERM,
	   "a state file owned by another user is not read");
	ok(golden_lock_file(at("own/lifecycle.json")) < 0, "... nor used as a lock file");
}

static void test_sub(void)
{
	struct golden_err err = {{0}};
	int dfd, sub;

	mkdir(at("td"), 0700);
	mkdir(at("victim"), 0700);
	put(at("victim/batch.json"), "keep");
	if (symlink(at("victim"), at("td/job_5")) < 0)
		diag("symlink: %s", strerror(errno));
	dfd = golden_safedir_open(at("td"), 0, NULL);
	ok(dfd >= 0, "the teardown directory opens");
	sub = golden_safedir_sub(dfd, "job_5", 0700, &err);
	ok(sub < 0 && errno == ELOOP, "a planted job_N symlink is refused: %s", err.msg);
	ok(golden_safedir_sub(dfd, "../victim", 0700, NULL) < 0 && errno == EINVAL,
	   "a sub-directory name with a slash is refused");
	sub = golden_safedir_sub(dfd, "job_6", 0700, NULL);
	ok(sub >= 0, "a fresh job directory is created");
	is_int(sub >= 0 ? golden_safefile_write(sub, "batch.json", "{}", 2, 0600) : -1, 0,
	       "... and a record written in it");
	is_int(mode_of(at("td/job_6/batch.json")), 0600, "... root-only");
	if (sub >= 0)
		close(sub);
	if (dfd >= 0)
		close(dfd);
	is(get(at("victim/batch.json")), "keep", "nothing behind the symlink was touched");
}

int main(void)
{
	snprintf(top, sizeof(top), "/tmp/golden-safedir-XXXXXX");
	if (!mkdtemp(top)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_create();
	test_relative();
	test_symlinks();
	test_fifo();
	test_modes();
	test_owner();
	test_sub();
	nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
