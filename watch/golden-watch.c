/* golden-watch: the node's kernel-log watcher (see lib/node/watch.h). */
#include <config.h>

#include "node/watch.h"

int main(int argc, char **argv)
{
	return golden_watch_main(argc, argv);
}
