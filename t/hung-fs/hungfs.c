/* hungfs: a FUSE filesystem whose statfs never answers, the way a mount of
 * a dead NFS/Lustre server behaves. Tests mount it to make a real storage
 * check time out; everything else (getattr of the root) answers at once.
 *
 *   hungfs MOUNTPOINT      (runs in the foreground; kill it, then umount -l)
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

static int hung_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	(void)sv;
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
	char *args[] = {argv[0], "-f", "-o", "default_permissions", argc > 1 ? argv[1] : NULL,
	                NULL};

	if (argc != 2)
		return 2;
	return fuse_main(5, args, &ops, NULL);
}
