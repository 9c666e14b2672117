/* SPDX-License-Identifier: MIT */
/*
 * test_sample.c - the generator of the bundled sample captures, and the
 * test that keeps them honest
 *
 * tests/data/sample.pcap (Ethernet) and tests/data/sample-rawip.pcap (raw
 * IP) are what the README's first command shows with `voff inspect`: one
 * frame of each kind voff parses, plus a bad checksum, malformed frames
 * and a 64 KiB super-packet.  They are built here with the test frame
 * builder (tests/lib/frames.h) and voff_pcap_write_raw(), with fixed
 * timestamps, so the same program always writes the same bytes.
 *
 *	test_sample --write DIR	(re)write DIR/sample.pcap and
 *				DIR/sample-rawip.pcap
 *	test_sample [TEST...]	run the tests: regenerate into /tmp and
 *				compare byte for byte with the committed
 *				files in $VOFF_DATA
 *
 * So the committed files can never drift from this description: change a
 * frame here, run --write, commit both.  The tests also parse every frame
 * and check its layers, so the sample really shows what it claims.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <voff/voff.h>

#include "check.h"
#include "frames.h"

/* 2025-11-29 00:00:00 UTC; frame i is stamped i ms + i ns later. */
#define SAMPLE_T0 1764374400000000000ull

#define FRAME_MAX (65535 + 14 + 64)

/**
 * struct sample - one frame of a sample file
 * @what:	what the frame shows (printed on failure)
 * @build:	fills the builder; returns the frame length
 * @layers:	the layers voff_parse() must find, comma-separated
 * @err:	the error it must return (0 for a well-formed frame)
 */
struct sample {
	const char *what;
	size_t (*build)(struct tf *b);
	const char *layers;
	int err;
};

/* ---- Ethernet frames ----------------------------------------------------- */

static size_t tcp4(struct tf *b)
{
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 1, .df = true });
	tf_tcp(b, &(struct tf_l4){ .sport = 40000, .dport = 80, .seq = 1000,
				   .ack = 2000, .flags = TF_ACK | TF_PSH,
				   .opt_len = 12, .tsval = 1, .tsecr = 2 });
	tf_payload(b, 64, 0);
	return tf_finish(b);
}

static size_t tcp6_ext(struct tf *b)
{
	tf_eth(b);
	tf_ipv6(b, &(struct tf_ip){ .flow = 0x12345 });
	tf_ipv6_ext(b, TF_EXT_HOPOPTS, 8);
	tf_ipv6_ext(b, TF_EXT_DSTOPTS, 16);
	tf_tcp(b, &(struct tf_l4){ .sport = 40001, .dport = 443, .seq = 7,
				   .flags = TF_SYN, .opt_len = 20 });
	return tf_finish(b);
}

/* UDP over IPv4 without a checksum: the verdict is "none". */
static size_t udp4_nocsum(struct tf *b)
{
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 3 });
	tf_udp(b, &(struct tf_l4){ .sport = 5353, .dport = 53,
				   .no_csum = true });
	tf_payload(b, 30, 0x40);
	return tf_finish(b);
}

static size_t vlan_tcp4(struct tf *b)
{
	tf_eth(b);
	tf_vlan(b, TF_TPID_8021Q, 100);
	tf_ipv4(b, &(struct tf_ip){ .id = 4, .tos = 0x02 });
	tf_tcp(b, &(struct tf_l4){ .sport = 22, .dport = 50000, .seq = 9,
				   .ack = 10, .flags = TF_ACK });
	tf_payload(b, 100, 0x10);
	return tf_finish(b);
}

static size_t qinq_udp6(struct tf *b)
{
	tf_eth(b);
	tf_vlan(b, TF_TPID_8021AD, 200);
	tf_vlan(b, TF_TPID_8021Q, 300);
	tf_ipv6(b, &(struct tf_ip){ 0 });
	tf_udp(b, &(struct tf_l4){ .sport = 1234, .dport = 5678 });
	tf_payload(b, 48, 0x20);
	return tf_finish(b);
}

static size_t ipv4_opts(struct tf *b)
{
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 6, .opt_len = 12 });
	tf_udp(b, &(struct tf_l4){ .sport = 7, .dport = 7 });
	tf_payload(b, 20, 0x30);
	return tf_finish(b);
}

/* A non-first IPv4 fragment: no L4 header, all payload. */
static size_t ipv4_frag(struct tf *b)
{
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 7, .frag_off = 185, .proto = 17 });
	tf_payload(b, 80, 0x50);
	return tf_finish(b);
}

/* The layer list of the issue: IPv6/TCP in VXLAN over a VLAN. */
static size_t vxlan_tcp6(struct tf *b)
{
	tf_eth(b);
	tf_vlan(b, TF_TPID_8021Q, 10);
	tf_ipv4(b, &(struct tf_ip){ .id = 8, .df = true });
	tf_udp(b, &(struct tf_l4){ .sport = 49152, .dport = 4789 });
	tf_vxlan(b, 4242);
	tf_eth(b);
	tf_ipv6(b, &(struct tf_ip){ 0 });
	tf_tcp(b, &(struct tf_l4){ .sport = 33000, .dport = 8080, .seq = 11,
				   .ack = 12, .flags = TF_ACK,
				   .opt_len = 12, .tsval = 3, .tsecr = 4 });
	tf_payload(b, 200, 0x60);
	return tf_finish(b);
}

static size_t geneve_opts(struct tf *b)
{
	tf_eth(b);
	tf_ipv6(b, &(struct tf_ip){ 0 });
	tf_udp(b, &(struct tf_l4){ .sport = 50001, .dport = 6081 });
	tf_geneve(b, 77, 8);
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 9 });
	tf_udp(b, &(struct tf_l4){ .sport = 1000, .dport = 2000 });
	tf_payload(b, 40, 0x70);
	return tf_finish(b);
}

static size_t gre_full(struct tf *b)
{
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 10 });
	tf_gre(b, true, true, true);
	tf_ipv4(b, &(struct tf_ip){ .id = 11 });
	tf_tcp(b, &(struct tf_l4){ .sport = 3000, .dport = 4000, .seq = 13,
				   .flags = TF_ACK });
	tf_payload(b, 60, 0x80);
	return tf_finish(b);
}

static size_t bad_tcp_csum(struct tf *b)
{
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 12 });
	tf_tcp(b, &(struct tf_l4){ .sport = 40000, .dport = 80, .seq = 1064,
				   .flags = TF_ACK, .bad_csum = true });
	tf_payload(b, 16, 0x90);
	return tf_finish(b);
}

/*
 * Captured short, inside the TCP header: the parser names the header it
 * ran out in (a cut inside the payload would give trunc_l3).
 */
static size_t truncated(struct tf *b)
{
	size_t len;

	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 13 });
	tf_tcp(b, &(struct tf_l4){ .sport = 40000, .dport = 80 });
	tf_payload(b, 100, 0);
	len = tf_finish(b);
	return len ? 14 + 20 + 10 : 0;
}

/* An IPv4 header length field of 16 bytes (IHL 4), below the minimum. */
static size_t bad_ihl(struct tf *b)
{
	size_t len;

	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 14 });
	tf_udp(b, &(struct tf_l4){ .sport = 9, .dport = 9 });
	tf_payload(b, 10, 0);
	len = tf_finish(b);
	if (len)
		b->buf[tf_off(b, 1)] = 0x44;
	return len;
}

/* A TSO-style super-packet: one 64 KiB IPv4 datagram (total length 65535). */
static size_t super_tcp4(struct tf *b)
{
	tf_eth(b);
	tf_ipv4(b, &(struct tf_ip){ .id = 15, .df = true });
	tf_tcp(b, &(struct tf_l4){ .sport = 40000, .dport = 80, .seq = 5000,
				   .ack = 2000, .flags = TF_ACK | TF_PSH,
				   .opt_len = 12, .tsval = 5, .tsecr = 6 });
	tf_payload(b, 65535 - 20 - 32, 0xA0);
	return tf_finish(b);
}

static const struct sample eth_samples[] = {
	{ "TCP/IPv4", tcp4, "eth,ipv4,tcp", 0 },
	{ "TCP/IPv6 with extension headers", tcp6_ext,
	  "eth,ipv6,ipv6_hopopts,ipv6_dstopts,tcp", 0 },
	{ "UDP/IPv4 without checksum", udp4_nocsum, "eth,ipv4,udp", 0 },
	{ "802.1Q", vlan_tcp4, "eth,vlan,ipv4,tcp", 0 },
	{ "QinQ", qinq_udp6, "eth,qinq,vlan,ipv6,udp", 0 },
	{ "IPv4 options", ipv4_opts, "eth,ipv4,udp", 0 },
	{ "IPv4 fragment", ipv4_frag, "eth,ipv4", 0 },
	{ "VXLAN", vxlan_tcp6, "eth,vlan,ipv4,udp,vxlan,eth,ipv6,tcp", 0 },
	{ "Geneve with options", geneve_opts,
	  "eth,ipv6,udp,geneve,eth,ipv4,udp", 0 },
	{ "GRE with checksum, key, sequence", gre_full,
	  "eth,ipv4,gre,ipv4,tcp", 0 },
	{ "bad TCP checksum", bad_tcp_csum, "eth,ipv4,tcp", 0 },
	{ "truncated", truncated, "eth,ipv4", VOFF_E_TRUNC_TCP },
	{ "IPv4 IHL 4", bad_ihl, "eth", VOFF_E_IPV4_IHL },
	{ "64 KiB super-packet", super_tcp4, "eth,ipv4,tcp", 0 },
};

/* ---- raw IP frames ------------------------------------------------------- */

static size_t raw_tcp4(struct tf *b)
{
	tf_ipv4(b, &(struct tf_ip){ .id = 21, .df = true });
	tf_tcp(b, &(struct tf_l4){ .sport = 40000, .dport = 80, .seq = 1,
				   .flags = TF_SYN, .opt_len = 20 });
	return tf_finish(b);
}

static size_t raw_udp6(struct tf *b)
{
	tf_ipv6(b, &(struct tf_ip){ 0 });
	tf_udp(b, &(struct tf_l4){ .sport = 5000, .dport = 6000 });
	tf_payload(b, 25, 0x11);
	return tf_finish(b);
}

/* The first fragment of an IPv6 datagram, with its fragment header. */
static size_t raw_frag6(struct tf *b)
{
	tf_ipv6(b, &(struct tf_ip){ 0 });
	tf_ipv6_frag(b, 0, true, 0xabcd);
	tf_udp(b, &(struct tf_l4){ .sport = 5001, .dport = 6001 });
	tf_payload(b, 56, 0x22);
	return tf_finish(b);
}

/* A wrong IPv4 header checksum (one bit flipped). */
static size_t raw_bad_ip_csum(struct tf *b)
{
	size_t len;

	tf_ipv4(b, &(struct tf_ip){ .id = 24 });
	tf_udp(b, &(struct tf_l4){ .sport = 5002, .dport = 6002 });
	tf_payload(b, 12, 0x33);
	len = tf_finish(b);
	if (len)
		b->buf[tf_off(b, 0) + 11] ^= 0x01;
	return len;
}

static const struct sample raw_samples[] = {
	{ "raw TCP/IPv4", raw_tcp4, "ipv4,tcp", 0 },
	{ "raw UDP/IPv6", raw_udp6, "ipv6,udp", 0 },
	{ "raw IPv6 first fragment", raw_frag6, "ipv6,ipv6_frag,udp", 0 },
	{ "raw bad IPv4 header checksum", raw_bad_ip_csum, "ipv4,udp", 0 },
};

#define N_ETH (sizeof(eth_samples) / sizeof(eth_samples[0]))
#define N_RAW (sizeof(raw_samples) / sizeof(raw_samples[0]))

/* ---- writing ------------------------------------------------------------- */

static int write_file(const char *path, enum voff_parse_start start,
		      const struct sample *s, size_t n)
{
	static uint8_t buf[FRAME_MAX];
	struct voff_pcap *pc;
	int rc;

	rc = voff_pcap_open_write(&pc, path, start);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		struct tf b;
		size_t len;

		tf_init(&b, buf, sizeof(buf));
		len = s[i].build(&b);
		if (!len) {
			fprintf(stderr, "%s: frame builder overflow\n",
				s[i].what);
			rc = -EOVERFLOW;
			break;
		}
		rc = voff_pcap_write_raw(pc, buf, (uint32_t)len,
					 SAMPLE_T0 + i * 1000001ull);
	}
	if (voff_pcap_close(pc) && !rc)
		rc = -EIO;
	return rc;
}

static int write_samples(const char *dir)
{
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/sample.pcap", dir);
	rc = write_file(path, VOFF_PARSE_ETH, eth_samples, N_ETH);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/sample-rawip.pcap", dir);
	return write_file(path, VOFF_PARSE_IP, raw_samples, N_RAW);
}

/* ---- tests --------------------------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *n)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	if (stat(path, &st) != 0)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	CHECK(buf);
	f = fopen(path, "rb");
	CHECK(f);
	*n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

static const char *data_dir(void)
{
	const char *d = getenv("VOFF_DATA");

	if (!d)
		CHECK_SKIP("VOFF_DATA is not set (run through ctest)");
	return d;
}

static void compare(const char *name)
{
	char tmp[256], committed[4096];
	uint8_t *a, *b;
	size_t na = 0, nb = 0;

	snprintf(tmp, sizeof(tmp), "/tmp/voff-test-sample-%ld",
		 (long)getpid());
	CHECK_OK(mkdir(tmp, 0700));
	CHECK_OK(write_samples(tmp));
	snprintf(committed, sizeof(committed), "%s/%s", data_dir(), name);
	snprintf(tmp + strlen(tmp), sizeof(tmp) - strlen(tmp), "/%s", name);
	a = slurp(tmp, &na);
	b = slurp(committed, &nb);
	CHECK(a);
	CHECK_MSG(b, "%s is missing: run test_sample --write %s", committed,
		  data_dir());
	CHECK_MSG(na == nb,
		  "%s has %zu bytes, the generator writes %zu: run "
		  "test_sample --write %s and commit",
		  committed, nb, na, data_dir());
	CHECK_MEM_EQ(a, b, na);
	free(a);
	free(b);
	snprintf(tmp, sizeof(tmp), "/tmp/voff-test-sample-%ld/sample.pcap",
		 (long)getpid());
	unlink(tmp);
	snprintf(tmp, sizeof(tmp),
		 "/tmp/voff-test-sample-%ld/sample-rawip.pcap", (long)getpid());
	unlink(tmp);
	snprintf(tmp, sizeof(tmp), "/tmp/voff-test-sample-%ld",
		 (long)getpid());
	rmdir(tmp);
}

static void t_sample_eth_committed(void)
{
	compare("sample.pcap");
}

static void t_sample_rawip_committed(void)
{
	compare("sample-rawip.pcap");
}

/* Every frame parses into the layers (or the error) it was built for. */
static void check_layers(const struct sample *s, size_t n,
			 enum voff_parse_start start)
{
	static uint8_t buf[FRAME_MAX];

	for (size_t i = 0; i < n; i++) {
		struct voff_parsed p;
		char got[256] = "";
		struct tf b;
		size_t len;
		int rc;

		tf_init(&b, buf, sizeof(buf));
		len = s[i].build(&b);
		CHECK_MSG(len, "%s: builder overflow", s[i].what);
		rc = voff_parse(buf, len, start, &p);
		for (unsigned int j = 0; j < p.n_layers; j++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
				 "%s%s", j ? "," : "",
				 voff_proto_name(p.layers[j].proto));
		CHECK_MSG(rc == s[i].err, "%s: parse gives %s, expected %s",
			  s[i].what, voff_err_name(rc),
			  voff_err_name(s[i].err));
		CHECK_MSG(!strcmp(got, s[i].layers),
			  "%s: layers %s, expected %s", s[i].what, got,
			  s[i].layers);
	}
}

static void t_sample_eth_layers(void)
{
	check_layers(eth_samples, N_ETH, VOFF_PARSE_ETH);
}

static void t_sample_rawip_layers(void)
{
	check_layers(raw_samples, N_RAW, VOFF_PARSE_IP);
}

int main(int argc, char **argv)
{
	static const struct check_test tests[] = {
		CHECK_TEST(t_sample_eth_committed),
		CHECK_TEST(t_sample_rawip_committed),
		CHECK_TEST(t_sample_eth_layers),
		CHECK_TEST(t_sample_rawip_layers),
	};
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "--write")) {
		const char *dir = argc >= 3 ? argv[2] : getenv("VOFF_DATA");

		if (!dir) {
			fprintf(stderr, "usage: %s --write DIR\n", argv[0]);
			return 2;
		}
		rc = write_samples(dir);
		if (rc) {
			fprintf(stderr, "%s: %s\n", dir, voff_strerror(rc));
			return 1;
		}
		printf("wrote %s/sample.pcap (%zu frames) and "
		       "%s/sample-rawip.pcap (%zu frames)\n",
		       dir, N_ETH, dir, N_RAW);
		return 0;
	}
	return check_main(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
