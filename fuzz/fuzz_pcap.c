/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pcap.c - libFuzzer target for the capture-file reader (pcap.c),
 * which `voff gso`, `voff gro`, `voff inspect` and pcap: ports feed with
 * files nobody vetted
 *
 * The input is a whole file, handed over through a memfd and its
 * /proc/self/fd path so the reader opens it as it opens any file.  Every
 * frame is read (at most MAX_FRAMES) and parsed from where the file's link
 * type says frames begin.  Properties: no crash or out-of-bounds access;
 * voff_pcap_read() returns only what pcap.h documents; a frame it returns
 * lies within the packet's buffer; a damaged file ends the loop.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <voff/voff.h>

#define MAX_FRAMES 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct voff_pool *pool;

static void die_if(int cond)
{
	if (cond)
		abort();
}

static void read_all(struct voff_pcap *pc, struct voff_pkt *pkt)
{
	enum voff_parse_start start = voff_pcap_start(pc);

	die_if(start != VOFF_PARSE_ETH && start != VOFF_PARSE_IP);
	for (int i = 0; i < MAX_FRAMES; i++) {
		struct voff_parsed p;
		int r = voff_pcap_read(pc, pkt);

		if (r == 0 || r == VOFF_E_PCAP_FORMAT ||
		    r == VOFF_E_PCAP_TRUNC || r == -EIO)
			return;
		die_if(r != 1 && r != VOFF_E_PCAP_SNAP && r != VOFF_E_TOO_BIG);
		if (r == VOFF_E_TOO_BIG) {
			die_if(pkt->len != 0);
			continue;
		}
		die_if(pkt->len > VOFF_PKT_SUPER_ROOM);
		/* A cut frame had more bytes on the wire, a whole one as many. */
		die_if(r == VOFF_E_PCAP_SNAP ? voff_pcap_orig_len(pc) <= pkt->len
					     : voff_pcap_orig_len(pc) != pkt->len);
		voff_parse(voff_pkt_data(pkt), pkt->len, start, &p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct voff_pcap *pc;
	struct voff_pkt *pkt;
	char path[64];
	int fd;

	if (!pool && voff_pool_new(&pool, 1, VOFF_PKT_SUPER_ROOM))
		abort();
	fd = memfd_create("fuzz-pcap", MFD_CLOEXEC);
	die_if(fd < 0);
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);

		die_if(n <= 0);
		off += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (voff_pcap_open_read(&pc, path, NULL, 0) == 0) {
		die_if(voff_pkt_alloc(pool, &pkt) != 0);
		read_all(pc, pkt);
		voff_pkt_free(pkt);
		voff_pcap_close(pc);
	}
	close(fd);
	return 0;
}
