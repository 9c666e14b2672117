/* SPDX-License-Identifier: MIT */
/*
 * log.h - the log of `voff switch`: one line per event, with a level, to
 * standard error or to syslog, and to whoever listens (monitors).  log.c
 * says how a line looks where.
 */
#ifndef VOFF_LOG_H
#define VOFF_LOG_H

#include <stdbool.h>

/* Levels, most severe first: syslog's priorities of the same names. */
enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARNING,
	LOG_LVL_NOTICE,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
	LOG_LVL__COUNT,
};

/**
 * struct log_rec - one event as it is logged
 * @level:	its level
 * @event:	what happened, one word ("port_added", "reload", ...)
 * @port:	the port it is about, NULL for none
 * @msg:	the line for people ("port vt0 added (tap:vt0@ns0)")
 * @fields:	more JSON members for machines, each ",\"key\":value", ""
 *		for none
 * @time:	when, as "2026-11-30T12:00:00.123Z" (UTC)
 */
struct log_rec {
	enum log_level level;
	const char *event;
	const char *port;
	const char *msg;
	const char *fields;
	const char *time;
};

/**
 * log_level_parse() - a level by name ("error", "warning", "notice",
 * "info", "debug")
 * Return: the level, or -1 for another word.
 */
int log_level_parse(const char *name);

/** log_level_name() - the name of @level ("notice") */
const char *log_level_name(enum log_level level);

/**
 * log_open() - start logging
 * @max:	the least severe level written (events below are only given
 *		to the listener)
 * @use_syslog:	to syslog (facility daemon, ident "voff", with the pid)
 *		instead of standard error
 *
 * On standard error each line is "TIME voff switch[PID]: LEVEL: MSG",
 * except when standard error is the journal (systemd sets
 * $JOURNAL_STREAM to its device and inode): then "<N>MSG", the
 * journal's priority prefix, and the journal adds the time.  The syslog
 * socket is opened here, before any sandbox could refuse it.
 */
void log_open(enum log_level max, bool use_syslog);

/**
 * log_set_listener() - hand every event, whatever its level, to @fn
 * (one listener; NULL: none)
 */
void log_set_listener(void (*fn)(void *ctx, const struct log_rec *r),
		      void *ctx);

/**
 * log_event() - log one event
 * @level:	its level
 * @event:	one word naming it
 * @port:	the port it is about, or NULL
 * @fields:	more JSON members (",\"k\":v..."), or NULL
 * @fmt:	the message, printf style
 */
void log_event(enum log_level level, const char *event, const char *port,
	       const char *fields, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* log_close() - stop logging (closes the syslog socket) */
void log_close(void);

/**
 * json_string() - @s as a JSON string, quotes included, into @buf
 * Return: @buf (cut to @len bytes, always terminated).
 */
char *json_string(const char *s, char *buf, size_t len);

#endif /* VOFF_LOG_H */
