/* The --golden-nccl[=MODE] option value. */
#ifndef GOLDEN_SPANK_OPTION_H
#define GOLDEN_SPANK_OPTION_H

#include <stdbool.h>
#include <stddef.h>

enum golden_mode {
	GOLDEN_MODE_UNSET, /* option not given: plugstack default= decides */
	GOLDEN_MODE_OFF,
	GOLDEN_MODE_AUTO,
	GOLDEN_MODE_VERBOSE,
	GOLDEN_MODE_RECIPE /* force the named recipe */
};

struct golden_mode_opt {
	enum golden_mode mode;
	char recipe[64];
};

/* Parse an option value: NULL/""/auto, off, verbose, or a recipe name.
 * recipes_dir, when readable, says which names exist; when it is not (a
 * submit host without recipes), any well-formed name is accepted and the
 * compute node judges. On failure msg gets one line listing valid values. */
int golden_mode_parse(const char *value, const char *recipes_dir, struct golden_mode_opt *out,
                      char *msg, size_t msglen);

#endif
