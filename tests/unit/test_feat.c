/* SPDX-License-Identifier: MIT */
/*
 * test_feat.c - the feature model: dependency rules (§1.2), aggregation
 * (§1.3), stacked devices (§1.4), ethtool text, TUN flags (§5); every §
 * in this file is a section of docs/kernel-model.md
 *
 * Oracle data: the files in tests/data/ethtool/ are `ethtool -k` output
 * captured on this project's 6.18.44 machines (veth, TAP before and after
 * TUNSETOFFLOAD 0x1ff, bridge without and with a veth port, macvlan over a
 * veth with and without its offloads).  voff must print them byte for byte
 * from its own model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/pkt.h>

#include "check.h"

/* ---- helpers ------------------------------------------------------------ */

static char *slurp(const char *name)
{
	const char *dir = getenv("VOFF_DATA");
	char path[512];
	static char buf[8192];
	FILE *f;
	size_t n;

	if (!dir)
		dir = "tests/data";
	snprintf(path, sizeof(path), "%s/ethtool/%s", dir, name);
	f = fopen(path, "r");
	CHECK_MSG(f, "cannot open %s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* Print @d as ethtool -k would for @ifname into a static buffer. */
static char *print(const char *ifname, const struct voff_feat_dev *d)
{
	static char out[8192];
	FILE *f = fmemopen(out, sizeof(out), "w");

	CHECK(f);
	CHECK_OK(voff_feat_print(f, ifname, d));
	fclose(f);
	return out;
}

static void check_text(const char *got, const char *want)
{
	const char *g = got, *w = want;
	int line = 1;

	while (*g && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	CHECK_MSG(*g == *w, "line %d differs:\n got: %.60s\nwant: %.60s",
		  line, g, w);
}

static void parse_file(const char *name, struct voff_feat_dev *d)
{
	unsigned int unknown = 99;

	CHECK_OK(voff_feat_parse_ethtool(slurp(name), d, &unknown));
	CHECK_EQ(unknown, 0);
}

/* ---- the table ---------------------------------------------------------- */

static void t_table_bits_unique(void)
{
	uint64_t seen = 0;

	for (int i = 0; i < VOFF_FEAT__COUNT; i++) {
		uint64_t b = voff_feat_bit(i);

		CHECK_NE(b, 0);
		CHECK_MSG(!(seen & b), "bit of %s reused", voff_feat_name(i));
		seen |= b;
	}
	CHECK_EQ(seen, voff_feat_all());
	CHECK_STR_EQ(voff_feat_name(VOFF_FEAT__COUNT), "?");
	CHECK_STR_EQ(voff_feat_name(VOFF_FEAT_HW_CSUM),
		     "tx-checksum-ip-generic");
	CHECK(voff_feat_has_sw(VOFF_FEAT_TSO));
	CHECK(!voff_feat_has_sw(VOFF_FEAT_LRO));
}

/* §1.1: GSO feature bits = gso_type bits << 16, so gso_ok is a subset. */
static void t_gso_ok(void)
{
	static const struct {
		uint64_t f;
		uint32_t type;
		bool ok;
		const char *rule;
	} c[] = {
		{ VOFF_F_TSO, VOFF_GSO_TCPV4, true, "TSO takes TCPV4" },
		{ VOFF_F_TSO6, VOFF_GSO_TCPV4, false, "TSO6 is not TSO" },
		{ VOFF_F_TSO, VOFF_GSO_TCPV4 | VOFF_GSO_TCP_ECN, false,
		  "ECN needs TSO_ECN" },
		{ VOFF_F_TSO | VOFF_F_TSO_ECN,
		  VOFF_GSO_TCPV4 | VOFF_GSO_TCP_ECN, true, "TSO+ECN" },
		{ VOFF_F_TSO, VOFF_GSO_TCPV4 | VOFF_GSO_DODGY, false,
		  "DODGY needs GSO_ROBUST" },
		{ VOFF_F_TSO | VOFF_F_GSO_ROBUST,
		  VOFF_GSO_TCPV4 | VOFF_GSO_DODGY, true, "ROBUST takes DODGY" },
		{ VOFF_F_TSO, VOFF_GSO_TCPV4 | VOFF_GSO_TCP_FIXEDID, false,
		  "FIXEDID needs MANGLEID" },
		{ VOFF_F_TSO | VOFF_F_TSO_MANGLEID,
		  VOFF_GSO_TCPV4 | VOFF_GSO_TCP_FIXEDID_INNER, true,
		  "FIXEDID_INNER needs MANGLEID (no bit of its own)" },
		{ VOFF_F_TSO, VOFF_GSO_TCPV4 | VOFF_GSO_TCP_FIXEDID_INNER,
		  false, "FIXEDID_INNER without MANGLEID" },
		{ VOFF_F_GSO_UDP_L4, VOFF_GSO_UDP_L4, true, "USO" },
		{ VOFF_F_GSO_UDP, VOFF_GSO_UDP, true, "UFO" },
		{ VOFF_F_GSO_UDP_L4 | VOFF_F_GSO_UDP_TUNNEL,
		  VOFF_GSO_UDP_L4 | VOFF_GSO_UDP_TUNNEL, true, "USO in VXLAN" },
		{ VOFF_F_TSO | VOFF_F_GSO_UDP_TUNNEL,
		  VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL_CSUM, false,
		  "tunnel csum needs UDP_TUNNEL_CSUM" },
		{ VOFF_F_TSO | VOFF_F_TSO6 | VOFF_F_GSO_ACCECN,
		  VOFF_GSO_TCPV6 | VOFF_GSO_TCP_ACCECN, true, "AccECN" },
		{ ~UINT64_C(0), 0, false, "gso_type 0 is never ok" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		CHECK_MSG(voff_feat_gso_ok(c[i].f, c[i].type) == c[i].ok,
			  "case %zu: %s", i, c[i].rule);
}

/* ---- §1.2 dependency rules --------------------------------------------- */

#define SG VOFF_F_SG
#define HW VOFF_F_HW_CSUM
#define IP4 VOFF_F_IP_CSUM
#define IP6 VOFF_F_IPV6_CSUM
#define TSO VOFF_F_TSO
#define TSO6 VOFF_F_TSO6
#define ECN VOFF_F_TSO_ECN
#define MID VOFF_F_TSO_MANGLEID
#define USO VOFF_F_GSO_UDP_L4
#define GSO VOFF_F_GSO

static void t_fix_rules(void)
{
	static const struct {
		uint64_t in, partial, out;
		const char *rule;
	} c[] = {
		{ HW | IP4 | IP6, 0, HW, "§1.2 rule 1: HW_CSUM drops IP/IPV6" },
		{ HW | IP4, 0, HW, "§1.2 rule 1: HW_CSUM drops IP_CSUM" },
		{ IP4 | IP6, 0, IP4 | IP6, "§1.2 rule 1: IP+IPV6 is fine" },
		{ HW | TSO | TSO6 | ECN | MID, 0, HW,
		  "§1.2 rule 2: TSO without SG" },
		{ HW | TSO | VOFF_F_GSO_ACCECN, 0, HW | VOFF_F_GSO_ACCECN,
		  "§1.2 rule 2: AccECN is not in ALL_TSO (6.18 quirk)" },
		{ SG | TSO | ECN | MID | TSO6, 0, SG,
		  "§1.2 rule 3: TSO/TSO6 without a checksum" },
		{ SG | IP6 | TSO | ECN | TSO6, 0, SG | IP6 | TSO6,
		  "§1.2 rule 3: TSO needs HW or IP_CSUM; ECN goes with it" },
		{ SG | IP4 | TSO | TSO6, 0, SG | IP4 | TSO,
		  "§1.2 rule 3: TSO6 needs HW or IPV6_CSUM" },
		{ SG | HW | MID | TSO6, 0, SG | HW | TSO6,
		  "§1.2 rule 4: MANGLEID without TSO" },
		{ SG | HW | ECN, 0, SG | HW,
		  "§1.2 rule 4: ECN as the only TSO bit" },
		{ SG | HW | ECN | TSO6, 0, SG | HW | ECN | TSO6,
		  "§1.2 rule 4: ECN with TSO6 stays" },
		{ GSO | HW, 0, HW, "§1.2 rule 5: GSO without SG" },
		{ SG | GSO, 0, SG | GSO, "§1.2 rule 5: GSO with SG" },
		{ SG | VOFF_F_GSO_UDP_TUNNEL, VOFF_F_GSO_UDP_TUNNEL, SG,
		  "§1.2 rule 6: partial feature without GSO_PARTIAL" },
		{ SG | VOFF_F_GSO_UDP_TUNNEL | VOFF_F_GSO_PARTIAL,
		  VOFF_F_GSO_UDP_TUNNEL,
		  SG | VOFF_F_GSO_UDP_TUNNEL | VOFF_F_GSO_PARTIAL,
		  "§1.2 rule 6: partial feature with GSO_PARTIAL" },
		{ VOFF_F_GRO_HW, 0, 0, "§1.2 rule 7: GRO_HW needs RXCSUM" },
		{ VOFF_F_GRO_HW | VOFF_F_RXCSUM | VOFF_F_LRO, 0,
		  VOFF_F_GRO_HW | VOFF_F_RXCSUM,
		  "§1.2 rule 7: GRO_HW drops LRO" },
		{ VOFF_F_RXFCS | VOFF_F_RXCSUM | VOFF_F_LRO | VOFF_F_GRO_HW, 0,
		  VOFF_F_RXFCS | VOFF_F_RXCSUM,
		  "§1.2 rule 7: RXFCS drops LRO and GRO_HW" },
		{ USO, 0, 0, "§1.2 rule 8: USO needs a checksum" },
		{ USO | IP4, 0, IP4, "§1.2 rule 8: USO with IPv4 csum only" },
		{ USO | IP4 | IP6, 0, USO | IP4 | IP6,
		  "§1.2 rule 8: USO with IP and IPV6 csum, no SG needed" },
		{ USO | HW, 0, USO | HW, "§1.2 rule 8: USO with HW_CSUM" },
		{ VOFF_F_HW_TLS_TX | IP4, 0, IP4,
		  "TLS TX needs both IP checksums or HW" },
		{ VOFF_F_HW_TLS_RX, 0, 0, "TLS RX needs RXCSUM" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t got = voff_feat_fix(c[i].in, c[i].partial);

		CHECK_MSG(got == c[i].out, "case %zu (%s): 0x%llx != 0x%llx", i,
			  c[i].rule, (unsigned long long)got,
			  (unsigned long long)c[i].out);
		/* The rules only ever take away, and are idempotent. */
		CHECK_EQ(got & ~c[i].in, 0);
		CHECK_EQ(voff_feat_fix(got, c[i].partial), got);
	}
}

/* Randomized: fix never adds, is idempotent, and its result obeys rules. */
static void t_fix_random(void)
{
	for (int i = 0; i < 20000; i++) {
		uint64_t in = check_rand() & voff_feat_all();
		uint64_t f = voff_feat_fix(in, 0);

		CHECK_EQ(f & ~in, 0);
		CHECK_EQ(voff_feat_fix(f, 0), f);
		CHECK(!((f & HW) && (f & (IP4 | IP6))));
		CHECK(!((f & VOFF_F_ALL_TSO) && !(f & SG)));
		CHECK(!((f & GSO) && !(f & SG)));
		CHECK(!((f & MID) && !(f & TSO)));
		CHECK(!((f & USO) && !(f & HW) &&
			(f & (IP4 | IP6)) != (IP4 | IP6)));
	}
}

/* ---- ethtool text ------------------------------------------------------- */

/* voff prints each capture exactly as the kernel's ethtool did. */
static void t_roundtrip_captures(void)
{
	static const char *const files[] = {
		"veth.txt", "tap-0.txt", "tap-1ff.txt", "bridge-empty.txt",
		"bridge-veth.txt", "macvlan-veth.txt", "macvlan-veth-off.txt",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct voff_feat_dev d;
		char ifname[32];
		const char *text = slurp(files[i]);

		CHECK_EQ(sscanf(text, "Features for %31[^:]:", ifname), 1);
		parse_file(files[i], &d);
		check_text(print(ifname, &d), slurp(files[i]));
	}
}

static void check_profile(enum voff_feat_profile p, const char *file,
			  const char *ifname)
{
	struct voff_feat_dev d, want;

	CHECK_OK(voff_feat_dev_init(&d, p));
	parse_file(file, &want);
	check_text(print(ifname, &d), slurp(file));
	CHECK_EQ(d.active & ~VOFF_F_GSO_UDP, want.active & ~VOFF_F_GSO_UDP);
}

static void t_profiles(void)
{
	check_profile(VOFF_FEAT_PROFILE_VETH, "veth.txt", "va");
	check_profile(VOFF_FEAT_PROFILE_TAP, "tap-0.txt", "vtap0");
	check_profile(VOFF_FEAT_PROFILE_BRIDGE, "bridge-empty.txt", "br0");
}

static void t_parse_errors(void)
{
	struct voff_feat_dev d;
	unsigned int unk;

	CHECK_EQ(voff_feat_parse_ethtool("sg on\n", &d, NULL), -EINVAL);
	CHECK_EQ(voff_feat_parse_ethtool("tx-scatter-gather: maybe\n", &d,
					 NULL), -EINVAL);
	CHECK_OK(voff_feat_parse_ethtool("no-such-thing: on\n"
					 "tx-scatter-gather: on\n", &d, &unk));
	CHECK_EQ(unk, 1);
	CHECK_EQ(d.active, SG);
	CHECK_EQ(d.hw, SG);
	/* A one-member group line sets its member. */
	CHECK_OK(voff_feat_parse_ethtool("generic-receive-offload: off "
					 "[requested on]\n", &d, NULL));
	CHECK_EQ(d.active, 0);
	CHECK_EQ(d.wanted, VOFF_F_GRO);
	CHECK_EQ(d.hw, VOFF_F_GRO);
}

static void t_lookup_requests(void)
{
	uint64_t m, on;
	int bad = -1;
	char *argv[] = { "sg", "off", "tx-tcp-segmentation", "on", "tso",
			 "off", "rx-gro", "on" };
	char *badv[] = { "sg", "maybe" };
	char *unk[] = { "bogus", "on" };

	CHECK_OK(voff_feat_lookup("tx", &m));
	CHECK_EQ(m, IP4 | HW | IP6 | VOFF_F_FCOE_CRC | VOFF_F_SCTP_CRC);
	CHECK_OK(voff_feat_lookup("tcp-segmentation-offload", &m));
	CHECK_EQ(m, TSO | ECN | MID | TSO6 | VOFF_F_GSO_ACCECN);
	CHECK_OK(voff_feat_lookup("gro", &m));
	CHECK_EQ(m, VOFF_F_GRO); /* not rx-gro-hw nor rx-gro-list */
	CHECK_EQ(voff_feat_lookup("nope", &m), -ENOENT);

	CHECK_OK(voff_feat_parse_requests(argv, 8, &m, &on, &bad));
	CHECK_EQ(m, SG | VOFF_F_FRAGLIST | TSO | ECN | MID | TSO6 |
			    VOFF_F_GSO_ACCECN | VOFF_F_GRO);
	/* ethtool's bitset: a later "tso off" does not undo an "on". */
	CHECK_EQ(on, TSO | VOFF_F_GRO);
	CHECK_EQ(voff_feat_parse_requests(badv, 2, &m, &on, &bad), -EINVAL);
	CHECK_EQ(bad, 1);
	CHECK_EQ(voff_feat_parse_requests(unk, 2, &m, &on, &bad), -ENOENT);
	CHECK_EQ(bad, 0);
	CHECK_EQ(voff_feat_parse_requests(argv, 1, &m, &on, &bad), -EINVAL);
}

/* `ethtool -K` on a veth, as verified on 6.18 (§1.2). */
static void t_veth_requests(void)
{
	static const struct {
		const char *req[6];
		uint64_t off, requested_on;
		const char *rule;
	} c[] = {
		{ { "sg", "off" }, SG | VOFF_F_FRAGLIST | VOFF_F_ALL_TSO | GSO,
		  VOFF_F_ALL_TSO | GSO,
		  "§1.2 rules 2, 5: sg off drops TSO and GSO; AccECN stays" },
		{ { "tx", "off" }, HW | VOFF_F_SCTP_CRC | VOFF_F_ALL_TSO | USO,
		  VOFF_F_ALL_TSO | USO,
		  "§1.2 rules 3, 8: tx off drops TSO and USO" },
		{ { "tso", "off" }, VOFF_F_ALL_TSO | VOFF_F_GSO_ACCECN, 0,
		  "tso names every tx-tcp*-segmentation" },
		{ { "tx-checksum-ip-generic", "off", "tx-checksum-ipv4", "on" },
		  HW | VOFF_F_ALL_TSO | USO, VOFF_F_ALL_TSO | USO,
		  "fixed features cannot be requested" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct voff_feat_dev d;
		uint64_t m, on, before;
		int n = 0;

		while (n < 6 && c[i].req[n])
			n++;
		CHECK_OK(voff_feat_dev_init(&d, VOFF_FEAT_PROFILE_VETH));
		before = d.active;
		CHECK_OK(voff_feat_parse_requests((char *const *)c[i].req, n,
						  &m, &on, NULL));
		voff_feat_dev_request(&d, m, on);
		voff_feat_dev_update(&d);
		CHECK_MSG(d.active == (before & ~c[i].off),
			  "case %zu (%s): active 0x%llx", i, c[i].rule,
			  (unsigned long long)d.active);
		CHECK_MSG((d.wanted & ~d.active & d.hw) == c[i].requested_on,
			  "case %zu (%s): requested-on 0x%llx", i, c[i].rule,
			  (unsigned long long)(d.wanted & ~d.active));
	}
}

static void t_format_one(void)
{
	struct voff_feat_dev d = { .hw = SG | TSO, .wanted = TSO | SG,
				   .active = SG | GSO };
	char b[32];

	CHECK_STR_EQ(voff_feat_format_one(&d, VOFF_FEAT_SG, b, sizeof(b)),
		     "on");
	CHECK_STR_EQ(voff_feat_format_one(&d, VOFF_FEAT_TSO, b, sizeof(b)),
		     "off [requested on]");
	CHECK_STR_EQ(voff_feat_format_one(&d, VOFF_FEAT_GSO, b, sizeof(b)),
		     "on [fixed]");
	d.wanted = 0;
	CHECK_STR_EQ(voff_feat_format_one(&d, VOFF_FEAT_SG, b, sizeof(b)),
		     "on [requested off]");
}

/* ---- §1.3 aggregation, §1.4 stacks --------------------------------------- */

static void t_increment(void)
{
	static const struct {
		uint64_t all, one, mask, out;
		const char *rule;
	} c[] = {
		{ 0, SG | TSO, SG | TSO, SG | TSO,
		  "§1.3 step 2: ONE_FOR_ALL OR-ed in" },
		{ 0, SG | TSO, TSO, TSO, "§1.3 step 2: only within the mask" },
		{ 0, IP4 | IP6, HW, IP4 | IP6,
		  "§1.3 step 1: HW_CSUM in the mask admits IP checksums" },
		{ IP4, HW, HW, HW, "§1.3 step 4: HW_CSUM wins over IP_CSUM" },
		{ VOFF_F_NOCACHE_COPY | VOFF_F_FSO, VOFF_F_FSO, 0, VOFF_F_FSO,
		  "§1.3 step 3: ALL_FOR_ALL AND-ed" },
		{ 0, VOFF_F_RXCSUM | VOFF_F_GRO, ~UINT64_C(0), 0,
		  "§1.3: other bits are not inherited" },
		{ 0, VOFF_F_VLAN_CHALLENGED, 0, VOFF_F_VLAN_CHALLENGED,
		  "§1.3: VLAN_CHALLENGED always passes the mask" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		CHECK_MSG(voff_feat_increment(c[i].all, c[i].one, c[i].mask) ==
				  c[i].out,
			  "case %zu: %s", i, c[i].rule);
}

static void t_intersect(void)
{
	/* §1.4: HW_CSUM on one side stands for IP checksums on the other. */
	CHECK_EQ(voff_feat_intersect(HW | SG, IP4 | SG), IP4 | SG);
	CHECK_EQ(voff_feat_intersect(IP6, HW), IP6);
	CHECK_EQ(voff_feat_intersect(HW | TSO, HW), HW);
	CHECK_EQ(voff_feat_intersect(TSO, TSO6), 0);
}

/* §1.3: the bridge over a veth, compared with the kernel's capture. */
static void t_bridge_veth(void)
{
	struct voff_feat_dev br, veth;

	CHECK_OK(voff_feat_dev_init(&br, VOFF_FEAT_PROFILE_BRIDGE));
	CHECK_OK(voff_feat_dev_init(&veth, VOFF_FEAT_PROFILE_VETH));
	voff_feat_dev_update_bridge(&br, &veth.active, 1);
	check_text(print("br0", &br), slurp("bridge-veth.txt"));
	/* Ports gone: the bridge keeps its own set. */
	voff_feat_dev_update_bridge(&br, NULL, 0);
	CHECK(br.active & VOFF_F_GSO_PARTIAL);
}

/* §1.3: netdev_add_tso_features offers TSO no port has; fix drops it
 * again when no port has SG (verified on 6.18). */
static void t_bridge_add_tso(void)
{
	struct voff_feat_dev br;
	uint64_t port_sg = SG | HW, port_nosg = HW;

	CHECK_OK(voff_feat_dev_init(&br, VOFF_FEAT_PROFILE_BRIDGE));
	voff_feat_dev_update_bridge(&br, &port_sg, 1);
	CHECK_EQ(br.active & (TSO | TSO6), TSO | TSO6);
	CHECK_EQ(br.active & (SG | HW), SG | HW);
	CHECK_EQ(br.active & USO, 0); /* not offered by add_tso */
	voff_feat_dev_update_bridge(&br, &port_nosg, 1);
	CHECK_EQ(br.active & (TSO | TSO6 | SG | GSO), 0);
	CHECK_EQ(br.wanted & (TSO | SG), TSO | SG);
}

/* §1.3: one port with SG is enough (ONE_FOR_ALL); FSO needs all. */
static void t_bond(void)
{
	struct voff_feat_dev bond, l[2];

	CHECK_OK(voff_feat_dev_init(&bond, VOFF_FEAT_PROFILE_BOND));
	CHECK_OK(voff_feat_dev_init(&l[0], VOFF_FEAT_PROFILE_VETH));
	CHECK_OK(voff_feat_dev_init(&l[1], VOFF_FEAT_PROFILE_NONE));
	voff_feat_dev_update_bond(&bond, l, 2);
	CHECK_EQ(bond.active & (SG | HW | TSO | USO), SG | HW | TSO | USO);
	CHECK_EQ(bond.active & VOFF_F_NOCACHE_COPY, 0);
	CHECK_EQ(bond.vlan & (SG | HW), SG | HW);
}

/* §1.4 macvlan: always-on offloads survive a lower with none (§8 (a)). */
static void t_macvlan_captures(void)
{
	struct voff_feat_dev mv, veth;
	uint64_t m, on;
	char *req[] = { "tx", "off", "sg", "off", "tso", "off", "gso", "off" };

	CHECK_OK(voff_feat_dev_init(&mv, VOFF_FEAT_PROFILE_MACVLAN));
	CHECK_OK(voff_feat_dev_init(&veth, VOFF_FEAT_PROFILE_VETH));
	voff_feat_dev_update_macvlan(&mv, veth.active);
	check_text(print("mv0", &mv), slurp("macvlan-veth.txt"));

	CHECK_OK(voff_feat_parse_requests(req, 8, &m, &on, NULL));
	voff_feat_dev_request(&veth, m, on);
	voff_feat_dev_update(&veth);
	CHECK_EQ(veth.active & (SG | HW | TSO | GSO), 0);
	voff_feat_dev_update_macvlan(&mv, veth.active);
	check_text(print("mv0", &mv), slurp("macvlan-veth-off.txt"));
	/* Always on, although the lower device has none of it. */
	CHECK_EQ(mv.active & VOFF_F_MACVLAN_ALWAYS_ON,
		 VOFF_F_MACVLAN_ALWAYS_ON);
	/* GSO follows the lower device. */
	CHECK_EQ(mv.active & GSO, 0);
}

/* §1.4: the always-on recipe for any virtual port; §1.1 UPPER_DISABLES. */
static void t_always_on_sync(void)
{
	uint64_t f;
	struct voff_feat_dev up = { 0 }, low = { 0 };

	/* A port claiming only SG|HW_CSUM|TSO over a lower with nothing. */
	f = voff_feat_always_on(0, 0, SG | HW | TSO, 0);
	CHECK_EQ(voff_feat_fix(f, 0), SG | HW | TSO);
	/* Inheritable bits come from the lower device. */
	f = voff_feat_always_on(VOFF_F_RXCSUM | VOFF_F_HIGHDMA, 0, SG,
				VOFF_F_RXCSUM);
	CHECK_EQ(f, SG | VOFF_F_RXCSUM);
	/* The lower's LRO is dropped unless the port keeps it. */
	f = voff_feat_always_on(VOFF_F_LRO, 0, 0, VOFF_F_LRO);
	CHECK_EQ(f, 0);
	f = voff_feat_always_on(VOFF_F_LRO, VOFF_F_LRO, 0, VOFF_F_LRO);
	CHECK_EQ(f, VOFF_F_LRO);

	/* An upper device without LRO turns it off below (UPPER_DISABLES). */
	low.hw = low.wanted = low.active = VOFF_F_LRO | SG;
	CHECK_EQ(voff_feat_dev_sync_lower(&up, &low), VOFF_F_LRO);
	CHECK_EQ(low.active, SG);
	CHECK_EQ(low.wanted & VOFF_F_LRO, 0);
	up.active = VOFF_F_LRO;
	low.wanted = low.active = VOFF_F_LRO;
	CHECK_EQ(voff_feat_dev_sync_lower(&up, &low), 0);
	CHECK_EQ(low.active, VOFF_F_LRO);
}

/* §1.4 VLAN: own ∩ lower, HW_CSUM offered over an IP-csum lower, TSO then
 * dropped by the rules when the lower has no SG. */
static void t_vlan(void)
{
	struct voff_feat_dev v, lower = { 0 };

	CHECK_OK(voff_feat_dev_init(&v, VOFF_FEAT_PROFILE_VLAN));
	lower.active = lower.vlan = SG | IP4 | TSO | VOFF_F_RXCSUM;
	voff_feat_dev_update_vlan(&v, &lower);
	CHECK_EQ(v.active & (SG | HW | IP4 | TSO), SG | HW | TSO);
	CHECK_EQ(v.active & VOFF_F_GSO_SOFTWARE, VOFF_F_GSO_SOFTWARE);

	lower.active = lower.vlan = IP4;
	voff_feat_dev_update_vlan(&v, &lower);
	CHECK_EQ(v.active & (SG | TSO | GSO), 0);
	CHECK_EQ(v.active & HW, HW);
}

/* ---- §5 TUN/TAP and AF_PACKET -------------------------------------------- */

/* Every TUNSETOFFLOAD value a 6.18 TAP accepted (all 512 tried). */
static const unsigned short tun_accepted[] = {
	0x0, 0x1, 0x3, 0x5, 0x7, 0xb, 0xd, 0xf, 0x11, 0x13, 0x15, 0x17,
	0x1b, 0x1d, 0x1f, 0x61, 0x63, 0x65, 0x67, 0x6b, 0x6d, 0x6f, 0x71,
	0x73, 0x75, 0x77, 0x7b, 0x7d, 0x7f, 0x83, 0x85, 0x87, 0x8b, 0x8d,
	0x8f, 0x93, 0x95, 0x97, 0x9b, 0x9d, 0x9f, 0xe1, 0xe3, 0xe5, 0xe7,
	0xeb, 0xed, 0xef, 0xf1, 0xf3, 0xf5, 0xf7, 0xfb, 0xfd, 0xff, 0x183,
	0x185, 0x187, 0x18b, 0x18d, 0x18f, 0x193, 0x195, 0x197, 0x19b,
	0x19d, 0x19f, 0x1e1, 0x1e3, 0x1e5, 0x1e7, 0x1eb, 0x1ed, 0x1ef,
	0x1f1, 0x1f3, 0x1f5, 0x1f7, 0x1fb, 0x1fd, 0x1ff,
};

static void t_tun_exhaustive(void)
{
	for (unsigned int fl = 0; fl < 0x400; fl++) {
		bool want = false;
		uint64_t f = 0xdead;
		int rc;

		for (size_t i = 0; i < sizeof(tun_accepted) / 2; i++)
			want |= tun_accepted[i] == fl;
		rc = voff_feat_from_tun(fl, &f);
		CHECK_MSG((rc == 0) == want, "flags 0x%x: rc %d", fl, rc);
		if (rc) {
			CHECK_EQ(rc, -EINVAL);
			CHECK_EQ(f, 0xdead);
			continue;
		}
		/* The inverse gives a valid value with the same features. */
		uint64_t g;
		CHECK_OK(voff_feat_from_tun(voff_feat_to_tun(f), &g));
		CHECK_EQ(g, f);
	}
}

static void t_tun_pairs(void)
{
	static const struct {
		unsigned int flags;
		int rc;
		uint64_t f;
		const char *rule;
	} c[] = {
		{ 0x01, 0, HW, "CSUM -> tx-checksum-ip-generic" },
		{ 0x02, -EINVAL, 0, "TSO needs CSUM" },
		{ 0x03, 0, HW | TSO, "CSUM+TSO4" },
		{ 0x0f, 0, HW | TSO | TSO6 | ECN, "TSO_ECN with TSO" },
		{ 0x09, -EINVAL, 0, "TSO_ECN without TSO" },
		{ 0x11, 0, HW, "UFO accepted and ignored" },
		{ 0x10, -EINVAL, 0, "UFO without CSUM" },
		{ 0x21, -EINVAL, 0, "USO4 alone" },
		{ 0x41, -EINVAL, 0, "USO6 alone" },
		{ 0x61, 0, HW | USO, "USO4+USO6 -> tx-udp-segmentation" },
		{ 0x81, -EINVAL, 0, "UDP tunnel without an inner type" },
		{ 0x83, 0, HW | TSO | VOFF_F_GSO_UDP_TUNNEL,
		  "tunnel over TSO" },
		{ 0x103, -EINVAL, 0, "tunnel csum without tunnel" },
		{ 0x1e1, 0, HW | USO | VOFF_F_GSO_UDP_TUNNEL |
				    VOFF_F_GSO_UDP_TUNNEL_CSUM,
		  "tunnel with csum over USO" },
		{ 0x200, -EINVAL, 0, "unknown bit" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t f = 0;

		CHECK_MSG(voff_feat_from_tun(c[i].flags, &f) == c[i].rc &&
				  f == c[i].f,
			  "case %zu: %s", i, c[i].rule);
	}
	CHECK_EQ(voff_feat_to_tun(TSO | SG), 0); /* no CSUM: nothing */
	CHECK_EQ(voff_feat_to_tun(HW | ECN), VOFF_TUN_F_CSUM);
}

/* The TAP after TUNSETOFFLOAD 0x1ff, compared with the kernel's capture. */
static void t_tap_apply(void)
{
	struct voff_feat_dev tap;

	CHECK_OK(voff_feat_dev_init(&tap, VOFF_FEAT_PROFILE_TAP));
	CHECK_OK(voff_feat_tap_apply(&tap, 0x1ff));
	check_text(print("vtap0", &tap), slurp("tap-1ff.txt"));
	CHECK_EQ(voff_feat_tap_apply(&tap, 0x21), -EINVAL);
	check_text(print("vtap0", &tap), slurp("tap-1ff.txt"));
	CHECK_OK(voff_feat_tap_apply(&tap, 0));
	check_text(print("vtap0", &tap), slurp("tap-0.txt"));
}

static void t_vnet_hdr_sizes(void)
{
	static const int tun_ok[] = { 10, 11, 12, 20, 24, 100, 1000 };
	static const int tun_bad[] = { -1, 0, 8, 9 };

	for (size_t i = 0; i < sizeof(tun_ok) / sizeof(int); i++)
		CHECK(voff_tun_hdr_len_is_valid(tun_ok[i]));
	for (size_t i = 0; i < sizeof(tun_bad) / sizeof(int); i++)
		CHECK(!voff_tun_hdr_len_is_valid(tun_bad[i]));
	CHECK(voff_packet_hdr_len_is_valid(0));
	CHECK(voff_packet_hdr_len_is_valid(10));
	CHECK(voff_packet_hdr_len_is_valid(12));
	CHECK(!voff_packet_hdr_len_is_valid(20));
	CHECK(!voff_packet_hdr_len_is_valid(24));
	CHECK(!voff_packet_hdr_len_is_valid(11));
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * voff_feat_print_json(): ethtool --json -k's object, member for line:
 * the ifname escaped, a multi-member group line with null fixed and
 * requested, a one-member group with its member's, the limits last.
 */
static void t_print_json(void)
{
	static char out[16384];
	struct voff_feat_line lines[VOFF_FEAT_LINES_MAX];
	struct voff_feat_dev d;
	struct voff_limits lim;
	size_t n, members = 0;
	FILE *f;

	voff_feat_dev_init(&d, VOFF_FEAT_PROFILE_VETH);
	voff_limits_init(&lim);
	f = fmemopen(out, sizeof(out), "w");
	CHECK(f);
	CHECK_OK(voff_feat_print_json(f, "v\"0", &d, &lim));
	fclose(f);
	CHECK(starts(out, "{\"ifname\":\"v\\\"0\",\"rx-checksumming\":"
			  "{\"active\":true,\"fixed\":false,"
			  "\"requested\":true},\"tx-checksumming\":"
			  "{\"active\":true,\"fixed\":null,"
			  "\"requested\":null},"));
	CHECK(strstr(out, ",\"large-receive-offload\":{\"active\":false,"
			  "\"fixed\":true,\"requested\":false},"));
	CHECK(strstr(out, ",\"limits\":{\"mtu\":1500,\"gso_max_size\":65536,"
			  "\"gso_max_segs\":65535,"));
	CHECK(!strcmp(out + strlen(out) - 2, "}}"));
	/* One member per line of the text, nothing else. */
	n = voff_feat_lines(&d, lines, VOFF_FEAT_LINES_MAX);
	for (const char *p = out; (p = strstr(p, "\"active\":")); p++)
		members++;
	CHECK_EQ(members, n);
	/* Without limits, no "limits" member. */
	f = fmemopen(out, sizeof(out), "w");
	CHECK_OK(voff_feat_print_json(f, NULL, &d, NULL));
	fclose(f);
	CHECK(starts(out, "{\"ifname\":\"\","));
	CHECK(!strstr(out, "limits"));
}

CHECK_MAIN(CHECK_TEST(t_table_bits_unique), CHECK_TEST(t_gso_ok),
	   CHECK_TEST(t_fix_rules), CHECK_TEST(t_fix_random),
	   CHECK_TEST(t_roundtrip_captures), CHECK_TEST(t_profiles),
	   CHECK_TEST(t_parse_errors), CHECK_TEST(t_lookup_requests),
	   CHECK_TEST(t_veth_requests), CHECK_TEST(t_format_one),
	   CHECK_TEST(t_increment), CHECK_TEST(t_intersect),
	   CHECK_TEST(t_bridge_veth), CHECK_TEST(t_bridge_add_tso),
	   CHECK_TEST(t_bond), CHECK_TEST(t_macvlan_captures),
	   CHECK_TEST(t_vlan), CHECK_TEST(t_always_on_sync),
	   CHECK_TEST(t_tun_exhaustive),
	   CHECK_TEST(t_tun_pairs), CHECK_TEST(t_tap_apply),
	   CHECK_TEST(t_vnet_hdr_sizes), CHECK_TEST(t_print_json))
