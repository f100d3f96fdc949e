/* hungfs: a FUSE filesystem whose statfs never answers, the way a mount of
 * a dead NFS/Lustre server behaves. Tests mount it to make a real storage
 * check time out; everything else (getattr of the root) answers at once.
 *
 *   hungfs MOUNTPOINT           (runs in the foreground; kill it, then umount -l)
 *   hungfs --answer MOUNTPOINT  statfs answers at once: a healthy storage
 *                               daemon, for contrib/env/storm's victim (the
 *                               proof pins it to the CPU the storm holds, so
 *                               the kernel starves it as it would a storage
 *                               client's threads)
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fuse.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int hung_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/"))
		return -ENOENT;
	st->st_mode = S_IFDIR | 0755;
	st->st_nlink = 2;
	return 0;
}

static int answer_statfs; /* --answer */

static int hung_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	if (answer_statfs) {
		memset(sv, 0, sizeof(*sv));
		sv->f_bsize = sv->f_frsize = 4096;
		sv->f_blocks = sv->f_bfree = sv->f_bavail = 1 << 20;
		sv->f_files = sv->f_ffree = 1 << 16;
		sv->f_namemax = 255;
		return 0;
	}
	for (;;)
		pause(); /* the server is gone */
	return 0;
}

static const struct fuse_operations ops = {
    .getattr = hung_getattr,
    .statfs = hung_statfs,
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--answer")) {
		answer_statfs = 1;
		argv[1] = argv[2];
		argc = 2;
	}
	if (argc != 2)
		return 2;

	char *args[] = {argv[0], "-f", "-o", "default_permissions", argv[1], NULL};

	return fuse_main(5, args, &ops, NULL);
}
