#!/bin/bash
# NVML ABI check: every NVML enum value, struct layout, constant and function
# signature slurm-golden declares by hand in lib/nvml/nvml.h (it dlopens
# libnvidia-ml.so.1 and never includes nvml.h) against NVIDIA's own nvml.h.
#
# Every nvml.h found is checked: $NVML_INCLUDE_DIR, the ones
# contrib/install-deps.sh unpacks from Debian's non-free libnvidia-ml-dev
# (/opt/slurm-golden/nvidia-ml: bookworm's, NVML 11.8;
# /opt/slurm-golden/nvidia-ml-trixie: trixie's, NVML 12.4), /usr/include
# and /usr/local/cuda/include.  Without one the test is skipped, unless
# GOLDEN_REQUIRE_NVIDIA=1 (contrib/run-tests as root, i.e. CI), where that
# is a failure.
#
# What a header does not declare (an older NVML: Debian 12's is 11.8, and
# golden also uses NVML 12/13 additions such as nvmlDeviceGetGpuFabricInfoV)
# is listed as a skip, by name.  Two self-tests compile the same check
# against a copy of golden's header with one enum value and one parameter
# type changed, and must fail: the check can see a mismatch.
set -u
src=${GOLDEN_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
CC=${CC:-cc}
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

incs=()
for d in ${NVML_INCLUDE_DIR:-} /opt/slurm-golden/nvidia-ml/usr/include \
	/opt/slurm-golden/nvidia-ml-trixie/usr/include /usr/include /usr/local/cuda/include; do
	if [[ -f $d/nvml.h && " ${incs[*]} " != *" $d "* ]]; then
		incs+=("$d")
	fi
done
if ((${#incs[@]} == 0)); then
	if [[ ${GOLDEN_REQUIRE_NVIDIA:-0} == 1 ]]; then
		echo "1..1"
		echo "not ok 1 - no nvml.h (GOLDEN_REQUIRE_NVIDIA=1: run contrib/install-deps.sh)"
		exit 1
	fi
	echo "1..0 # SKIP no nvml.h (install Debian's libnvidia-ml-dev: contrib/install-deps.sh)"
	exit 0
fi

# has NAME: does nvml.h declare function NAME?
has() { grep -Eq "DECLDIR.*[^A-Za-z0-9_]$1[[:space:]]*\(" "$hdr"; }

# The members of struct golden_nvml_fns, one declaration per line.
fns() {
	awk '/^struct golden_nvml_fns \{/ { on = 1; next } on && /^\};/ { exit } on' "$1" |
		sed 's|/\* optional from here on \*/||; s|/\* _v2 or _v3 \*/|GOLDEN_V2_OR_V3|' |
		tr '\n' ' ' | tr -s ' \t' ' ' | tr ';' '\n' | sed 's/^ *//; /^$/d'
}

# golden's types -> NVML's: a member's declaration in NVML's words.
translate() {
	sed -e 's/golden_nvml_return_t/nvmlReturn_t/g' \
		-e 's/golden_nvml_device_t/nvmlDevice_t/g' \
		-e 's/struct golden_nvml_pci_info/nvmlPciInfo_t/g' \
		-e 's/golden_nvml_memory_error_type_t/nvmlMemoryErrorType_t/g' \
		-e 's/golden_nvml_ecc_counter_type_t/nvmlEccCounterType_t/g' \
		-e 's/golden_nvml_enable_state_t/nvmlEnableState_t/g' \
		-e 's/struct golden_nvml_gpu_fabric_info/nvmlGpuFabricInfo_t/g' \
		-e 's/struct golden_nvml_process_info/nvmlProcessInfo_t/g' \
		-e 's/struct golden_nvml_field_value/nvmlFieldValue_t/g' \
		-e 's/void \*info GOLDEN_V2_OR_V3/nvmlGpuFabricInfoV_t *info/g'
}

# gen HEADER OUT.c SKIPS: the check for golden header HEADER.
gen() {
	local h=$1 out=$2 skips=$3 decl name t
	: >"$skips"
	{
		cat <<-'EOC'
		#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
		#include <stddef.h>
		#include <nvml.h>
		#include GOLDEN_HEADER
		#define SAME(a, b) _Static_assert((long long)(a) == (long long)(b), #a " != " #b)
		#define SAME_SIZE(g, n) _Static_assert(sizeof(g) == sizeof(n), "sizeof " #g " != sizeof " #n)
		#define SAME_FIELD(g, n, f) \
			_Static_assert(offsetof(g, f) == offsetof(n, f) && \
			               sizeof(((g *)0)->f) == sizeof(((n *)0)->f), #g "." #f " != " #n "." #f)
		/* nvmlReturn_t */
		SAME(GOLDEN_NVML_SUCCESS, NVML_SUCCESS);
		SAME(GOLDEN_NVML_ERROR_UNINITIALIZED, NVML_ERROR_UNINITIALIZED);
		SAME(GOLDEN_NVML_ERROR_INVALID_ARGUMENT, NVML_ERROR_INVALID_ARGUMENT);
		SAME(GOLDEN_NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED);
		SAME(GOLDEN_NVML_ERROR_NO_PERMISSION, NVML_ERROR_NO_PERMISSION);
		SAME(GOLDEN_NVML_ERROR_NOT_FOUND, NVML_ERROR_NOT_FOUND);
		SAME(GOLDEN_NVML_ERROR_INSUFFICIENT_SIZE, NVML_ERROR_INSUFFICIENT_SIZE);
		SAME(GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_DRIVER_NOT_LOADED);
		SAME(GOLDEN_NVML_ERROR_TIMEOUT, NVML_ERROR_TIMEOUT);
		SAME(GOLDEN_NVML_ERROR_LIBRARY_NOT_FOUND, NVML_ERROR_LIBRARY_NOT_FOUND);
		SAME(GOLDEN_NVML_ERROR_FUNCTION_NOT_FOUND, NVML_ERROR_FUNCTION_NOT_FOUND);
		SAME(GOLDEN_NVML_ERROR_CORRUPTED_INFOROM, NVML_ERROR_CORRUPTED_INFOROM);
		SAME(GOLDEN_NVML_ERROR_GPU_IS_LOST, NVML_ERROR_GPU_IS_LOST);
		SAME(GOLDEN_NVML_ERROR_RESET_REQUIRED, NVML_ERROR_RESET_REQUIRED);
		SAME(GOLDEN_NVML_ERROR_LIB_RM_VERSION_MISMATCH, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
		SAME(GOLDEN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
		SAME(GOLDEN_NVML_ERROR_UNKNOWN, NVML_ERROR_UNKNOWN);
		SAME_SIZE(golden_nvml_return_t, nvmlReturn_t);
		SAME_SIZE(golden_nvml_device_t, nvmlDevice_t);
		/* nvmlEnableState_t, nvmlMemoryErrorType_t, nvmlEccCounterType_t */
		SAME(GOLDEN_NVML_FEATURE_DISABLED, NVML_FEATURE_DISABLED);
		SAME(GOLDEN_NVML_FEATURE_ENABLED, NVML_FEATURE_ENABLED);
		SAME_SIZE(golden_nvml_enable_state_t, nvmlEnableState_t);
		SAME(GOLDEN_NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_MEMORY_ERROR_TYPE_CORRECTED);
		SAME(GOLDEN_NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
		SAME(GOLDEN_NVML_VOLATILE_ECC, NVML_VOLATILE_ECC);
		SAME(GOLDEN_NVML_AGGREGATE_ECC, NVML_AGGREGATE_ECC);
		/* nvmlValueType_t, nvmlValue_t, nvmlFieldValue_t */
		SAME(GOLDEN_NVML_VALUE_TYPE_DOUBLE, NVML_VALUE_TYPE_DOUBLE);
		SAME(GOLDEN_NVML_VALUE_TYPE_UNSIGNED_INT, NVML_VALUE_TYPE_UNSIGNED_INT);
		SAME(GOLDEN_NVML_VALUE_TYPE_UNSIGNED_LONG, NVML_VALUE_TYPE_UNSIGNED_LONG);
		SAME(GOLDEN_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
		SAME(GOLDEN_NVML_VALUE_TYPE_SIGNED_LONG_LONG, NVML_VALUE_TYPE_SIGNED_LONG_LONG);
		SAME_SIZE(union golden_nvml_value, nvmlValue_t);
		SAME_FIELD(union golden_nvml_value, nvmlValue_t, dVal);
		SAME_FIELD(union golden_nvml_value, nvmlValue_t, uiVal);
		SAME_FIELD(union golden_nvml_value, nvmlValue_t, ulVal);
		SAME_FIELD(union golden_nvml_value, nvmlValue_t, ullVal);
		SAME_FIELD(union golden_nvml_value, nvmlValue_t, sllVal);
		SAME_SIZE(struct golden_nvml_field_value, nvmlFieldValue_t);
		SAME_FIELD(struct golden_nvml_field_value, nvmlFieldValue_t, fieldId);
		SAME_FIELD(struct golden_nvml_field_value, nvmlFieldValue_t, scopeId);
		SAME_FIELD(struct golden_nvml_field_value, nvmlFieldValue_t, timestamp);
		SAME_FIELD(struct golden_nvml_field_value, nvmlFieldValue_t, latencyUsec);
		SAME_FIELD(struct golden_nvml_field_value, nvmlFieldValue_t, valueType);
		SAME_FIELD(struct golden_nvml_field_value, nvmlFieldValue_t, nvmlReturn);
		SAME_FIELD(struct golden_nvml_field_value, nvmlFieldValue_t, value);
		/* nvmlPciInfo_t */
		SAME(GOLDEN_NVML_PCI_BUS_ID_BUFFER_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE);
		SAME(GOLDEN_NVML_PCI_BUS_ID_BUFFER_V2_SIZE, NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE);
		SAME_SIZE(struct golden_nvml_pci_info, nvmlPciInfo_t);
		SAME_FIELD(struct golden_nvml_pci_info, nvmlPciInfo_t, busIdLegacy);
		SAME_FIELD(struct golden_nvml_pci_info, nvmlPciInfo_t, domain);
		SAME_FIELD(struct golden_nvml_pci_info, nvmlPciInfo_t, bus);
		SAME_FIELD(struct golden_nvml_pci_info, nvmlPciInfo_t, device);
		SAME_FIELD(struct golden_nvml_pci_info, nvmlPciInfo_t, pciDeviceId);
		SAME_FIELD(struct golden_nvml_pci_info, nvmlPciInfo_t, pciSubSystemId);
		SAME_FIELD(struct golden_nvml_pci_info, nvmlPciInfo_t, busId);
		/* nvmlProcessInfo_t (v2) */
		SAME_SIZE(struct golden_nvml_process_info, nvmlProcessInfo_t);
		SAME_FIELD(struct golden_nvml_process_info, nvmlProcessInfo_t, pid);
		SAME_FIELD(struct golden_nvml_process_info, nvmlProcessInfo_t, usedGpuMemory);
		SAME_FIELD(struct golden_nvml_process_info, nvmlProcessInfo_t, gpuInstanceId);
		SAME_FIELD(struct golden_nvml_process_info, nvmlProcessInfo_t, computeInstanceId);
		/* NVML_NVLINK_MAX_LINKS: golden asks for at least as many links */
		_Static_assert(GOLDEN_NVML_NVLINK_MAX_LINKS >= NVML_NVLINK_MAX_LINKS, "NVLINK_MAX_LINKS");
		/* clock event reasons (the older ThrottleReason names, same bits) */
		#ifdef nvmlClocksEventReasonGpuIdle
		SAME(GOLDEN_NVML_CLOCKS_EVENT_GPU_IDLE, nvmlClocksEventReasonGpuIdle);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_SW_POWER_CAP, nvmlClocksEventReasonSwPowerCap);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_SYNC_BOOST, nvmlClocksEventReasonSyncBoost);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_SW_THERMAL, nvmlClocksEventReasonSwThermalSlowdown);
		#endif
		SAME(GOLDEN_NVML_CLOCKS_EVENT_GPU_IDLE, nvmlClocksThrottleReasonGpuIdle);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_SW_POWER_CAP, nvmlClocksThrottleReasonSwPowerCap);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_HW_SLOWDOWN, nvmlClocksThrottleReasonHwSlowdown);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_SYNC_BOOST, nvmlClocksThrottleReasonSyncBoost);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_SW_THERMAL, nvmlClocksThrottleReasonSwThermalSlowdown);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_HW_THERMAL, nvmlClocksThrottleReasonHwThermalSlowdown);
		SAME(GOLDEN_NVML_CLOCKS_EVENT_HW_POWER_BRAKE, nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
		/* GPU fabric (NVML 12+) */
		#ifdef NVML_GPU_FABRIC_UUID_LEN
		SAME(GOLDEN_NVML_GPU_FABRIC_UUID_LEN, NVML_GPU_FABRIC_UUID_LEN);
		SAME(GOLDEN_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED, NVML_GPU_FABRIC_STATE_NOT_SUPPORTED);
		SAME(GOLDEN_NVML_GPU_FABRIC_STATE_NOT_STARTED, NVML_GPU_FABRIC_STATE_NOT_STARTED);
		SAME(GOLDEN_NVML_GPU_FABRIC_STATE_IN_PROGRESS, NVML_GPU_FABRIC_STATE_IN_PROGRESS);
		SAME(GOLDEN_NVML_GPU_FABRIC_STATE_COMPLETED, NVML_GPU_FABRIC_STATE_COMPLETED);
		SAME_SIZE(struct golden_nvml_gpu_fabric_info, nvmlGpuFabricInfo_t);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info, nvmlGpuFabricInfo_t, clusterUuid);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info, nvmlGpuFabricInfo_t, status);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info, nvmlGpuFabricInfo_t, cliqueId);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info, nvmlGpuFabricInfo_t, state);
		#endif
		#ifdef nvmlGpuFabricInfo_v2
		SAME_SIZE(struct golden_nvml_gpu_fabric_info_v2, nvmlGpuFabricInfo_v2_t);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info_v2, nvmlGpuFabricInfo_v2_t, version);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info_v2, nvmlGpuFabricInfo_v2_t, state);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info_v2, nvmlGpuFabricInfo_v2_t, healthMask);
		SAME(GOLDEN_NVML_GPU_FABRIC_INFO_V2, nvmlGpuFabricInfo_v2);
		#endif
		#ifdef nvmlGpuFabricInfo_v3
		SAME_SIZE(struct golden_nvml_gpu_fabric_info_v3, nvmlGpuFabricInfo_v3_t);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info_v3, nvmlGpuFabricInfo_v3_t, healthMask);
		SAME_FIELD(struct golden_nvml_gpu_fabric_info_v3, nvmlGpuFabricInfo_v3_t, healthSummary);
		SAME(GOLDEN_NVML_GPU_FABRIC_INFO_V3, nvmlGpuFabricInfo_v3);
		SAME(GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY, NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY);
		SAME(GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY, NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY);
		SAME(GOLDEN_NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY, NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY);
		#endif
		/* GPU recovery action (NVML 12.8+) */
		#ifdef NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
		SAME(GOLDEN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION);
		SAME(GOLDEN_NVML_RECOVERY_NONE, NVML_GPU_RECOVERY_ACTION_NONE);
		SAME(GOLDEN_NVML_RECOVERY_GPU_RESET, NVML_GPU_RECOVERY_ACTION_GPU_RESET);
		SAME(GOLDEN_NVML_RECOVERY_NODE_REBOOT, NVML_GPU_RECOVERY_ACTION_NODE_REBOOT);
		SAME(GOLDEN_NVML_RECOVERY_DRAIN_P2P, NVML_GPU_RECOVERY_ACTION_DRAIN_P2P);
		SAME(GOLDEN_NVML_RECOVERY_DRAIN_AND_RESET, NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET);
		#endif
		/* Functions: golden's declarations, in NVML's type names, against NVML's. */
		EOC
		while IFS= read -r decl; do
			name=$(sed -n 's/.*(\*\([A-Za-z0-9_]*\)).*/\1/p' <<<"$decl")
			[[ -n $name ]] || continue
			t=$(translate <<<"$decl")
			if [[ $t == *golden_* ]]; then
				printf '#error "%s: a golden type with no NVML name in t/nvml-abi.sh: %s"\n' "$name" "$t"
			elif has "$name"; then
				printf 'typedef %s;\n' "${t/(\*$name)/(*abi_$name)}"
				printf '_Static_assert(__builtin_types_compatible_p(__typeof__(&%s), abi_%s), "%s: golden declares another signature than nvml.h");\n' \
					"$name" "$name" "$name"
			else
				echo "$name" >>"$skips"
			fi
		done < <(fns "$h")
	} >"$out"
	for t in NVML_GPU_FABRIC_UUID_LEN nvmlGpuFabricInfo_v2 nvmlGpuFabricInfo_v3 \
		NVML_FI_DEV_GET_GPU_RECOVERY_ACTION nvmlClocksEventReasonGpuIdle; do
		grep -q "define $t\b" "$hdr" || echo "$t" >>"$skips"
	done
}

compile() {
	"$CC" -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I "$inc" -I "$src/lib" \
		-DGOLDEN_HEADER="\"$1\"" "$2" 2>&1
}

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }

{
for inc in "${incs[@]}"; do
	hdr=$inc/nvml.h
	api=$(sed -n 's/^#define NVML_API_VERSION_STR *"\(.*\)"/\1/p' "$hdr")
	echo "# nvml.h: $hdr (NVML API $api)"
	gen "$src/lib/nvml/nvml.h" "$work/check.c" "$work/skips"
	if out=$(compile "$src/lib/nvml/nvml.h" "$work/check.c"); then
		# what the preprocessor kept: the checks this header allows
		"$CC" -E -I "$inc" -I "$src/lib" -DGOLDEN_HEADER="\"$src/lib/nvml/nvml.h\"" \
			"$work/check.c" >"$work/check.i" 2>/dev/null
		nfn=$(grep -o '__builtin_types_compatible_p' "$work/check.i" | wc -l)
		nall=$(grep -o '_Static_assert' "$work/check.i" | wc -l)
		ok "lib/nvml/nvml.h matches $hdr (NVML API $api): $((nall - nfn)) enum/struct/constant checks, $nfn function signatures"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		notok "lib/nvml/nvml.h does not match $hdr (NVML API $api)"
	fi
	while IFS= read -r s; do
		ok "$s # SKIP not in $hdr (NVML API $api)"
	done <"$work/skips"
done

# Self-tests (against the first header): a wrong enum value and a wrong
# parameter type must not compile.
inc=${incs[0]}
hdr=$inc/nvml.h

# Self-tests: a wrong enum value and a wrong parameter type must not compile.
sed 's/GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED = 9,/GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED = 8,/' \
	"$src/lib/nvml/nvml.h" >"$work/bad-enum.h"
gen "$work/bad-enum.h" "$work/bad-enum.c" "$work/skips2"
if ! grep -q '= 8,' "$work/bad-enum.h"; then
	notok "self-test: could not make a wrong enum value (the header changed?)"
elif out=$(compile "$work/bad-enum.h" "$work/bad-enum.c") ||
	! grep -q 'GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED != NVML_ERROR_DRIVER_NOT_LOADED' <<<"$out"; then
	printf '%s\n' "$out" | head -5 | sed 's/^/# /'
	notok "self-test: DRIVER_NOT_LOADED = 8 was not caught"
else
	ok "self-test: a wrong enum value is caught ($(grep -o 'GOLDEN_NVML_ERROR_DRIVER_NOT_LOADED != [A-Z_]*' <<<"$out" | head -1))"
fi
sed 's/(\*nvmlDeviceGetCurrPcieLinkWidth)(golden_nvml_device_t device,/(*nvmlDeviceGetCurrPcieLinkWidth)(golden_nvml_device_t device, int *x,/' \
	"$src/lib/nvml/nvml.h" >"$work/bad-fn.h"
gen "$work/bad-fn.h" "$work/bad-fn.c" "$work/skips3"
if ! grep -q 'int \*x' "$work/bad-fn.h"; then
	notok "self-test: could not make a wrong signature (the header changed?)"
elif out=$(compile "$work/bad-fn.h" "$work/bad-fn.c") ||
	! grep -q 'nvmlDeviceGetCurrPcieLinkWidth: golden declares another signature' <<<"$out"; then
	printf '%s\n' "$out" | head -5 | sed 's/^/# /'
	notok "self-test: an extra parameter of nvmlDeviceGetCurrPcieLinkWidth was not caught"
else
	ok "self-test: a wrong function signature is caught (nvmlDeviceGetCurrPcieLinkWidth)"
fi
} >"$work/tap"
echo "1..$(grep -cE '^(not )?ok ' "$work/tap")"
cat "$work/tap"
grep -q '^not ok' "$work/tap" && exit 1
exit 0
