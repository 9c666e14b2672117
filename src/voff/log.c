/* SPDX-License-Identifier: MIT */
/*
 * log.c - the log of `voff switch` (log.h): levels, standard error or
 * syslog, and a listener that sees every event (the monitors of
 * ctl_server.c)
 *
 * Lines are made without touching the file system, so logging works
 * under the seccomp filter (isolation.c): times are UTC (localtime would
 * read /etc/localtime), and the syslog socket is opened by log_open(),
 * before the filter.  A line is one write(2) to standard error, so lines
 * of a switch and of its children never interleave.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static const char *const names[LOG_LVL__COUNT] = {
	"error", "warning", "notice", "info", "debug",
};
static const int prio[LOG_LVL__COUNT] = {
	LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG,
};

static struct {
	enum log_level max;
	bool syslog;
	bool journal;
	void (*listener)(void *ctx, const struct log_rec *r);
	void *ctx;
} lg = { .max = LOG_LVL_INFO };

int log_level_parse(const char *name)
{
	for (int i = 0; i < LOG_LVL__COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const char *log_level_name(enum log_level level)
{
	return (unsigned int)level < LOG_LVL__COUNT ? names[level] : "?";
}

/*
 * Whether standard error is the journal's stream: $JOURNAL_STREAM is
 * "DEV:INODE" of it, and must still be what fd 2 is (a child may have
 * inherited the variable with another stderr).
 */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino;
}

void log_open(enum log_level max, bool use_syslog)
{
	lg.max = max;
	lg.syslog = use_syslog;
	lg.journal = !use_syslog && stderr_is_journal();
	if (use_syslog)
		openlog("voff", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void log_close(void)
{
	if (lg.syslog)
		closelog();
	lg.syslog = false;
}

void log_set_listener(void (*fn)(void *ctx, const struct log_rec *r),
		      void *ctx)
{
	lg.listener = fn;
	lg.ctx = ctx;
}

static void now_utc(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

static void to_stderr(const struct log_rec *r)
{
	char line[2048];
	int n;

	if (lg.journal)
		n = snprintf(line, sizeof(line), "<%d>%s\n", prio[r->level],
			     r->msg);
	else
		n = snprintf(line, sizeof(line), "%s voff switch[%ld]: %s: "
			     "%s\n", r->time, (long)getpid(),
			     names[r->level], r->msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	/* A log line that cannot be written has nowhere else to go. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

void log_event(enum log_level level, const char *event, const char *port,
	       const char *fields, const char *fmt, ...)
{
	struct log_rec r = { .level = level, .event = event, .port = port,
			     .fields = fields ? fields : "" };
	char msg[1024], time[64];
	va_list ap;

	if ((unsigned int)level >= LOG_LVL__COUNT)
		return;
	if (level > lg.max && !lg.listener)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	now_utc(time, sizeof(time));
	r.msg = msg;
	r.time = time;
	if (level <= lg.max) {
		if (lg.syslog)
			syslog(prio[level], "%s", msg);
		else
			to_stderr(&r);
	}
	if (lg.listener)
		lg.listener(lg.ctx, &r);
}

char *json_string(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (len < 3) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	buf[o++] = '"';
	for (; *s && o + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\u%04x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}
