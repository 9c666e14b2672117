/* SPDX-License-Identifier: MIT */
/*
 * vectors.h - the golden GSO and GRO vectors of tests/vectors/
 * (vectors.c): their files, the frame summaries of case.json, and the
 * replay of a case through voff
 *
 * A case is a directory with in.pcap (what went into the kernel), out.pcap
 * (what the kernel made of it) and case.json (how; docs/vectors.md has the
 * schema).  The generator (tests/vectors/gen_vectors.c) writes them with
 * these helpers and then replays each case; test_vectors.c replays every
 * committed case.  One replay serves both, so a vector the generator
 * accepted is exactly a vector the test passes.
 */
#ifndef VOFF_TEST_VECTORS_H
#define VOFF_TEST_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include <voff/vnet.h>

/* Frames a pcap of a case may hold. */
#define VEC_MAX_FRAMES 512

/**
 * struct vec_frames - the frames of one pcap, each a malloc'd copy
 * @n:		frames in use
 * @d:		their bytes
 * @len:	their lengths
 */
struct vec_frames {
	int n;
	uint8_t *d[VEC_MAX_FRAMES];
	uint32_t len[VEC_MAX_FRAMES];
};

/* Append a copy of @len bytes at @d to @f. */
void vec_frames_add(struct vec_frames *f, const uint8_t *d, uint32_t len);

/* Free every frame of @f and empty it. */
void vec_frames_free(struct vec_frames *f);

/*
 * Write @f to @path as an Ethernet pcap (nanosecond timestamps: frame i at
 * i + 1 microseconds, so that the file depends only on the frames).
 * Return: 0 or a negative errno.
 */
int vec_pcap_write(const char *path, const struct vec_frames *f);

/* Read every frame of the pcap at @path into @f; 0 or a negative error. */
int vec_pcap_read(const char *path, struct vec_frames *f);

/*
 * A frame as case.json summarizes it: length, VLAN tags, the outer IP and
 * UDP of a tunnel, the (inner) IP header's fields, the TCP or UDP header's
 * fields with the checksum field's value, payload bytes.
 */
json_object *vec_summary(const uint8_t *d, uint32_t len);

/* A vnet header of @size bytes (10 or 24) as case.json records it. */
json_object *vec_vnet_json(const struct voff_vnet_hdr *h, unsigned int size);

/*
 * The header of a case.json vnet_hdr object @o into @h and its size;
 * Return: 0, or -EINVAL when a field is missing.
 */
int vec_vnet_parse(json_object *o, struct voff_vnet_hdr *h,
		   unsigned int *size);

/* Write @o to @path as indented JSON (short objects on one line). */
int vec_json_write(const char *path, json_object *o);

/**
 * struct vec_result - what a replay of one case found
 * @n_out:	outputs voff produced
 * @order:	for voff's output i, the out.pcap frame it equals
 * @exact:	@order is 0, 1, 2, ...: voff produced out.pcap as it is
 * @member_of:	GRO: for input frame i, the out.pcap frame it went into
 * @err:	what differed, when the replay fails
 */
struct vec_result {
	int n_out;
	int order[VEC_MAX_FRAMES];
	bool exact;
	int member_of[VEC_MAX_FRAMES];
	char err[256];
};

/**
 * vec_replay() - run the case in directory @dir through voff
 * @dir:	a case directory (in.pcap, out.pcap, case.json)
 * @r:		receives the result
 *
 * GSO: the input frame is decoded with its vnet header
 * (voff_vnet_decode()) and segmented (voff_gso_segment()) with the case's
 * checksum mode and IPv6 fragment ID.  GRO: the input frames are offered
 * in order to an engine with the case's voff configuration, then flushed
 * as one batch.  Every voff output must equal one out.pcap frame (bytes,
 * and the checksum state and GSO fields case.json gives it), each frame
 * used once; @r->order says which.
 *
 * Return: 0 when every output matched (@r->exact says whether in order),
 * -1 with @r->err set otherwise.
 */
int vec_replay(const char *dir, struct vec_result *r);

#endif /* VOFF_TEST_VECTORS_H */
