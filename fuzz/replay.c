/* SPDX-License-Identifier: MIT */
/*
 * replay.c - run a fuzz target over its corpus without libFuzzer
 *
 * Linked with one fuzz_<name>.c, it feeds every file under the directories
 * (or files) named on the command line to LLVMFuzzerTestOneInput(), so the
 * gcc and sanitizer builds replay each corpus in CTest.  It fails when a
 * directory is missing or empty: a replay that replays nothing is a bug.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return -1;
	}
	/* An exact-size heap copy lets ASan catch reads past the input. */
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static long run_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	long count = 0;
	DIR *d;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path) == 0 ? 1 : -1;
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char sub[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (run_file(sub) != 0) {
			closedir(d);
			return -1;
		}
		count++;
	}
	closedir(d);
	return count;
}

int main(int argc, char **argv)
{
	long total = 0;

	for (int i = 1; i < argc; i++) {
		long n = run_path(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	printf("replayed %ld inputs\n", total);
	return total > 0 ? 0 : 1;
}
