/* SPDX-License-Identifier: MIT */
/*
 * check.h - the small unit-test harness of voff's tests
 *
 * A test file defines static void functions and lists them once:
 *
 *	static void t_thing(void) { CHECK_EQ(1 + 1, 2); }
 *	CHECK_MAIN(CHECK_TEST(t_thing), CHECK_TEST(t_other))
 *
 * Each test runs in its own child process, so a crash or a sanitizer abort
 * fails that test alone.  Assertions print both values and the location and
 * end the test.  CHECK_SKIP() ends a test as skipped (exit code 77).  The
 * runner prints a TAP-like line per test and a closing summary; it exits
 * 0 when nothing failed, 77 when everything was skipped, 1 otherwise.
 * Arguments name tests to run (all by default); VOFF_TEST_NOFORK=1 runs
 * them in-process for debuggers.
 */
#ifndef VOFF_TEST_CHECK_H
#define VOFF_TEST_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_SKIP_CODE 77

struct check_test {
	const char *name;
	void (*fn)(void);
};

#define CHECK_TEST(f) { #f, f }

#define CHECK_FAIL_AT(...)                                                   \
	do {                                                                 \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);              \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
		fflush(stderr);                                              \
		_exit(1);                                                    \
	} while (0)

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond))                                                 \
			CHECK_FAIL_AT("CHECK(%s) failed", #cond);            \
	} while (0)

#define CHECK_MSG(cond, ...)                                                 \
	do {                                                                 \
		if (!(cond))                                                 \
			CHECK_FAIL_AT(__VA_ARGS__);                          \
	} while (0)

/* Integer comparisons print both sides as signed 64-bit and hex. */
#define CHECK_OP_(a, op, b)                                                  \
	do {                                                                 \
		long long ca_ = (long long)(a), cb_ = (long long)(b);        \
		if (!(ca_ op cb_))                                           \
			CHECK_FAIL_AT("CHECK(%s %s %s): %lld (0x%llx) vs "   \
				      "%lld (0x%llx)",                       \
				      #a, #op, #b, ca_,                      \
				      (unsigned long long)ca_, cb_,          \
				      (unsigned long long)cb_);              \
	} while (0)

#define CHECK_EQ(a, b) CHECK_OP_(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP_(a, !=, b)
#define CHECK_LT(a, b) CHECK_OP_(a, <, b)
#define CHECK_LE(a, b) CHECK_OP_(a, <=, b)
#define CHECK_GT(a, b) CHECK_OP_(a, >, b)
#define CHECK_GE(a, b) CHECK_OP_(a, >=, b)
#define CHECK_OK(expr) CHECK_EQ((expr), 0)

#define CHECK_STR_EQ(a, b)                                                   \
	do {                                                                 \
		const char *sa_ = (a), *sb_ = (b);                           \
		if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0)                   \
			CHECK_FAIL_AT("CHECK_STR_EQ(%s, %s): \"%s\" vs \"%s\"", \
				      #a, #b, sa_ ? sa_ : "(null)",          \
				      sb_ ? sb_ : "(null)");                 \
	} while (0)

/* Byte comparison that reports the first differing offset. */
#define CHECK_MEM_EQ(a, b, n)                                                \
	do {                                                                 \
		const unsigned char *ma_ = (const void *)(a);                \
		const unsigned char *mb_ = (const void *)(b);                \
		size_t mn_ = (n);                                            \
		for (size_t mi_ = 0; mi_ < mn_; mi_++)                       \
			if (ma_[mi_] != mb_[mi_])                            \
				CHECK_FAIL_AT("CHECK_MEM_EQ(%s, %s, %zu): "  \
					      "byte %zu is 0x%02x vs 0x%02x", \
					      #a, #b, mn_, mi_, ma_[mi_],    \
					      mb_[mi_]);                     \
	} while (0)

#define CHECK_SKIP(...)                                                      \
	do {                                                                 \
		fprintf(stderr, "skip: ");                                   \
		fprintf(stderr, __VA_ARGS__);                                \
		fputc('\n', stderr);                                         \
		fflush(stderr);                                              \
		_exit(CHECK_SKIP_CODE);                                      \
	} while (0)

/*
 * check_rand() - deterministic xorshift64* for randomized tests, seeded
 * from CHECK_SEED.  One stream per program (check.c), shared by the test
 * and the helpers of tests/lib, so a seed replays the whole run.
 */
uint64_t check_rand(void);

/* Fill @buf with @n bytes from check_rand(). */
void check_fill_random(void *buf, size_t n);

/* A number in [0, @n) from check_rand(); @n > 0. */
unsigned int check_rnd(unsigned int n);

/*
 * true with a chance of @pct percent.  0 and 100 (or more) are never and
 * always, and draw nothing, so a fixed choice leaves the stream alone.
 */
bool check_chance(unsigned int pct);

static inline int check_run_one(const struct check_test *t, int nofork)
{
	pid_t pid;
	int st;

	if (nofork) {
		t->fn();
		return 0;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		t->fn();
		/* exit(), not _exit(): LeakSanitizer checks at exit. */
		exit(0);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "  killed by signal %d\n", WTERMSIG(st));
	return 1;
}

static inline int check_main(const struct check_test *tests, size_t n,
			     int argc, char **argv)
{
	int nofork = getenv("VOFF_TEST_NOFORK") != NULL;
	unsigned pass = 0, fail = 0, skip = 0, num = 0;

	for (size_t i = 0; i < n; i++) {
		int want = argc <= 1, rc;

		for (int a = 1; a < argc; a++)
			if (!strcmp(argv[a], tests[i].name))
				want = 1;
		if (!want)
			continue;
		rc = check_run_one(&tests[i], nofork);
		num++;
		if (rc == 0) {
			pass++;
			printf("ok %u %s\n", num, tests[i].name);
		} else if (rc == CHECK_SKIP_CODE) {
			skip++;
			printf("ok %u %s # SKIP\n", num, tests[i].name);
		} else {
			fail++;
			printf("not ok %u %s\n", num, tests[i].name);
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed, %u skipped\n", pass, fail, skip);
	if (fail)
		return 1;
	return pass == 0 && skip > 0 ? CHECK_SKIP_CODE : 0;
}

#define CHECK_MAIN(...)                                                      \
	int main(int argc, char **argv)                                      \
	{                                                                    \
		static const struct check_test tests_[] = { __VA_ARGS__ };   \
		return check_main(tests_, sizeof(tests_) / sizeof(tests_[0]), \
				  argc, argv);                               \
	}

#endif /* VOFF_TEST_CHECK_H */
