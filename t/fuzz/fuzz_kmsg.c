/* The kernel log: one /dev/kmsg record ("PRI,SEQ,TS,FLAGS;MSG"), then its
 * message through every reader of kernel lines: who wrote it, the XID/SXid
 * parser and classifier, the GPU re-init line and the writeback-stall line
 * counter. Also the whole input as
 * a bare message (a file of records gives the parsers lines like these). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "health/xid.h"
#include "stall/wbstall.h"
#include "t/fuzz/fuzz.h"
#include "util/kmsg.h"

static void message(int facility, const char *msg)
{
	static const int cpu_node[8] = {0, 0, 0, 0, 1, 1, 1, 1};
	struct golden_stall_evidence ev;
	struct golden_xid_event x;
	struct golden_xid_verdict v;
	struct golden_xid_override ovr = {79, false, GOLDEN_ST_WARN, GOLDEN_ACTION_NONE};
	char busid[GOLDEN_BUSID_LEN];

	golden_kmsg_origin(facility, msg);
	golden_xid_parse_gpu_init(facility, msg, busid, sizeof(busid));
	golden_xid_parse_record(facility, msg, &x);
	if (golden_xid_parse(msg, &x) == 1) {
		golden_xid_classify(&x, NULL, &v);
		golden_xid_classify(&x, &ovr, &v);
		golden_xid_recovery_name(x.recovery_action);
	}
	memset(&ev, 0, sizeof(ev));
	ev.lockup_node = -1;
	golden_stall_kmsg_line(msg, cpu_node, 8, &ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct golden_kmsg_record rec;
	char *s, pci[32];

	if (size > GOLDEN_KMSG_RECORD_MAX)
		return 0;
	s = fuzz_string(data, size);
	message(GOLDEN_KMSG_FAC_USER, s);
	golden_xid_pci_normalize(s, strlen(s), pci, sizeof(pci));
	if (golden_kmsg_parse(s, &rec) == 0) {
		golden_kmsg_gap(true, rec.seq ? rec.seq - 1 : 0, rec.seq);
		message(rec.facility, rec.msg);
	}
	free(s);
	return 0;
}
