/* SPDX-License-Identifier: MIT */
/*
 * prom.h - `voff ctl stats --prometheus`: a running switch's counters and
 * settings in the Prometheus text exposition format (prom.c)
 */
#ifndef VOFF_PROM_H
#define VOFF_PROM_H

#include <stdio.h>

/**
 * prom_print() - ask the switch and print the metrics
 * @out:	where to print
 * @port:	only this port's metrics, or NULL for every port
 * @ask:	sends one request line (a "-j ..." request, newline ended)
 *		and puts the malloc'ed reply in *@reply (freed by the
 *		caller); Return: 0, or a negative errno after saying why
 * @ctx:	handed to @ask
 *
 * Return: 0, or a negative errno (nothing was printed).
 */
int prom_print(FILE *out, const char *port,
	       int (*ask)(void *ctx, const char *req, char **reply),
	       void *ctx);

#endif /* VOFF_PROM_H */
