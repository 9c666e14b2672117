/* SPDX-License-Identifier: MIT */
/*
 * voff.h - umbrella header of libvoff: include this one to get the whole API
 */
#ifndef VOFF_VOFF_H
#define VOFF_VOFF_H

#include <voff/err.h>
#include <voff/pkt.h>
#include <voff/csum.h>
#include <voff/parse.h>
#include <voff/pcap.h>
#include <voff/vnet.h>
#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/xmit.h>
#include <voff/port.h>
#include <voff/netlink.h>
#include <voff/unix.h>
#include <voff/gso.h>
#include <voff/gro.h>
#include <voff/switch.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

/* Library version, as "MAJOR.MINOR.PATCH". */
#define VOFF_VERSION "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/** voff_version() - the version of the library actually linked */
const char *voff_version(void);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_VOFF_H */
