#include "topo/topo.h"

const char *golden_topo_loc_name(enum golden_loc loc)
{
	switch (loc) {
	case GOLDEN_LOC_PIX:
		return "PIX";
	case GOLDEN_LOC_PXB:
		return "PXB";
	case GOLDEN_LOC_PHB:
		return "PHB";
	case GOLDEN_LOC_SYS:
		return "SYS";
	case GOLDEN_LOC_NONE:
		break;
	}
	return "-";
}

const char *golden_topo_nic_kind_name(enum golden_nic_kind kind)
{
	switch (kind) {
	case GOLDEN_NIC_IB:
		return "ib";
	case GOLDEN_NIC_ROCE:
		return "roce";
	case GOLDEN_NIC_EFA:
		return "efa";
	case GOLDEN_NIC_ETH:
		break;
	}
	return "eth";
}

const char *golden_topo_nic_class_name(enum golden_nic_class cls)
{
	switch (cls) {
	case GOLDEN_CLASS_COMPUTE:
		return "compute";
	case GOLDEN_CLASS_STORAGE:
		return "storage";
	case GOLDEN_CLASS_MGMT:
		return "mgmt";
	case GOLDEN_CLASS_VIRTUAL:
		break;
	}
	return "virtual";
}
