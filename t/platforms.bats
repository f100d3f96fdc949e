#!/usr/bin/env bats
# The recipe catalogue over every platform fixture: the exact environment,
# which recipes match, the generated NCCL topology files, the IMEX check.

bats_require_minimum_version 1.5.0 # run --separate-stderr

setup() {
	GOLDEN="$GOLDEN_BUILDDIR/cli/golden"
	FX="$GOLDEN_BUILDDIR/t/fixtures/out"
	RECIPES="$GOLDEN_SRCDIR/recipes"
	EXP="$GOLDEN_SRCDIR/t/fixtures/platforms"
	PKGDATADIR=${GOLDEN_PKGDATADIR:?make check sets it}
}

node() { # node FIXTURE -> options for golden
	echo --topology "$FX/$1/topo.xml" --sysroot "$FX/$1/root" --recipes "$RECIPES"
}

@test "every platform fixture renders exactly its expected environment" {
	n=0
	for exp in "$EXP"/*.env; do
		f=$(basename "$exp" .env)
		want=$(sed "s|@PKGDATADIR@|$PKGDATADIR|" "$exp")
		# An empty expectation (single-node) is golden setting nothing: exit 1.
		got=$("$GOLDEN" env $(node "$f") 2>/dev/null) || [ -z "$want" ] ||
			{ echo "$f: golden env failed"; return 1; }
		[ "$got" = "$want" ] || { echo "$f:"; diff <(echo "$want") <(echo "$got"); return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 22 ]
}

@test "each fixture is won by its platform's recipe, and matched by no other platform's" {
	n=0
	while IFS= read -r line; do
		[[ $line == \#* || -z $line ]] && continue
		f=${line%%:*}
		rest=${line#*: }
		win=${rest%% |*}
		want=$(tr ' ' '\n' <<<"${rest#*|}" | grep . | sort | tr '\n' ' ')
		got=$("$GOLDEN" recipe list $(node "$f") | awk 'NR > 1 && $3 == "yes" {print $1}' | sort | tr '\n' ' ')
		[ "$got" = "$want" ] || { echo "$f: matching recipes '$got', expected '$want'"; return 1; }
		if [ "$win" != - ]; then
			run --separate-stderr "$GOLDEN" env --format explain $(node "$f")
			[[ ${lines[0]} == "recipe: $win" ]] || { echo "$f: ${lines[0]}, expected $win"; return 1; }
		fi
		n=$((n + 1))
	done <"$EXP/matches.txt"
	[ "$n" -eq "$(ls -d "$FX"/*/ | wc -l)" ]
}

@test "every shipped recipe is won by at least one fixture" {
	for r in "$RECIPES"/*.json; do
		name=$(basename "$r" .json)
		grep -q ": $name |" "$EXP/matches.txt" || { echo "no fixture for $name"; return 1; }
	done
}

@test "the AWS recipes never set what aws-ofi-nccl sets itself" {
	for f in aws-p4d aws-p5 aws-p5en aws-p6-b200; do
		run "$GOLDEN" env $(node "$f")
		[ "$status" -eq 0 ]
		for v in NCCL_BUFFSIZE NCCL_P2P_NET_CHUNKSIZE NCCL_NVLSTREE_MAX_CHUNKSIZE NCCL_NVLS_CHUNKSIZE \
			NCCL_NET_FORCE_FLUSH NCCL_NETDEVS_POLICY NCCL_TOPO_FILE NCCL_TUNER_PLUGIN NCCL_PROTO \
			NCCL_NVLS_ENABLE NCCL_MIN_NCHANNELS FI_PROVIDER FI_EFA_FORK_SAFE RDMAV_FORK_SAFE; do
			! grep -q "^$v=" <<<"$output" || { echo "$f sets $v"; return 1; }
		done
	done
}

@test "single-node: no network variable at all, and the recipe still wins" {
	# Golden sets nothing here: exit 1 with one line saying so (README, man).
	run --separate-stderr "$GOLDEN" env $(node l40s-workstation)
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "golden env: recipe single-node sets no variable on this node: golden leaves NCCL's defaults alone" ]
	run --separate-stderr "$GOLDEN" env --format explain $(node l40s-workstation)
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "recipe: single-node" ]
	grep -qx '  (none: NCCL keeps all its defaults)' <<<"$output"
	grep -qE '^    generic-socket +specificity 1 +matches +lost to single-node' <<<"$output"
}

@test "golden recipe list explains why a platform recipe does not match" {
	run "$GOLDEN" recipe list $(node aws-p5)
	[ "$status" -eq 0 ]
	grep -qE '^aws-p4d +2 +no +dmi_product_name: "p5.48xlarge"; recipe wants p4d.24xlarge \| p4de.24xlarge' <<<"$output"
	grep -qE '^gcp-a3-mega +4 +no +compute_nic_kind: this node.s compute fabric is efa; recipe wants none' <<<"$output"
	run "$GOLDEN" recipe list $(node gcp-a3-mega)
	grep -qE '^gcp-a3-high +4 +no +gpu_eth_count: 8 plain Ethernet NICs next to a GPU; recipe wants 4' <<<"$output"
}

@test "golden recipe explain shows each variable's value here, why and the source" {
	run "$GOLDEN" recipe explain gcp-a3-mega $(node gcp-a3-mega)
	[ "$status" -eq 0 ]
	grep -q '^source: google/nccl-plugin-gpudirect-tcpxo tcpxo_scripts/nccl-env-profile.sh' <<<"$output"
	grep -q '^matches this node: yes' <<<"$output"
	grep -q 'template: {pci_netdevs:\[08\]\[67de\]:00.0}' <<<"$output"
	grep -q 'here:     enp6s0,enp7s0,enp13s0,enp14s0,enp134s0,enp135s0,enp141s0,enp142s0' <<<"$output"
	run "$GOLDEN" recipe explain hgx-roce $(node aws-p5)
	grep -q '^matches this node: no - gpu_model' <<<"$output" || grep -q '^matches this node: no - compute_nic_kind' <<<"$output"
}

@test "GB200: explain reports the IMEX channel, and its absence in a way a person can act on" {
	run "$GOLDEN" env --format explain $(node gb200-nvl72)
	grep -qx 'imex: IMEX channel /dev/nvidia-caps-imex-channels/channel0 is there' <<<"$output"
	run "$GOLDEN" env --format explain $(node gb200-nvl72-noimex)
	grep -q "^imex: MNNVL is on but /dev/nvidia-caps-imex-channels is missing.*Cuda failure 800" <<<"$output"
	run "$GOLDEN" env --format explain $(node hgx-h100-ib)
	! grep -q '^imex:' <<<"$output"
}

# The generated NCCL_TOPO_FILE against NCCL's XML schema (src/graph/xml.cc,
# topo.cc) and against the fixture of the VM it is for.
check_topo_xml() { # SKU FIXTURE GPUS_PER_SWITCH
	"$GOLDEN" topo --topology "$FX/$2/topo.xml" --sysroot "$FX/$2/root" --format json >"$BATS_TEST_TMPDIR/topo.json"
	python3 - "$GOLDEN_BUILDDIR/nccl-topo/$1.xml" "$BATS_TEST_TMPDIR/topo.json" "$3" <<-'EOF'
	import json, re, sys
	import xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	topo = json.load(open(sys.argv[2]))
	per = int(sys.argv[3])
	assert root.tag == "system" and root.attrib == {"version": "1"}, root.attrib
	speeds = {"2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s", "2.5 GT/s PCIe", "5.0 GT/s PCIe",
	          "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"}
	bus = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
	gpus = {g["busid"]: g for g in topo["gpus"]}
	nics = {n["busid"]: n for n in topo["nics"] if n["class"] == "compute"}
	seen_g, seen_n = set(), set()
	for cpu in root:
	    assert cpu.tag == "cpu" and set(cpu.attrib) == {"numaid"}, cpu.attrib
	    numa = int(cpu.attrib["numaid"])
	    for sw in cpu:
	        assert sw.tag == "pci" and sw.attrib["class"] == "0x060400", sw.attrib
	        assert set(sw.attrib) == {"busid", "class", "vendor", "device", "subsystem_vendor",
	                                  "subsystem_device", "link_speed", "link_width"}, sw.attrib
	        assert sw.attrib["busid"].startswith("ffff:ff:") and bus.match(sw.attrib["busid"])
	        assert sw.attrib["link_speed"] in speeds and sw.attrib["link_width"] == "16"
	        kids = list(sw)
	        g = [k.attrib["busid"] for k in kids if k.attrib["class"] == "0x030200"]
	        n = [k.attrib["busid"] for k in kids if k.attrib["class"] == "0x020700"]
	        assert len(g) == per and len(n) == per and len(kids) == 2 * per, sw.attrib
	        for k in kids:
	            assert k.tag == "pci" and len(k) == 0 and bus.match(k.attrib["busid"])
	            assert set(k.attrib) == {"busid", "class", "link_speed", "link_width"}, k.attrib
	        for b in g:
	            assert b in gpus and gpus[b]["numa"] == numa, (b, numa)
	        for b in n:
	            assert b in nics and nics[b]["numa"] == numa, (b, numa)
	        seen_g.update(g)
	        seen_n.update(n)
	assert seen_g == set(gpus), (seen_g, set(gpus))
	assert seen_n == set(nics), (seen_n, set(nics))
	EOF
}

@test "NDv4 topology file: NCCL's elements, each switch 2 GPUs + their 2 NICs on the right NUMA node" {
	check_topo_xml azure-ndv4 azure-ndv4 2
}

@test "NDv5 topology file: NCCL's elements, each switch 1 GPU + its NIC on the right NUMA node" {
	check_topo_xml azure-ndv5 azure-ndv5 1
}

@test "golden nccl-topo rejects a bad pairing with file, key and what is expected" {
	printf '{"name": "x", "link_speed": "16 GT/s", "link_width": 16, "numa": [{"id": 0, "switches": [{"gpus": ["0001:00:00.0"], "nics": ["0001:00:00.0"]}]}]}' >"$BATS_TEST_TMPDIR/p.json"
	run "$GOLDEN" nccl-topo "$BATS_TEST_TMPDIR/p.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"p.json: numa[0].switches[0].nics[0]: 0001:00:00.0 is paired twice"* ]]
	printf '{"name": "x", "link_speed": "16GT", "link_width": 16, "numa": []}' >"$BATS_TEST_TMPDIR/p.json"
	run "$GOLDEN" nccl-topo "$BATS_TEST_TMPDIR/p.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"p.json: link_speed: expected one of NCCL's PCIe speeds"* ]]
	printf '{"name": "x", "link_speed": "16 GT/s", "link_width": 16, "numa": [{"id": 0, "switches": [{"gpus": ["1:0:0.0"], "nics": ["0101:00:00.0"]}]}]}' >"$BATS_TEST_TMPDIR/p.json"
	run "$GOLDEN" nccl-topo "$BATS_TEST_TMPDIR/p.json"
	[[ "$output" == *"numa[0].switches[0].gpus[0]: expected a PCI bus id DDDD:BB:DD.F"* ]]
}
