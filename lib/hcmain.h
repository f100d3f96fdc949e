/* The one entry point behind golden-prolog, golden-epilog and `golden check`. */
#ifndef GOLDEN_HCMAIN_H
#define GOLDEN_HCMAIN_H

#include "check.h"

/* argv[0] is the program/command name. Returns the exit status: 0 healthy
 * (or warnings only), 1 a check failed (the node was drained unless
 * --no-drain), 2 usage or configuration error. */
int golden_hc_main(enum golden_phase default_phase, int argc, char **argv);

#endif
