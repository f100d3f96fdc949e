#!/usr/bin/env bats
# NVIDIA's real libnvidia-ml.so.1 (Debian non-free libnvidia-ml1, unpacked by
# contrib/install-deps.sh into /opt/slurm-golden/nvidia-ml) on a machine with
# no NVIDIA driver loaded: golden-prolog and golden check must report the
# clear "driver not loaded" failure of NVML itself (nvmlInit_v2 ->
# NVML_ERROR_DRIVER_NOT_LOADED): one failure (gpu-count) with what to do,
# the other GPU checks saying they could not look; never a crash, a timeout
# or a misleading per-GPU fault.
#
# Skipped where the library is absent, unless GOLDEN_REQUIRE_NVIDIA=1
# (contrib/run-tests as root, i.e. CI), and on a machine where a driver is
# loaded (this is the GPU-less case).

setup_file() {
	: "${NVML_LIB_DIR:=/opt/slurm-golden/nvidia-ml/usr/lib/x86_64-linux-gnu/nvidia/current}"
	export NVML_LIB_DIR
}

setup() {
	if [[ ! -e $NVML_LIB_DIR/libnvidia-ml.so.1 ]]; then
		if [[ ${GOLDEN_REQUIRE_NVIDIA:-0} == 1 ]]; then
			echo "no $NVML_LIB_DIR/libnvidia-ml.so.1 (run contrib/install-deps.sh)" >&2
			return 1
		fi
		skip "no real libnvidia-ml.so.1 in $NVML_LIB_DIR (contrib/install-deps.sh)"
	fi
	[[ ! -e /proc/driver/nvidia/version ]] || skip "an NVIDIA driver is loaded here"
	FX="$GOLDEN_BUILDDIR/t/fixtures/out"
	d=$BATS_TEST_TMPDIR
	mkdir -m 0700 "$d/state"
	: >"$d/kmsg"
	# Only the GPU checks, with generous deadlines: this is about what NVML
	# answers, not how fast. The real nvmlInit_v2 costs ~0.17 s of CPU (it
	# reads /proc/cpuinfo and every PCI device's config space), nine GPU
	# checks load it at once, and on a busy 2-core machine that went past
	# the 2000 ms default deadline (and starved the 1000 ms checks).
	{
		printf 'state_dir = %s/state\nlog = %s/health.jsonl\nscontrol = /bin/false\n' "$d" "$d"
		printf 'budget_ms = 60000\n'
		for c in xid wb-stall wb-exposure ib-ports ib-counters efa bootstrap gpudirect mounts; do
			printf 'check.%s = off\n' "$c"
		done
		for c in gpu-count gpu-ecc gpu-remap gpu-pcie gpu-nvlink gpu-throttle gpu-fabric \
			gpu-procs gpu-recovery; do
			printf 'check.%s.deadline_ms = 30000\n' "$c"
		done
	} >"$d/golden.conf"
	chmod 0644 "$d/golden.conf"
}

# gpu_checks FILE: "name result code|detail" of each class-gpu check
gpu_checks() {
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
for c in j["checks"]:
    if c["class"] == "gpu":
        print(c["name"], c["result"], c.get("code", "-"), "|", c["detail"], "|", c.get("timed_out", False))' "$1"
}

@test "the real libnvidia-ml.so.1 is NVIDIA's, and its nvmlInit_v2 says the driver is not loaded" {
	cat /opt/slurm-golden/nvidia-ml/VERSIONS 2>/dev/null || true
	[ ! -L "$NVML_LIB_DIR/libnvidia-ml.so.1" ] || [[ $(readlink "$NVML_LIB_DIR/libnvidia-ml.so.1") == libnvidia-ml.so.[0-9]* ]]
	! grep -q fake_nvml "$(readlink -f "$NVML_LIB_DIR/libnvidia-ml.so.1")"
	run env LD_LIBRARY_PATH="$NVML_LIB_DIR" "$GOLDEN_BUILDDIR/cli/golden" check --json --no-drain \
		--config "$d/golden.conf" --kmsg "$d/kmsg" --node n1 \
		--topology "$FX/hgx-h100-ib/topo.xml" --sysroot "$FX/hgx-h100-ib/root"
	echo "$output" >"$d/check.json"
	echo "$output"
	[ "$status" -eq 1 ]
	run gpu_checks "$d/check.json"
	echo "$output"
	[ "${#lines[@]}" -eq 9 ]
	# one failure: the driver-level one, with what was expected and what to do
	[[ ${lines[0]} == "gpu-count fail gpu nvml-init | nvmlInit_v2 failed: Driver Not Loaded (NVML error 9); 8 GPU(s) expected"*"load the nvidia kernel module"*"| False" ]]
	# the other eight could not look, and say so once
	for l in "${lines[@]:1}"; do
		[[ $l == *" warn gpu nvml-unavailable | not checked: NVML unavailable (nvmlInit_v2 failed: Driver Not Loaded (NVML error 9)); reported once | False" ]]
	done
	# no per-GPU fault (a bus id or gpuN in a code), no crash, no timeout
	! grep -Eq '"code":"gpu [^"]*([0-9a-f]{4}:[0-9a-f]{2}|gpu[0-9])' "$d/check.json"
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reason"])' "$d/check.json")" = \
		"gpu nvml-init; check [golden]" ]
}

@test "golden-prolog with the real library: fails the job's prolog with the driver failure, exit 1" {
	run env LD_LIBRARY_PATH="$NVML_LIB_DIR" "$GOLDEN_BUILDDIR/prolog/golden-prolog" --no-drain \
		--config "$d/golden.conf" --kmsg "$d/kmsg" --node n1 \
		--topology "$FX/hgx-h100-ib/topo.xml" --sysroot "$FX/hgx-h100-ib/root"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"fail  gpu-count"*"gpu nvml-init: nvmlInit_v2 failed: Driver Not Loaded (NVML error 9); 8 GPU(s) expected"* ]]
	[[ $output == *"reason: gpu nvml-init; check [golden]"* ]]
	[[ $output != *"timed out"* ]]
}

@test "a CPU node with the driver's library but no driver: no GPU expected, all GPU checks pass" {
	run env LD_LIBRARY_PATH="$NVML_LIB_DIR" "$GOLDEN_BUILDDIR/cli/golden" check --json --no-drain \
		--config "$d/golden.conf" --kmsg "$d/kmsg" --node n1 \
		--topology "$FX/cpu-only/topo.xml" --sysroot "$FX/cpu-only/root"
	echo "$output" >"$d/cpu.json"
	run gpu_checks "$d/cpu.json"
	echo "$output"
	[ "${#lines[@]}" -ge 9 ]
	for l in "${lines[@]}"; do
		[[ $l == *" ok - | no NVIDIA GPU expected"*"NVML: nvmlInit_v2 failed: Driver Not Loaded (NVML error 9) | False" ]]
	done
}
