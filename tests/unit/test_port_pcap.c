/* SPDX-License-Identifier: MIT */
/*
 * test_port_pcap.c - the capture-file port: what a sink writes a source
 * reads back byte for byte, super-packets whole, Ethernet and raw IP; a
 * source ends with 0; bad configurations and files are refused
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <voff/err.h>
#include <voff/pkt.h>
#include <voff/port.h>

#include "check.h"
#include "frames.h"

static char path[64];

static void tmp_path(void)
{
	snprintf(path, sizeof(path), "/tmp/voff-port-pcap-%d.pcap",
		 (int)getpid());
}

static struct voff_pkt *frame(struct voff_pool *pool, bool l3,
			      size_t payload, uint8_t seed)
{
	static uint8_t buf[70000];
	struct voff_pkt *pkt;
	struct tf b;
	size_t len;

	tf_init(&b, buf, sizeof(buf));
	if (!l3)
		tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	tf_tcp(&b, &(struct tf_l4){ .seq = 7, .flags = TF_ACK });
	tf_payload(&b, payload, seed);
	len = tf_finish(&b);
	CHECK(len > 0);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, buf, (uint32_t)len));
	return pkt;
}

static void roundtrip(bool l3)
{
	static const size_t sizes[] = { 0, 1, 1460, 30000, 65000 };
	const size_t n = sizeof(sizes) / sizeof(sizes[0]);
	static uint8_t copy[5][70000];
	struct voff_port_stats st;
	struct voff_port_info in;
	struct voff_pool *pool;
	struct voff_port *sink, *src;
	struct voff_batch b;
	uint32_t len[5];
	uint64_t bytes = 0;

	tmp_path();
	CHECK_OK(voff_pool_new(&pool, 16, VOFF_PKT_SUPER_ROOM));
	CHECK_OK(voff_port_open(&sink, &(struct voff_port_cfg){
					       .kind = VOFF_PORT_PCAP,
					       .sink = path,
					       .flags = l3 ? VOFF_PORT_F_L3 :
							     0 }));
	voff_batch_init(&b);
	for (size_t i = 0; i < n; i++) {
		struct voff_pkt *pkt = frame(pool, l3, sizes[i], (uint8_t)i);

		if (sizes[i] > 1460) {	/* stored whole, as a super-packet */
			pkt->csum = VOFF_CSUM_PARTIAL;
			pkt->csum_start = l3 ? 20 : 34;
			pkt->csum_offset = 16;
			pkt->gso_type = VOFF_GSO_TCPV4;
			pkt->gso_size = 1460;
		}
		len[i] = pkt->len;
		bytes += pkt->len;
		memcpy(copy[i], voff_pkt_data(pkt), pkt->len);
		CHECK_OK(voff_batch_add(&b, pkt));
	}
	CHECK_EQ(voff_port_tx(sink, &b), (int)n);
	voff_port_stats(sink, &st);
	CHECK_EQ(st.tx_packets, n);
	CHECK_EQ(st.tx_bytes, bytes);
	CHECK_EQ(st.tx_gso, 2);
	voff_port_close(sink);
	CHECK_EQ(voff_pool_in_use(pool), 0);

	CHECK_OK(voff_port_open(&src, &(struct voff_port_cfg){
					      .kind = VOFF_PORT_PCAP,
					      .name = path,
					      .want = VOFF_TUN_F_TCP }));
	voff_port_info(src, &in);
	CHECK_EQ(in.l3, l3);
	CHECK_EQ(in.rx_off, 0);
	CHECK_EQ(in.refused, VOFF_TUN_F_TCP);
	CHECK_EQ(in.vnet_hdr_len, 0);
	CHECK_EQ(voff_port_fd(src), -1);
	voff_batch_init(&b);
	CHECK_EQ(voff_port_rx(src, pool, &b), (int)n);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ(b.pkts[i]->len, len[i]);
		CHECK_MEM_EQ(voff_pkt_data(b.pkts[i]), copy[i], len[i]);
		CHECK_EQ(b.pkts[i]->gso_type, 0);
		CHECK_GE(voff_pkt_headroom(b.pkts[i]), VOFF_PKT_HEADROOM);
	}
	voff_batch_free(&b);
	CHECK_EQ(voff_port_rx(src, pool, &b), 0);	/* end of file */
	CHECK_EQ(voff_port_rx(src, pool, &b), 0);
	voff_port_stats(src, &st);
	CHECK_EQ(st.rx_packets, n);
	CHECK_EQ(st.rx_bytes, bytes);
	/* A source is not a sink. */
	CHECK_OK(voff_batch_add(&b, frame(pool, l3, 10, 0)));
	CHECK_EQ(voff_port_tx(src, &b), -EOPNOTSUPP);
	voff_port_stats(src, &st);
	CHECK_EQ(st.tx_dropped, 1);
	voff_port_close(src);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
	unlink(path);
}

static void t_ethernet_roundtrip(void)
{
	roundtrip(false);
}

static void t_raw_ip_roundtrip(void)
{
	roundtrip(true);
}

/* A batch larger than what is left, and a pool smaller than the file. */
static void t_source_reads_in_batches(void)
{
	struct voff_pool *pool;
	struct voff_port *sink, *src;
	struct voff_batch b;
	int total = 0, r;

	tmp_path();
	CHECK_OK(voff_pool_new(&pool, 100, 2048));
	CHECK_OK(voff_port_open(&sink, &(struct voff_port_cfg){
					       .kind = VOFF_PORT_PCAP,
					       .sink = path }));
	for (int k = 0; k < 3; k++) {
		voff_batch_init(&b);
		for (int i = 0; i < 50; i++)
			CHECK_OK(voff_batch_add(&b, frame(pool, false, 100,
							  (uint8_t)i)));
		CHECK_EQ(voff_port_tx(sink, &b), 50);
	}
	voff_port_close(sink);
	CHECK_OK(voff_port_open(&src, &(struct voff_port_cfg){
					      .kind = VOFF_PORT_PCAP,
					      .name = path }));
	voff_batch_init(&b);
	CHECK_EQ(voff_port_rx(src, pool, &b), VOFF_BATCH_MAX);
	voff_batch_free(&b);
	while ((r = voff_port_rx(src, pool, &b)) > 0) {
		total += r;
		voff_batch_free(&b);
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(total + VOFF_BATCH_MAX, 150);
	voff_port_close(src);
	voff_pool_free(pool);
	unlink(path);
}

static void t_bad_files_and_configs(void)
{
	struct voff_port *p;

	CHECK_EQ(voff_port_open(&p, &(struct voff_port_cfg){
					    .kind = VOFF_PORT_PCAP }),
		 -EINVAL);
	CHECK_EQ(voff_port_open(&p, &(struct voff_port_cfg){
					    .kind = VOFF_PORT_PCAP,
					    .name = "/nonexistent/x.pcap" }),
		 -ENOENT);
	tmp_path();
	{
		FILE *f = fopen(path, "w");

		CHECK(f != NULL);
		fputs("this is not a capture file at all, not even close\n", f);
		fclose(f);
	}
	CHECK_EQ(voff_port_open(&p, &(struct voff_port_cfg){
					    .kind = VOFF_PORT_PCAP,
					    .name = path }),
		 VOFF_E_PCAP_FORMAT);
	unlink(path);
}

CHECK_MAIN(CHECK_TEST(t_ethernet_roundtrip), CHECK_TEST(t_raw_ip_roundtrip),
	   CHECK_TEST(t_source_reads_in_batches),
	   CHECK_TEST(t_bad_files_and_configs))
