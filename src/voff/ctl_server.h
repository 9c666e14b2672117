/* SPDX-License-Identifier: MIT */
/*
 * ctl_server.h - the control socket of `voff switch`: requests answered
 * without ever blocking the forwarding loop, and monitors, connections
 * kept open to stream events (ctl_server.c)
 */
#ifndef VOFF_CTL_SERVER_H
#define VOFF_CTL_SERVER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <voff/switch.h>

#include "log.h"

/* Connections open at once, monitors included; monitors at most. */
#define CTL_CONNS 16
#define CTL_MONITORS 8

struct ctl_server;

/**
 * ctl_server_open() - bind and listen on @path (mode 0600, only a stale
 * socket replaced; /run/voff/ checked or made 0700)
 * @out:	receives the server
 * @path:	the socket
 * Return: 0, -EEXIST when something that is not a socket is there,
 * -EADDRINUSE when a switch answers there, or another negative errno.
 */
int ctl_server_open(struct ctl_server **out, const char *path);

/** ctl_server_close() - close every connection, remove the socket */
void ctl_server_close(struct ctl_server *s);

/**
 * ctl_server_counters() - the server's own counters for `server`
 * (refused_peers, monitors, events_lost), kept up to date
 */
const struct voff_switch_ctl_counter *
ctl_server_counters(const struct ctl_server *s, unsigned int *n);

/**
 * ctl_server_poll() - the descriptors to wait on
 * @pfd:	receives up to 1 + CTL_CONNS entries
 * @timeout_ns:	lowered to the nearest connection deadline
 * Return: entries filled.
 */
unsigned int ctl_server_poll(struct ctl_server *s, struct pollfd *pfd,
			     int64_t *timeout_ns);

/**
 * ctl_server_run() - serve what @pfd (as filled by ctl_server_poll(),
 * after poll) says is ready: accept, read requests, run them with
 * voff_switch_ctl_serve(), send replies and monitor lines
 */
void ctl_server_run(struct ctl_server *s, struct voff_switch *sw,
		    struct voff_switch_ctl_state *st,
		    const struct pollfd *pfd, unsigned int n);

/**
 * ctl_server_monitor() - make the connection whose request is being run a
 * monitor: it stays open and gets one line per event (JSON Lines when
 * @json), from ctl_server_event()
 * Return: 0, or -EBUSY with @err saying why (CTL_MONITORS already).
 */
int ctl_server_monitor(struct ctl_server *s, bool json, char *err,
		       size_t errlen);

/**
 * ctl_server_event() - queue one event line on every monitor (a log
 * listener: log_set_listener()); a monitor whose buffer is full loses
 * the line, and is told how many it lost once there is room again
 */
void ctl_server_event(void *server, const struct log_rec *r);

#endif /* VOFF_CTL_SERVER_H */
