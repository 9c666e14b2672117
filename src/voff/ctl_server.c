/* SPDX-License-Identifier: MIT */
/*
 * ctl_server.c - the control socket of `voff switch` (ctl_server.h)
 *
 * The socket is made 0600 and answers only its owner's user id and root
 * (SO_PEERCRED); it never replaces anything but a stale socket (both by
 * the library's <voff/unix.h>, as for a vhost-user port).
 *
 * Connections are served without ever blocking the forwarding loop: each
 * is non-blocking, its request is gathered as it arrives, its reply
 * drains as the peer reads it, and a connection that does neither within
 * CTL_IDLE_MS is closed.  At most CTL_CONNS are open at once; the
 * listening socket is not polled while all are taken (the kernel's
 * backlog holds the next ones).
 *
 * A monitor is a connection whose request was `monitor`: it stays open,
 * with no deadline, and each event (every one at level info and above,
 * whatever the log's level) is appended to its buffer of MONITOR_BUF
 * bytes as one line, which drains as the peer reads.  A peer that reads
 * too slowly never holds the switch back: a line that does not fit is
 * dropped and counted, and once there is room again the monitor gets
 * an "events_lost" line with the count first.  A monitor ends when the
 * peer closes its end (POLLHUP).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <voff/voff.h>

#include "ctl_server.h"

#define CTL_IDLE_MS 5000
/* Bytes of events a monitor may have waiting (plus its socket's buffer). */
#define MONITOR_BUF 32768
#define MONITOR_SNDBUF 16384

enum conn_state { FREE, READING, REPLYING, MONITORING };

struct ctl_conn {
	int fd;
	enum conn_state state;
	bool json;			/* monitor: JSON Lines */
	size_t len;			/* request bytes read */
	char req[VOFF_SWITCH_CTL_MAX + 2];
	char *out;			/* reply (open_memstream), or the
					 * monitor's buffer */
	size_t olen, off;
	uint64_t deadline_ms;
	uint64_t lost;			/* monitor: lines not queued */
	int slot;			/* its entry in the last poll set */
};

enum { C_REFUSED, C_MONITORS, C_LOST, C_COUNT };

struct ctl_server {
	int lfd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct ctl_conn conns[CTL_CONNS];
	struct ctl_conn *cur;		/* the one whose request runs */
	struct voff_switch_ctl_counter counters[C_COUNT];
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * The default directory is the switch's own: create it 0700, and use it
 * only when it is a real directory of this user that nobody else may
 * write to (else another user could swap the socket under us).
 */
static int ctl_dir(const char *path)
{
	struct stat st;

	if (strncmp(path, "/run/voff/", 10))
		return 0;
	if (mkdir("/run/voff", 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat("/run/voff", &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return -EPERM;
	return 0;
}

static void conn_close(struct ctl_server *s, struct ctl_conn *c)
{
	if (c->state == MONITORING)
		s->counters[C_MONITORS].value--;
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->state = FREE;
}

int ctl_server_open(struct ctl_server **out, const char *path)
{
	struct ctl_server *s;
	int err = ctl_dir(path);

	if (err)
		return err;
	if (strlen(path) >= sizeof(s->path))
		return -ENAMETOOLONG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->lfd = voff_unix_listen(path, 8);
	if (s->lfd < 0) {
		err = s->lfd;
		free(s);
		return err;
	}
	memcpy(s->path, path, strlen(path) + 1);
	for (unsigned int i = 0; i < CTL_CONNS; i++)
		conn_close(s, &s->conns[i]);
	s->counters[C_REFUSED].name = "refused_peers";
	s->counters[C_MONITORS].name = "monitors";
	s->counters[C_LOST].name = "events_lost";
	*out = s;
	return 0;
}

void ctl_server_close(struct ctl_server *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; i < CTL_CONNS; i++)
		conn_close(s, &s->conns[i]);
	close(s->lfd);
	unlink(s->path);
	free(s);
}

const struct voff_switch_ctl_counter *
ctl_server_counters(const struct ctl_server *s, unsigned int *n)
{
	*n = C_COUNT;
	return s->counters;
}

/* The request without its newline, for the debug log. */
static void log_request(const struct ctl_conn *c, size_t len, int err)
{
	log_event(LOG_LVL_DEBUG, "request", NULL, NULL, "control request "
		  "'%.*s': %s", (int)(len > 200 ? 200 : len), c->req,
		  err ? voff_strerror(err) : "ok");
}

/* Build the reply to a complete request (or the refusal of the peer). */
static void conn_answer(struct ctl_server *s, struct voff_switch *sw,
			struct voff_switch_ctl_state *st, struct ctl_conn *c)
{
	char *nl = memchr(c->req, '\n', c->len);
	size_t len = nl ? (size_t)(nl - c->req) : c->len;
	FILE *f = open_memstream(&c->out, &c->olen);
	uid_t uid;

	c->state = REPLYING;
	if (!f) {
		c->out = NULL;
		c->olen = 0;
		return;
	}
	if (!voff_unix_peer_ok(c->fd, &uid)) {
		s->counters[C_REFUSED].value++;
		fprintf(f, "error: permission denied: uid %ld is not the "
			"switch's owner (uid %ld)\n", (long)(int)uid,
			(long)geteuid());
		log_event(LOG_LVL_WARNING, "peer_refused", NULL, NULL,
			  "refused a control connection from uid %ld",
			  (long)(int)uid);
	} else {
		int err;

		s->cur = c;
		err = voff_switch_ctl_serve(sw, st, c->req, len, f);
		s->cur = NULL;
		log_request(c, len, err);
	}
	fclose(f);
	if (c->state == MONITORING) {
		/* Its reply is empty: the buffer becomes the monitor's. */
		free(c->out);
		c->out = malloc(MONITOR_BUF);
		c->olen = c->off = 0;
		if (!c->out) {
			conn_close(s, c);
			return;
		}
		/* Its first line: a client knows from it that it listens. */
		log_event(LOG_LVL_INFO, "monitor", NULL, NULL, "monitor "
			  "started (%llu connected)", (unsigned long long)
			  s->counters[C_MONITORS].value);
	}
}

/* Read what the peer sent; answer once a line (or EOF, or the cap) is in. */
static void conn_read(struct ctl_server *s, struct voff_switch *sw,
		      struct voff_switch_ctl_state *st, struct ctl_conn *c)
{
	while (c->len < sizeof(c->req)) {
		ssize_t n = read(c->fd, c->req + c->len,
				 sizeof(c->req) - c->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			conn_close(s, c);
			return;
		}
		if (n == 0)
			break;
		c->deadline_ms = mono_ms() + CTL_IDLE_MS;
		c->len += (size_t)n;
		if (memchr(c->req + c->len - (size_t)n, '\n', (size_t)n))
			break;
	}
	/*
	 * The whole request is read even from a peer about to be refused:
	 * closing with unread bytes resets the connection, losing the reply.
	 */
	conn_answer(s, sw, st, c);
}

/*
 * Send what the peer will take.  A reply's connection is closed when all
 * is sent or on error; a monitor's only on error.
 */
static void conn_write(struct ctl_server *s, struct ctl_conn *c)
{
	while (c->off < c->olen) {
		ssize_t n = write(c->fd, c->out + c->off, c->olen - c->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_close(s, c);
			return;
		}
		c->deadline_ms = mono_ms() + CTL_IDLE_MS;
		c->off += (size_t)n;
	}
	if (c->state == MONITORING) {
		memmove(c->out, c->out + c->off, c->olen - c->off);
		c->olen -= c->off;
		c->off = 0;
	} else if (c->off == c->olen) {
		conn_close(s, c);
	}
}

static void conn_accept(struct ctl_server *s)
{
	for (unsigned int i = 0; i < CTL_CONNS; i++) {
		struct ctl_conn *c = &s->conns[i];

		if (c->state != FREE)
			continue;
		c->fd = accept4(s->lfd, NULL, NULL,
				SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c->fd < 0)
			return;
		c->state = READING;
		c->deadline_ms = mono_ms() + CTL_IDLE_MS;
		return;
	}
}

unsigned int ctl_server_poll(struct ctl_server *s, struct pollfd *pfd,
			     int64_t *timeout_ns)
{
	unsigned int np = 1, nfree = 0;
	uint64_t now = mono_ms();

	for (unsigned int i = 0; i < CTL_CONNS; i++) {
		struct ctl_conn *c = &s->conns[i];
		short ev;

		c->slot = -1;
		if (c->state != FREE && c->state != MONITORING &&
		    now >= c->deadline_ms)
			conn_close(s, c);
		if (c->state == FREE) {
			nfree++;
			continue;
		}
		if (c->state != MONITORING) {
			int64_t left = (int64_t)(c->deadline_ms - now) *
				       1000000;

			if (*timeout_ns < 0 || left < *timeout_ns)
				*timeout_ns = left;
		}
		/* A monitor waits for room, or for its peer to hang up. */
		ev = c->state == READING ? POLLIN :
		     c->state == REPLYING || c->olen ? POLLOUT : 0;
		c->slot = (int)np;
		pfd[np++] = (struct pollfd){ .fd = c->fd, .events = ev };
	}
	pfd[0] = (struct pollfd){ .fd = nfree ? s->lfd : -1, .events = POLLIN };
	return np;
}

void ctl_server_run(struct ctl_server *s, struct voff_switch *sw,
		    struct voff_switch_ctl_state *st,
		    const struct pollfd *pfd, unsigned int n)
{
	for (unsigned int i = 0; i < CTL_CONNS; i++) {
		struct ctl_conn *c = &s->conns[i];
		short re;

		if (c->state == FREE || c->slot < 1 || (unsigned int)c->slot >= n)
			continue;
		re = pfd[c->slot].revents;
		if (!re)
			continue;
		if (c->state == MONITORING && (re & (POLLHUP | POLLERR))) {
			conn_close(s, c);
			continue;
		}
		if (c->state == READING)
			conn_read(s, sw, st, c);
		/* A reply goes out at once when the peer takes it. */
		if (c->state == REPLYING ||
		    (c->state == MONITORING && c->olen))
			conn_write(s, c);
	}
	if (n && (pfd[0].revents & POLLIN))
		conn_accept(s);
}

int ctl_server_monitor(struct ctl_server *s, bool json, char *err,
		       size_t errlen)
{
	int small = MONITOR_SNDBUF;

	if (!s->cur)
		return -EINVAL;
	if (s->counters[C_MONITORS].value >= CTL_MONITORS) {
		snprintf(err, errlen, "monitor: %d monitors already",
			 CTL_MONITORS);
		return -EBUSY;
	}
	/* What the kernel holds for a slow reader counts against it too. */
	setsockopt(s->cur->fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	s->cur->state = MONITORING;
	s->cur->json = json;
	s->counters[C_MONITORS].value++;
	return 0;
}

/* One event as a monitor's line, text or JSON; Return: its length. */
static int format_line(const struct log_rec *r, bool json, char *buf,
		       size_t len)
{
	char msg[2100], port[300];

	if (!json)
		return snprintf(buf, len, "%s %s %s: %s\n", r->time,
				log_level_name(r->level), r->event, r->msg);
	if (r->port)
		json_string(r->port, port, sizeof(port));
	return snprintf(buf, len, "{\"time\":\"%s\",\"level\":\"%s\","
			"\"event\":\"%s\",\"port\":%s,\"message\":%s%s}\n",
			r->time, log_level_name(r->level), r->event,
			r->port ? port : "null",
			json_string(r->msg, msg, sizeof(msg)), r->fields);
}

/* Append @line to monitor @c; Return: whether it fitted. */
static bool queue(struct ctl_conn *c, const char *line, int n)
{
	if (n <= 0 || c->olen + (size_t)n > MONITOR_BUF)
		return false;
	memcpy(c->out + c->olen, line, (size_t)n);
	c->olen += (size_t)n;
	return true;
}

static void monitor_event(struct ctl_server *s, struct ctl_conn *c,
			  const struct log_rec *r)
{
	char line[4096], msg[128], fields[64];
	struct log_rec lost = *r;
	int n;

	if (c->lost) {
		snprintf(msg, sizeof(msg), "%llu events lost: this monitor "
			 "reads too slowly", (unsigned long long)c->lost);
		snprintf(fields, sizeof(fields), ",\"lost\":%llu",
			 (unsigned long long)c->lost);
		lost.level = LOG_LVL_WARNING;
		lost.event = "events_lost";
		lost.port = NULL;
		lost.msg = msg;
		lost.fields = fields;
		n = format_line(&lost, c->json, line, sizeof(line));
		if (!queue(c, line, n)) {
			c->lost++;
			s->counters[C_LOST].value++;
			return;
		}
		c->lost = 0;
	}
	n = format_line(r, c->json, line, sizeof(line));
	if (!queue(c, line, n)) {
		c->lost++;
		s->counters[C_LOST].value++;
	}
}

void ctl_server_event(void *server, const struct log_rec *r)
{
	struct ctl_server *s = server;

	if (r->level > LOG_LVL_INFO)
		return;
	for (unsigned int i = 0; i < CTL_CONNS; i++) {
		struct ctl_conn *c = &s->conns[i];

		/* The one being made a monitor still writes its reply. */
		if (c->state != MONITORING || c == s->cur)
			continue;
		monitor_event(s, c, r);
		/* Sent at once when the peer takes it: no wait for a poll. */
		if (c->olen)
			conn_write(s, c);
	}
}
