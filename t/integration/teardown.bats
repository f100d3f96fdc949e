#!/usr/bin/env bats
# The dirty-inode teardown stall probe, for real where this machine allows:
#  - a memory cgroup made here, with real dirty pages written from a process
#    inside it: cgroup v1 on Debian 12's host, cgroup v2 (memory+io, cgroup
#    writeback on, wb_stats in debugfs) in the trixie VM of
#    contrib/env/slurm-matrix;
#  - a local Slurm cluster with task/cgroup, whose slurmstepd runs our
#    task_exit hook on the job's real memory cgroup, and golden-epilog as
#    Slurm's Epilog reading what the hook recorded;
#  - soft-lockup and workqueue-lockup lines written into /dev/kmsg, with a
#    fixture /proc holding +inode_switch_wbs kworkers;
#  - a real hung mount (a FUSE filesystem whose statfs never answers) so a
#    storage check times out during the stall and must not get the blame.

load ../lib/common

MIB=1048576

setup_file() {
	golden_require_root
	# v1: a memory hierarchy of its own; v2: the unified one with memory and
	# io for its children (cgroup writeback), as an admin sets it up.
	if [[ -d /sys/fs/cgroup/memory ]]; then
		export CGV=1 CGROOT=/sys/fs/cgroup/memory DIRTY_KEY=total_dirty
	elif [[ $(stat -fc %T /sys/fs/cgroup) == cgroup2fs ]] &&
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control &&
		grep -qw io /sys/fs/cgroup/cgroup.subtree_control; then
		export CGV=2 CGROOT=/sys/fs/cgroup DIRTY_KEY=file_dirty
	else
		skip "no memory cgroup: neither a v1 memory hierarchy nor v2 with +memory +io"
	fi
	# Writes the host's /dev/kmsg: one such file at a time per machine.
	golden_kmsg_lock
	export WORK="$BATS_FILE_TMPDIR/work"
	mkdir -p "$WORK/log" "$WORK/state" "$WORK/data"
	export GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
	# Only the kernel and storage checks: no GPU or fabric on this host.
	{
		printf 'state_dir = %s/state/%%n\n' "$WORK"
		printf 'log = %s/log/%%n.jsonl\n' "$WORK"
		printf 'teardown_dir = %s/teardown/%%n\n' "$WORK"
		printf 'scontrol = %s\n' "$(command -v scontrol)"
		printf 'stall_sample_ms = 50\n'
		for c in gpu-count gpu-ecc gpu-remap gpu-pcie gpu-nvlink gpu-throttle gpu-fabric \
			gpu-procs gpu-recovery ib-ports ib-counters efa bootstrap gpudirect xid; do
			printf 'check.%s = off\n' "$c"
		done
	} >"$WORK/golden.conf"
	chmod 0644 "$WORK/golden.conf"
	cat >"$WORK/epilog" <<-EOW
	#!/bin/sh
	export GOLDEN_CONF=$WORK/golden.conf
	exec $GOLDEN_BUILDDIR/epilog/golden-epilog
	EOW
	chmod 0755 "$WORK/epilog"
	# Start the stall cursors now: lines earlier runs injected are not ours.
	for n in n1 n2 fx; do
		GOLDEN_CONF=$WORK/golden.conf "$GOLDEN" check --node "$n" --acknowledge-kmsg >/dev/null
	done
	golden_cluster_start --nodes 2 --cgroup --epilog "$WORK/epilog" \
		--plugstack-line "required $GOLDEN_BUILDDIR/spank/.libs/golden_nccl.so teardown_flush=always teardown_threshold=32M teardown_dir=$WORK/teardown/%n"
}

teardown_file() {
	local cg
	golden_cluster_stop || true
	if [[ -s $WORK/hungfs.pid ]]; then
		# its statfs handler never returns, so only SIGKILL ends it
		kill -9 "$(cat "$WORK/hungfs.pid")" 2>/dev/null || true
		sleep 0.2
		umount -l "$WORK/hung" 2>/dev/null || true
	fi
	for cg in "$WORK"/cg.*; do
		if [[ -f $cg ]]; then
			rmdir "$CGROOT/$(cat "$cg")" 2>/dev/null || true
		fi
	done
	golden_kmsg_unlock
}

teardown() {
	golden_dump_logs_on_failure
}

# json FILE EXPR: evaluate a Python expression over the JSON document j.
json() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# A fresh memory cgroup (v1 or v2) with WRITE MiB of real dirty page cache
# in it, written by a process that lived inside it.
dirty_cgroup() {
	local name=golden-bats-$$-$1 mib=$2
	mkdir "$CGROOT/$name"
	echo "$name" >"$WORK/cg.$1"
	sh -c "echo \$\$ > $CGROOT/$name/cgroup.procs && exec dd if=/dev/zero of=$WORK/data/$1 bs=1M count=$mib status=none"
	echo "$CGROOT/$name"
}

cg_dirty() {
	awk -v k="$DIRTY_KEY" '$1 == k { print $2 }' "$1/memory.stat"
}

@test "real cgroup: the probe reads the dirty pages from memory.stat and the flush cleans them" {
	cg=$(dirty_cgroup big 96)
	before=$(cg_dirty "$cg")
	[ "$before" -ge $((64 * MIB)) ]
	run "$GOLDEN" teardown --cgroup "$cg" --flush always --threshold 32M --deadline-ms 20000 --json
	echo "$output" >"$WORK/big.json"
	[ "$status" -eq 0 ]
	[ "$(json "$WORK/big.json" 'j["action"]')" = flushed ]
	[ "$(json "$WORK/big.json" 'j["dirty_bytes"] >= 64 * 2**20')" = True ]
	[ "$(json "$WORK/big.json" 'j["dirty_after_bytes"] < 4 * 2**20')" = True ]
	[ "$(json "$WORK/big.json" 'j["mounts_synced"] >= 1')" = True ]
	[ "$(cg_dirty "$cg")" -lt $((4 * MIB)) ]
}

@test "real cgroup: below the threshold nothing is flushed; auto flushes only where cgroup writeback is on (v2)" {
	cg=$(dirty_cgroup small 24)
	before=$(cg_dirty "$cg")
	[ "$before" -ge $((16 * MIB)) ]
	run "$GOLDEN" teardown --cgroup "$cg" --flush always --threshold 256M --json \
		--record "$WORK/rec" --job 7 --step 0
	echo "$output" >"$WORK/small.json"
	[ "$(json "$WORK/small.json" 'j["action"]')" = below-threshold ]
	# the record for the epilog: root-only file in root-only directories
	[ "$(json "$WORK/rec/job_7/0.json" 'j["action"]')" = below-threshold ]
	[ "$(stat -c %a "$WORK/rec/job_7/0.json")" = 600 ]
	[ "$(stat -c %a "$WORK/rec/job_7")" = 700 ]
	# Still dirty: nothing was written back.
	[ "$(cg_dirty "$cg")" -ge $((16 * MIB)) ]
	run "$GOLDEN" teardown --cgroup "$cg" --flush auto --threshold 1M --json
	echo "$output" >"$WORK/auto.json"
	if ((CGV == 1)); then
		[ "$(json "$WORK/auto.json" 'j["action"]')" = not-exposed ]
		[ "$(json "$WORK/auto.json" 'j["exposed"]')" = False ]
		[ "$(cg_dirty "$cg")" -ge $((16 * MIB)) ]
	else
		# v2 with memory+io: the inodes hang on this memcg's writeback
		# context, the one the kernel switches when the cgroup goes
		[ "$(json "$WORK/auto.json" 'j["exposed"]')" = True ]
		[ "$(json "$WORK/auto.json" 'j["cgroup_version"]')" = 2 ]
		[ "$(json "$WORK/auto.json" 'j["wb_inodes"] >= 1')" = True ]
		[ "$(json "$WORK/auto.json" 'j["action"]')" = flushed ]
		[ "$(cg_dirty "$cg")" -lt $((4 * MIB)) ]
	fi
}

# wait_log NODE JOB: the epilog's JSON record for JOB (bounded wait: the
# epilog runs after the job has left the queue).
wait_log() {
	local i
	for ((i = 0; i < 300; i++)); do
		if [[ -f $WORK/log/$1.jsonl ]] && grep -q "\"job\":\"$2\"" "$WORK/log/$1.jsonl"; then
			grep "\"job\":\"$2\"" "$WORK/log/$1.jsonl" | tail -1
			return 0
		fi
		sleep 0.1
	done
	return 1
}

@test "Slurm task/cgroup: task_exit measures the job's real memory cgroup and flushes it; the Epilog reports it" {
	big=$(sbatch --parsable -w n1 -o /dev/null --wrap "dd if=/dev/zero of=$WORK/data/job-big bs=1M count=96 status=none")
	small=$(sbatch --parsable -w n2 -o /dev/null --wrap "dd if=/dev/zero of=$WORK/data/job-small bs=1M count=2 status=none")
	[ "$(golden_wait_job "$big")" = COMPLETED ]
	[ "$(golden_wait_job "$small")" = COMPLETED ]
	wait_log n1 "$big" >"$WORK/epi-big.json"
	wait_log n2 "$small" >"$WORK/epi-small.json"
	# slurmd logged what the hook did, with the job's own cgroup
	grep -q "teardown probe job $big step batch: 9[0-9] MiB dirty" "$GOLDEN_CLUSTER_DIR"/log/slurmd-n1.log
	if ((CGV == 2)); then
		# Slurm's v2 layout: the dirty pages belong to step_batch/user/task_0,
		# whose writeback context holds the file's inode (read from wb_stats)
		line=$(grep "teardown probe job $big step batch:" "$GOLDEN_CLUSTER_DIR"/log/slurmd-n1.log)
		echo "$line"
		[[ $line =~ MiB\ writeback,\ ([0-9]+)\ wb\ inodes ]]
		[ "${BASH_REMATCH[1]}" -ge 1 ]
	fi
	td='[c for c in j["checks"] if c["name"] == "teardown"][0]["detail"]'
	run json "$WORK/epi-big.json" "$td"
	echo "$output"
	[[ $output =~ batch:\ 9[0-9]\ MiB\ dirty,\ flushed\ in\ [0-9]+\ ms\ \(after:\ [0-3]\ MiB\) ]]
	run json "$WORK/epi-small.json" "$td"
	echo "$output"
	[[ $output =~ batch:\ [0-9]\ MiB\ dirty,\ below-threshold ]]
	[ "$(stat -c %a "$WORK/teardown/n1")" = 700 ]
	# the epilog consumed the records; nothing was drained
	[ ! -e "$WORK/teardown/n1/job_$big" ]
	[ "$(json "$WORK/epi-big.json" 'j["result"]')" != fail ]
	[[ $(golden_node_state n1) != *DRAIN* ]]
}

# A fixture /proc + /sys for an 8-CPU, 2-NUMA node with two kworkers
# running inode_switch_wbs on CPUs 5 and 6 (numa1); MOUNTS lines are added
# to its mount table.
storm_root() {
	local r=$1 workers=$2
	shift 2
	mkdir -p "$r/proc/self" "$r/sys/devices/system/node/node0" "$r/sys/devices/system/node/node1" \
		"$r/proc/sys/kernel/random"
	echo 0-3 >"$r/sys/devices/system/node/node0/cpulist"
	echo 4-7 >"$r/sys/devices/system/node/node1/cpulist"
	cp /proc/stat "$r/proc/stat"
	cat /proc/sys/kernel/random/boot_id >"$r/proc/sys/kernel/random/boot_id"
	echo 6.12.40 >"$r/proc/sys/kernel/osrelease"
	printf '%s\n' "$@" >"$r/proc/self/mounts"
	if [[ $workers = yes ]]; then
		for w in 5 6; do
			mkdir -p "$r/proc/10$w"
			echo "kworker/$w:1+inode_switch_wbs" >"$r/proc/10$w/comm"
			echo "10$w (kworker/$w:1+inode_switch_wbs) R 2 0 0 0 -1 69238880 0 0 0 0 0 900 0 0 20 0 1 0 5 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 $w 0 0 0 0 0" >"$r/proc/10$w/stat"
		done
	fi
}

inject_storm_lines() {
	printf '%s\n' 'watchdog: BUG: soft lockup - CPU#6 stuck for 23s! [kworker/6:1:106]' >/dev/kmsg
	printf '%s\n' 'Workqueue: inode_switch_wbs inode_switch_wbs_work_fn' >/dev/kmsg
	printf '%s\n' 'BUG: workqueue lockup - pool cpus=5 node=1 flags=0x0 nice=0 stuck for 41s!' >/dev/kmsg
	printf '%s\n' 'LustreError: 11-0: fs-MDT0000-mdc-ffff: Connection to fs-MDT0000 (at 10.0.0.1@o2ib) was lost; in progress operations using this service will wait for recovery to complete' >/dev/kmsg
}

@test "kernel-log lines in /dev/kmsg + switch kworkers: a storm on numa1, with its evidence" {
	storm_root "$WORK/storm" yes
	inject_storm_lines
	run env GOLDEN_CONF="$WORK/golden.conf" "$GOLDEN" check --node fx --sysroot "$WORK/storm" --no-drain --json
	echo "$output" >"$WORK/storm.json"
	[ "$status" -eq 1 ]
	ws='[c for c in j["checks"] if c["name"] == "wb-stall"][0]'
	[ "$(json "$WORK/storm.json" "$ws[\"code\"]")" = "kernel wb-switch stall numa1" ]
	run json "$WORK/storm.json" "$ws[\"detail\"]"
	[[ $output == *"2 inode_switch_wbs kworkers (2 on numa1)"* ]]
	[[ $output == *"1 soft lockup, 1 workqueue lockup, 1 inode_switch_wbs"* ]]
	[[ $output == *"1 lustre victim"* ]]
	[ "$(json "$WORK/storm.json" 'j["reason"][:20]')" = "kernel wb-switch sta" ]
	# the node state says so for later runs
	grep -q '^node 1$' "$WORK/state/fx/wb-stall.state"
	# the same lines again without live kworkers: a stall that has passed, no drain
	inject_storm_lines
	storm_root "$WORK/calm" no
	run env GOLDEN_CONF="$WORK/golden.conf" "$GOLDEN" check --node fx --sysroot "$WORK/calm" --no-drain --json
	echo "$output" >"$WORK/calm.json"
	[ "$status" -eq 0 ]
	[ "$(json "$WORK/calm.json" "$ws[\"code\"]")" = "kernel wb-switch stall past" ]
	[ ! -e "$WORK/state/fx/wb-stall.state" ]
}

start_hungfs() {
	[[ -x $GOLDEN_BUILDDIR/t/hung-fs/hungfs ]] || skip "hungfs not built (no libfuse3-dev)"
	[[ -c /dev/fuse ]] || skip "no /dev/fuse"
	mkdir -p "$WORK/hung"
	if ! grep -q " $WORK/hung " /proc/mounts; then
		"$GOLDEN_BUILDDIR/t/hung-fs/hungfs" "$WORK/hung" >/dev/null 2>&1 3>&- &
		echo $! >"$WORK/hungfs.pid"
		for ((i = 0; i < 50; i++)); do
			grep -q " $WORK/hung " /proc/mounts && break
			sleep 0.1
		done
	fi
	grep -q " $WORK/hung " /proc/mounts
}

@test "misattribution: a storage check that times out during the stall drains the node for the kernel, not storage" {
	start_hungfs
	conf=$WORK/golden-hung.conf
	{ cat "$WORK/golden.conf"; printf 'mount = %s/hung\ncheck.mounts.deadline_ms = 500\n' "$WORK"; } >"$conf"
	chmod 0644 "$conf"
	hung="hungfs $WORK/hung fuse.hungfs rw,nosuid,nodev 0 0"
	# Without storm evidence the hung mount is storage's fault...
	storm_root "$WORK/quiet" no "$hung"
	run env GOLDEN_CONF="$conf" "$GOLDEN" check --node n2 --sysroot "$WORK/quiet" --no-drain --json
	echo "$output" >"$WORK/quiet.json"
	[ "$status" -eq 1 ]
	run json "$WORK/quiet.json" 'j["reason"]'
	echo "$output"
	[[ $output != kernel* ]]
	[[ $output == "hc mounts timeout"* ]]
	[ "$(json "$WORK/quiet.json" '[c for c in j["checks"] if c["name"] == "mounts"][0].get("timed_out")')" = True ]
	# ...with it, the same timeout is the kernel's, and n2 is drained for it.
	storm_root "$WORK/storm2" yes "$hung"
	inject_storm_lines
	run env GOLDEN_CONF="$conf" "$GOLDEN" check --node n2 --sysroot "$WORK/storm2" --json
	echo "$output" >"$WORK/mis.json"
	[ "$status" -eq 1 ]
	mnt='[c for c in j["checks"] if c["name"] == "mounts"][0]'
	[ "$(json "$WORK/mis.json" "$mnt[\"code\"]")" = "kernel wb-switch stall numa1" ]
	run json "$WORK/mis.json" "$mnt[\"detail\"]"
	[[ $output == "storage is the victim, not the cause: mounts check timed out"* ]]
	golden_wait_node_state n2 'DRAIN'
	run sinfo -h -R -n n2 -o '%20E'
	echo "$output"
	[ "$output" = "kernel wb-switch sta" ]
	scontrol update nodename=n2 state=resume
}

@test "a two-task step is probed once, after its last task, in the step's own cgroup" {
	job=$(sbatch --parsable -w n2 -n2 -o /dev/null --wrap "srun -n2 sh -c 'dd if=/dev/zero of=$WORK/data/two.\$SLURM_PROCID bs=1M count=24 status=none'")
	[ "$(golden_wait_job "$job")" = COMPLETED ]
	wait_log n2 "$job" >"$WORK/epi-two.json"
	# one probe for step 0 (48 MiB from two tasks, over the 32M threshold)
	[ "$(grep -c "teardown probe job $job step 0:" "$GOLDEN_CLUSTER_DIR"/log/slurmd-n2.log)" -eq 1 ]
	grep -q "teardown probe job $job step 0: 4[0-9] MiB dirty.*: flushed" "$GOLDEN_CLUSTER_DIR"/log/slurmd-n2.log
	run json "$WORK/epi-two.json" '[c for c in j["checks"] if c["name"] == "teardown"][0]["detail"]'
	echo "$output"
	[[ $output == *"0: 4"[0-9]" MiB dirty, flushed"* ]]
	[[ $output == *"batch: "[0-9]" MiB dirty, below-threshold"* ]]
}

@test "golden check --kernel: the exposure report of this node and of an exposed fixture" {
	run "$GOLDEN" check --kernel
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == "teardown stall exposure: not exposed"* ]]
	if ((CGV == 1)); then
		# this host: memory on cgroup v1, so cgroup writeback is off whatever the kernel
		[[ $output == *"cgroup writeback off (memory controller on cgroup v1"* ]]
	else
		# the VM: cgroup writeback on, but its kernel carries the fixes
		[[ $output == *"cgroup writeback on (cgroup v2 at /sys/fs/cgroup"* ]]
		[[ $output == *"kernel:   $(uname -r): fixed"* ]]
	fi
	r=$WORK/exposed
	storm_root "$r" no "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0" "/dev/nvme0n1 /scratch xfs rw,lazytime 0 0"
	mkdir -p "$r/sys/fs/cgroup"
	echo "cpuset cpu io memory pids" >"$r/sys/fs/cgroup/cgroup.controllers"
	run "$GOLDEN" check --kernel --sysroot "$r"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == "teardown stall exposure: EXPOSED"* ]]
	[[ $output == *"6.12.40: unfixed"* ]]
	[[ $output == *"/scratch xfs atime updates on reads attach inodes, lazytime"* ]]
	# the epilog warns once per boot on an exposed node
	run env GOLDEN_CONF="$WORK/golden.conf" "$GOLDEN" check --epilog --node ex --sysroot "$r" --no-drain --json
	echo "$output" >"$WORK/ex1.json"
	run env GOLDEN_CONF="$WORK/golden.conf" "$GOLDEN" check --epilog --node ex --sysroot "$r" --no-drain --json
	echo "$output" >"$WORK/ex2.json"
	we='[c for c in j["checks"] if c["name"] == "wb-exposure"][0]'
	[ "$(json "$WORK/ex1.json" "$we[\"result\"]")" = warn ]
	[ "$(json "$WORK/ex2.json" "$we[\"result\"]")" = ok ]
}

# An admin made n2's teardown_dir shared (world-writable and sticky, like
# /tmp); an ordinary user planted job_<id> -> a directory of root's files
# before the job ran, then ran the job. Before, the plugin wrote its record
# through the symlink and the root epilog read and unlinked every *.json
# behind it. Now the shared directory is refused by both, with one line
# each, nothing outside is touched and the node is not drained.
@test "a job_N symlink a user planted in a shared teardown_dir: refused, nothing outside touched, no drain" {
	td=$WORK/teardown/n2
	mkdir -p "$td" "$WORK/victim"
	chmod 1777 "$td"
	_golden_open_path "$td" # search permission down to it, nothing more
	echo keep >"$WORK/victim/batch.json"
	echo keep >"$WORK/victim/site.json"
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	job=$("${as_user[@]}" sbatch --parsable --hold -D /tmp -w n2 -o /dev/null \
		--wrap "dd if=/dev/zero of=/tmp/golden-td-$$ bs=1M count=40 status=none; rm -f /tmp/golden-td-$$")
	"${as_user[@]}" ln -s "$WORK/victim" "$td/job_$job"
	[ "$(stat -c %U "$td/job_$job")" = nobody ]
	scontrol release "$job"
	[ "$(golden_wait_job "$job")" = COMPLETED ]
	wait_log n2 "$job" >"$WORK/epi-planted.json"
	chmod 0700 "$td"
	# nothing behind the symlink was written, read away or removed
	ls -l "$WORK/victim" "$td"
	[ "$(cat "$WORK/victim/site.json")" = keep ]
	[ "$(cat "$WORK/victim/batch.json")" = keep ]
	[ "$(ls "$WORK/victim" | wc -l)" -eq 2 ]
	[ -L "$td/job_$job" ]
	# the plugin refused to write there, saying why
	grep -q "teardown record: teardown_dir $td: refusing directory writable by others (mode 1777)" \
		"$GOLDEN_CLUSTER_DIR"/log/slurmd-n2.log
	# the epilog refused to read there: a warning, not a failure
	tc='[c for c in j["checks"] if c["name"] == "teardown"][0]'
	[ "$(json "$WORK/epi-planted.json" "$tc[\"result\"]")" = warn ]
	run json "$WORK/epi-planted.json" "$tc[\"detail\"]"
	echo "$output"
	[[ $output == *"refused, records of job $job not read"* ]]
	[[ $(golden_node_state n2) != *DRAIN* ]]
	rm -f "$td/job_$job"
}
