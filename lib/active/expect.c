#include <config.h>

#include "active/expect.h"

#include <string.h>

/* Datasheet figures. NVIDIA's product pages give tensor-core rates "with
 * sparsity"; the dense rate golden's GEMM can reach is half of that. The
 * host link is PCIe's raw rate in one direction after 128b/130b coding
 * (Gen4 x16: 16 GT/s x 16 lanes = 31.5 GB/s; Gen5 x16: 63.0 GB/s). NVLink
 * figures are the datasheet's total (both directions) halved. */
#define H100_SRC                                                                                   \
	"https://www.nvidia.com/en-us/data-center/h100/ (H100 SXM/NVL table: memory bandwidth, "   \
	"BF16/TF32 Tensor Core with sparsity, NVLink 900 GB/s, PCIe Gen5 128 GB/s)"
#define H200_SRC                                                                                   \
	"https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM/NVL table: 4.8 TB/s HBM3e, "     \
	"BF16 1,979 TFLOPS with sparsity, NVLink 900 GB/s, PCIe Gen5 128 GB/s); MLCommons "        \
	"inference v4.1 NVIDIA H200-SXM-141GB system description (PCIe Gen5 x16, 18x NVLink4)"
#define A100_SRC                                                                                   \
	"https://www.nvidia.com/en-us/data-center/a100/ (A100 80GB SXM 2,039 GB/s, 80GB PCIe "     \
	"1,935 GB/s, 40GB 1,555 GB/s; BF16 312 TFLOPS, TF32 156 TFLOPS dense; NVLink 600 GB/s; "   \
	"PCIe Gen4 64 GB/s)"
#define B200_SRC                                                                                   \
	"https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200: 8 TB/s HBM3e per GPU, NVLink5 "  \
	"1.8 TB/s per GPU); dense HGX B200 (1000 W) rates 2,250 TFLOPS BF16 and 1,100 TFLOPS "     \
	"TF32 "                                                                                    \
	"as tabulated from NVIDIA's Blackwell datasheet at "                                       \
	"glennklockwood.com/garden/processors/B200; "                                              \
	"MLCommons inference v6.0 B200-SXM-180GB system description (PCIe Gen5 x16)"
#define NCCL_OCI                                                                                   \
	"oracle-quickstart/oci-hpc active_healthcheck.py: all-reduce busbw >= 440 GB/s (H100, "    \
	"H200, "                                                                                   \
	"B200) and >= 185 GB/s (A100), 8 GPUs, average 1G-16G"
#define NCCL_AZ_H200                                                                               \
	"Azure/azurehpc-health-checks conf (ND H200 v5): all-reduce busbw >= 431 GB/s at 16G, 8 "  \
	"GPUs"
#define UNVERIFIED "not measured by golden-active on real hardware yet (no GPU node was available)"

#define GEN5 63.0
#define GEN4 31.5

const struct golden_active_model golden_active_models[] = {
    {{"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB", NULL},
     "H100 SXM5 80GB",
     3.35,
     989.4,
     494.7,
     GEN5,
     "PCIe Gen5 x16",
     450,
     440,
     H100_SRC,
     NCCL_OCI,
     false,
     UNVERIFIED},
    {{"NVIDIA H100 NVL", NULL},
     "H100 NVL 94GB",
     3.9,
     835.5,
     417.5,
     GEN5,
     "PCIe Gen5 x16",
     0,
     0,
     H100_SRC,
     "",
     false,
     UNVERIFIED},
    {{"NVIDIA H100 PCIe", NULL},
     "H100 PCIe 80GB",
     2.0,
     756.5,
     378,
     GEN5,
     "PCIe Gen5 x16",
     0,
     0,
     H100_SRC,
     "",
     false,
     UNVERIFIED},
    {{"NVIDIA H200", "NVIDIA H200 SXM 141GB", NULL},
     "H200 SXM 141GB",
     4.8,
     989.4,
     494.7,
     GEN5,
     "PCIe Gen5 x16",
     450,
     431,
     H200_SRC,
     NCCL_AZ_H200,
     false,
     UNVERIFIED},
    {{"NVIDIA H200 NVL", NULL},
     "H200 NVL 141GB",
     4.8,
     835.5,
     417.5,
     GEN5,
     "PCIe Gen5 x16",
     0,
     0,
     H200_SRC,
     "",
     false,
     UNVERIFIED},
    {{"NVIDIA A100-SXM4-80GB", NULL},
     "A100 SXM4 80GB",
     2.039,
     312,
     156,
     GEN4,
     "PCIe Gen4 x16",
     300,
     185,
     A100_SRC,
     NCCL_OCI,
     false,
     UNVERIFIED},
    {{"NVIDIA A100-SXM4-40GB", NULL},
     "A100 SXM4 40GB",
     1.555,
     312,
     156,
     GEN4,
     "PCIe Gen4 x16",
     300,
     185,
     A100_SRC,
     NCCL_OCI,
     false,
     UNVERIFIED},
    {{"NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB", NULL},
     "A100 PCIe 80GB",
     1.935,
     312,
     156,
     GEN4,
     "PCIe Gen4 x16",
     0,
     0,
     A100_SRC,
     "",
     false,
     UNVERIFIED},
    {{"NVIDIA B200", NULL},
     "B200 (HGX, 1000 W)",
     8.0,
     2250,
     1100,
     GEN5,
     "PCIe Gen5 x16",
     900,
     440,
     B200_SRC,
     NCCL_OCI,
     false,
     UNVERIFIED},
};

const int golden_active_nmodels = sizeof(golden_active_models) / sizeof(golden_active_models[0]);

const struct golden_active_model *golden_active_model_find(const char *cuda_name)
{
	for (int i = 0; cuda_name && i < golden_active_nmodels; i++)
		for (int k = 0; k < 4 && golden_active_models[i].names[k]; k++)
			if (!strcmp(cuda_name, golden_active_models[i].names[k]))
				return &golden_active_models[i];
	return NULL;
}

static const struct {
	double frac;
	double sibling_pct;
	const char *why;
} fractions[GOLDEN_ACTIVE_NTESTS] = {
    [GOLDEN_ACTIVE_HBM] = {0.80, 10,
                           "a device-to-device copy counted as bytes read + written reaches "
                           "85-92% of the HBM datasheet figure on healthy parts (4.3 of 4.8 TB/s "
                           "on an H200, recorded by this workplace on 2026-11-04 with driver "
                           "580.159.04, not by golden-active); 80% leaves room for clocks and "
                           "ECC while a lost HBM stack or a memory-clock fault (-15% and more) "
                           "fails"},
    [GOLDEN_ACTIVE_BF16] = {0.60, 10,
                            "large cuBLAS bf16 GEMMs run at 75-80% of the dense peak under the "
                            "power limit (769-798 of 989 TFLOP/s for 8192^3 on random data on an "
                            "H200, same workplace record); 60% passes every healthy clock/power "
                            "state and fails a GPU held in HW slowdown or power brake (~50%)"},
    [GOLDEN_ACTIVE_TF32] = {0.55, 10,
                            "TF32 GEMMs reach a lower share of their peak than bf16 (fp32 operands "
                            "double the memory traffic per FLOP); 55% is the bf16 floor less that "
                            "margin"},
    [GOLDEN_ACTIVE_H2D] = {0.70, 15,
                           "PCIe DMA reaches 80-85% of the raw rate (TLP and DLLP overhead); 70% "
                           "passes a healthy link and fails one trained a generation lower or at "
                           "half width (<= 50%)"},
    [GOLDEN_ACTIVE_D2H] = {0.70, 15, "as for host-to-device"},
    [GOLDEN_ACTIVE_P2P] = {0.65, 15,
                           "peer copies over NVLink reach 80-90% of one direction's datasheet "
                           "rate; 65% fails a GPU that lost links (each NVLink4 link is 1/18 of "
                           "the total, so the floor catches 6 or more lost links, and the sibling "
                           "comparison fewer)"},
    [GOLDEN_ACTIVE_MEMTEST] = {0, 0, "any wrong word fails"},
};

double golden_active_fraction(enum golden_active_test t)
{
	return (unsigned)t < GOLDEN_ACTIVE_NTESTS ? fractions[t].frac : 0;
}

const char *golden_active_fraction_why(enum golden_active_test t)
{
	return (unsigned)t < GOLDEN_ACTIVE_NTESTS ? fractions[t].why : "";
}

double golden_active_sibling_pct(enum golden_active_test t)
{
	return (unsigned)t < GOLDEN_ACTIVE_NTESTS ? fractions[t].sibling_pct : 0;
}

double golden_active_datasheet(const struct golden_active_model *m, enum golden_active_test t)
{
	if (!m)
		return 0;
	switch (t) {
	case GOLDEN_ACTIVE_HBM:
		return m->hbm_tbs;
	case GOLDEN_ACTIVE_BF16:
		return m->bf16_tflops;
	case GOLDEN_ACTIVE_TF32:
		return m->tf32_tflops;
	case GOLDEN_ACTIVE_H2D:
	case GOLDEN_ACTIVE_D2H:
		return m->host_gbps;
	case GOLDEN_ACTIVE_P2P:
		return m->p2p_gbps;
	default:
		return 0;
	}
}

double golden_active_floor(const struct golden_active_model *m, enum golden_active_test t)
{
	return golden_active_datasheet(m, t) * golden_active_fraction(t);
}
