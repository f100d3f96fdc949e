#!/usr/bin/env bats
# golden report against Slurm's own accounting: a real slurmdbd on a real
# MariaDB (golden-minicluster --accounting). Drains, resumes and an admin's
# maintenance produce real node events; the report's figures are asserted
# from what slurmdbd recorded, read back through sacctmgr by `golden report`.

load ../lib/common

GOLDEN_REASON1='gpu0 xid79 offbus; reboot [golden]'
GOLDEN_REASON2='/lustre statfs EIO; check [golden]'
ADMIN_REASON='maintenance: bios update'

setup_file() {
	golden_require_root
	command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null ||
		skip "needs the Debian packages slurmdbd and mariadb-server"
	export WORK="$BATS_FILE_TMPDIR/work"
	mkdir -p "$WORK"
	cat >"$WORK/golden.conf" <<-EOC
	state_dir = $WORK/state/%n
	scontrol = $(command -v scontrol)
	EOC
	chmod 0644 "$WORK/golden.conf"
	golden_cluster_start --nodes 3 --accounting
	export T0=$(($(date +%s) - 5))
	# Real node events: golden drains n1 (returned), an admin takes n2 for
	# maintenance (returned), golden drains n3 for a storage fault (still out).
	scontrol update NodeName=n1 State=DRAIN Reason="$GOLDEN_REASON1"
	scontrol update NodeName=n2 State=DRAIN Reason="$ADMIN_REASON"
	scontrol update NodeName=n3 State=DRAIN Reason="$GOLDEN_REASON2"
	sleep 2
	scontrol update NodeName=n1 State=RESUME
	sleep 1
	scontrol update NodeName=n2 State=RESUME
	# slurmctld hands events to slurmdbd asynchronously: wait until all four
	# rows (3 starts, 2 of them ended) are in the database.
	local i rows
	for ((i = 0; i < 150; i++)); do
		rows=$(SLURM_TIME_FORMAT=%s sacctmgr -n -P show event event=node \
			start=$(date -d @$T0 +%Y-%m-%dT%H:%M:%S) format=nodename,start,end,reason 2>/dev/null)
		if [[ $(grep -c . <<<"$rows") -ge 3 ]] && ! grep -q '^n[12]|.*|Unknown|' <<<"$rows"; then
			break
		fi
		sleep 0.2
	done
	printf '%s\n' "$rows" >"$WORK/events.seen"
}

teardown_file() {
	golden_cluster_stop
}

teardown() {
	golden_dump_logs_on_failure
	echo "# events seen: $(cat "$WORK/events.seen" 2>/dev/null)" >&3
}

golden() {
	GOLDEN_CONF=$WORK/golden.conf "$GOLDEN_BUILDDIR/cli/golden" "$@"
}

@test "slurmdbd recorded the drains, with their reasons, through real accounting" {
	# nodename|start|end|reason; a drain still held ends "Unknown".
	row() { awk -F'|' -v n="$1" -v r="$2" '$1 == n && $4 == r { print $3 }' "$WORK/events.seen"; }
	[[ $(row n1 "$GOLDEN_REASON1") =~ ^[0-9]+$ ]]
	[[ $(row n2 "$ADMIN_REASON") =~ ^[0-9]+$ ]]
	[ "$(row n3 "$GOLDEN_REASON2")" = Unknown ]
}

@test "golden report --format json: owners, fault class, downtime, still out, from slurmdbd" {
	run golden report --since @$T0 --format json
	echo "$output"
	[ "$status" -eq 0 ]
	j=$output
	[ "$(jq .nodes_total <<<"$j")" -eq 3 ]
	[ "$(jq .drains.golden <<<"$j")" -eq 2 ]
	[ "$(jq .drains.admin <<<"$j")" -eq 1 ]
	[ "$(jq .drains.slurm <<<"$j")" -eq 0 ]
	# The admin's maintenance is not a fault: only golden's two count.
	[ "$(jq .fault_drains <<<"$j")" -eq 2 ]
	[ "$(jq .still_out <<<"$j")" -eq 1 ]
	# Two drains ended (n1 about 2 s, n2 about 3 s); n3 is still out.
	[ "$(jq .time_to_return.returned <<<"$j")" -eq 2 ]
	[ "$(jq '.golden_by_check.xid' <<<"$j")" -eq 1 ]
	[ "$(jq '.golden_by_check.mounts' <<<"$j")" -eq 1 ]
	# n2 was down only for maintenance: fully available.
	[ "$(jq -r '.nodes[] | select(.node == "n2") | .down_s' <<<"$j")" -eq 0 ]
	[ "$(jq -r '.nodes[] | select(.node == "n2") | .drains.admin' <<<"$j")" -eq 1 ]
	[ "$(jq -r '.nodes[] | select(.node == "n1") | .down_s' <<<"$j")" -ge 1 ]
	[ "$(jq -r '.nodes[] | select(.node == "n3") | .still_out' <<<"$j")" -eq 1 ]
	# Fleet availability is below 100% (n1 and n3's golden downtime).
	jq -e '.availability_pct < 100 and .availability_pct > 0' <<<"$j"
}

@test "golden report: the text summary, CSV and a plot" {
	run golden report --since @$T0 --nodes 'n[1-3]'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"golden 2"* ]]
	[[ "$output" == *"admin 1"* ]]
	run golden report --since @$T0 --format csv
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^n[1-3],' <<<"$output")" -eq 3 ]
	if command -v gnuplot >/dev/null; then
		run golden report --since @$T0 --plot "$WORK/fleet.svg"
		echo "$output"
		[ "$status" -eq 0 ]
		grep -q '<svg' "$WORK/fleet.svg"
	fi
}

@test "report_downtime = golden,admin: the admin's maintenance counts as downtime when said so" {
	cp "$WORK/golden.conf" "$WORK/golden-admin.conf"
	echo "report_downtime = golden,admin" >>"$WORK/golden-admin.conf"
	run env GOLDEN_CONF=$WORK/golden-admin.conf "$GOLDEN_BUILDDIR/cli/golden" report \
		--since @$T0 --format json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.nodes[] | select(.node == "n2") | .down_s' <<<"$output")" -ge 1 ]
	[ "$(jq .fault_drains <<<"$output")" -eq 3 ]
}

@test "golden report without slurmdbd answering: one clear error, exit 2" {
	cat >"$WORK/golden-nodbd.conf" <<-EOC
	scontrol = /nonexistent/bin/scontrol
	EOC
	chmod 0644 "$WORK/golden-nodbd.conf"
	run env GOLDEN_CONF=$WORK/golden-nodbd.conf "$GOLDEN_BUILDDIR/cli/golden" report
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"show event failed"* ]]
}
