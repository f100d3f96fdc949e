#include "env/imex.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/strutil.h"
#include "util/sysroot.h"

bool golden_imex_wanted(const struct golden_decision *res)
{
	const struct golden_decision_var *v = golden_decision_getvar(res, "NCCL_MNNVL_ENABLE");

	return v && v->value && strcmp(v->value, "0") != 0;
}

int golden_imex_check(const char *sysroot, char *msg, size_t len)
{
	char dir[4096];
	size_t dl;
	struct dirent *de;
	bool denied = false;
	DIR *d;

	if (golden_sys_path(sysroot, GOLDEN_IMEX_DIR, dir, sizeof(dir)) < 0 ||
	    !(d = opendir(dir))) {
		snprintf(msg, len,
		         "MNNVL is on but %s is missing: no IMEX channel for this job, so CUDA "
		         "will fail with 'Cuda failure 800'; start nvidia-imex and give jobs a "
		         "channel (Slurm switch/nvidia_imex)",
		         GOLDEN_IMEX_DIR);
		return 0;
	}
	while ((de = readdir(d))) {
		char path[4096 + 300];

		if (strncmp(de->d_name, "channel", 7) != 0)
			continue;
		dl = strlen(dir);
		if (dl + 1 + strlen(de->d_name) >= sizeof(path))
			continue;
		memcpy(path, dir, dl);
		path[dl] = '/';
		memcpy(path + dl + 1, de->d_name, strlen(de->d_name) + 1);
		/* Run as the job's user (user_init): may this user open it? */
		if (access(path, R_OK | W_OK) == 0) {
			snprintf(msg, len, "IMEX channel %s/%s is there", GOLDEN_IMEX_DIR,
			         de->d_name);
			closedir(d);
			return 1;
		}
		denied = denied || errno == EACCES;
	}
	closedir(d);
	snprintf(msg, len,
	         "MNNVL is on but %s holds no channel this job can open%s: CUDA will fail "
	         "with 'Cuda failure 800'; give jobs a channel (Slurm switch/nvidia_imex)",
	         GOLDEN_IMEX_DIR, denied ? " (permission denied)" : "");
	return 0;
}
