/* SPDX-License-Identifier: MIT */
/*
 * test_vectors.c - the golden vectors of tests/vectors/ stay valid: every
 * committed case is replayed through voff (tests/lib/vectors.c, the replay
 * the generator ran) and must give out.pcap byte for byte, with the
 * checksum state and GSO fields case.json records, in the order and with
 * the input-to-output mapping case.json records
 *
 * The vectors themselves come from the running kernel
 * (tests/vectors/generate.sh, root only); this test needs no root.  The
 * directory comes from VOFF_VECTORS (CTest sets it).  docs/vectors.md
 * describes the format.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "vectors.h"

/* Fewer cases than this means the tree lost some. */
#define MIN_CASES 20

static const char *root(void)
{
	const char *d = getenv("VOFF_VECTORS");

	if (!d || !*d)
		CHECK_SKIP("VOFF_VECTORS is not set (CTest sets it)");
	return d;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *x = NULL;

	CHECK_MSG(json_object_object_get_ex(o, k, &x), "no \"%s\"", k);
	return x;
}

static const char *get_str(json_object *o, const char *k)
{
	return json_object_get_string(get(o, k));
}

/* case.json's record of voff's order and of each output's inputs. */
static void check_record(const char *dir, json_object *c,
			 const struct vec_result *r, bool gro)
{
	json_object *v = get(c, "voff");
	json_object *outs = get(c, "output");
	const char *agrees = get_str(v, "agrees");

	CHECK_STR_EQ(agrees, r->exact ? "exact" : "reordered");
	if (!r->exact) {
		json_object *ord = get(v, "order");

		CHECK_EQ(json_object_array_length(ord), r->n_out);
		for (int k = 0; k < r->n_out; k++)
			CHECK_EQ(json_object_get_int(
					 json_object_array_get_idx(ord, k)),
				 r->order[k]);
	}
	for (int j = 0; gro && j < r->n_out; j++) {
		json_object *in = get(json_object_array_get_idx(outs, j),
				      "inputs");
		int n = (int)json_object_array_length(get(c, "input")), m = 0;

		for (int i = 0; i < n; i++) {
			if (r->member_of[i] != j)
				continue;
			CHECK_MSG(json_object_get_int(json_object_array_get_idx(
					  in, (size_t)m)) == i,
				  "%s: output %d: inputs differ", dir, j);
			m++;
		}
		CHECK_EQ(json_object_array_length(in), m);
	}
}

static void one_case(const char *kind, const char *name)
{
	static struct vec_result r;
	char dir[4096], path[4200];
	json_object *c;

	snprintf(dir, sizeof(dir), "%s/%s/%s", root(), kind, name);
	CHECK_MSG(vec_replay(dir, &r) == 0, "%s: %s", dir, r.err);
	snprintf(path, sizeof(path), "%s/case.json", dir);
	c = json_object_from_file(path);
	CHECK(c != NULL);
	CHECK_STR_EQ(get_str(c, "name"), name);
	CHECK_STR_EQ(get_str(c, "kind"), kind);
	CHECK_EQ(json_object_get_int(get(c, "schema")), 1);
	CHECK(strlen(get_str(get(c, "kernel"), "release")) > 0);
	if (!strcmp(kind, "gso"))
		CHECK_MSG(r.exact, "%s: GSO segments out of order", dir);
	check_record(dir, c, &r, !strcmp(kind, "gro"));
	json_object_put(c);
}

static int is_case(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Replay every case of @kind; Return: how many there were. */
static int all(const char *kind)
{
	struct dirent **list;
	char dir[4096];
	int n;

	snprintf(dir, sizeof(dir), "%s/%s", root(), kind);
	n = scandir(dir, &list, is_case, alphasort);
	CHECK_MSG(n >= 0, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		one_case(kind, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	fprintf(stderr, "%d %s cases replayed\n", n, kind);
	return n;
}

static void t_gso_vectors(void)
{
	CHECK_GE(all("gso"), MIN_CASES);
}

static void t_gro_vectors(void)
{
	CHECK_GE(all("gro"), MIN_CASES);
}

/* Copy @file of case @src into directory @dst. */
static void copy_file(const char *src, const char *dst, const char *file)
{
	char from[4200], to[4200];
	static uint8_t buf[1 << 20];
	FILE *in, *out;
	size_t n;

	snprintf(from, sizeof(from), "%s/%s", src, file);
	snprintf(to, sizeof(to), "%s/%s", dst, file);
	in = fopen(from, "rb");
	out = fopen(to, "wb");
	CHECK(in && out);
	n = fread(buf, 1, sizeof(buf), in);
	CHECK_EQ(fwrite(buf, 1, n, out), n);
	fclose(in);
	CHECK_OK(fclose(out));
}

/*
 * The replay is no rubber stamp: one byte changed in the expected output
 * of a case (a TCP payload byte, then a header byte) makes it fail.
 */
static void t_replay_notices_a_change(void)
{
	static const char *const cases[] = { "gso/tcp4_cwr_psh_fin",
					     "gro/tcp4_psh" };
	static const char *const files[] = { "in.pcap", "out.pcap",
					     "case.json" };
	static const size_t at[] = { 60, 20 };
	static struct vec_result r;
	char src[4096], tmp[] = "/tmp/voff-vectors-XXXXXX";

	CHECK(mkdtemp(tmp) != NULL);
	for (int k = 0; k < 2; k++) {
		for (int a = 0; a < 2; a++) {
			struct vec_frames f = { 0 };
			char path[4200];

			snprintf(src, sizeof(src), "%s/%s", root(), cases[k]);
			for (int i = 0; i < 3; i++)
				copy_file(src, tmp, files[i]);
			CHECK_OK(vec_replay(tmp, &r));
			snprintf(path, sizeof(path), "%s/out.pcap", tmp);
			CHECK_OK(vec_pcap_read(path, &f));
			f.d[0][at[a]] ^= 1;
			CHECK_OK(vec_pcap_write(path, &f));
			vec_frames_free(&f);
			CHECK_EQ(vec_replay(tmp, &r), -1);
			CHECK(strstr(r.err, "matches no kernel frame") != NULL);
		}
	}
	for (int i = 0; i < 3; i++) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/%s", tmp, files[i]);
		CHECK_OK(unlink(path));
	}
	CHECK_OK(rmdir(tmp));
}

CHECK_MAIN(CHECK_TEST(t_gso_vectors), CHECK_TEST(t_gro_vectors),
	   CHECK_TEST(t_replay_notices_a_change))
