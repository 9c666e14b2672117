/* SPDX-License-Identifier: MIT */
/*
 * netlink.c - interface limits over rtnetlink (libmnl) and ethtool
 * features over the ethtool ioctl
 *
 * A namespace is entered on the calling thread (netns.c), a socket is
 * opened, and the thread returns to where it was at once: a socket stays
 * in the namespace it was created in, so the rest of the work needs no
 * switch.  See netlink.h for the contracts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <netinet/in.h>

#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/netlink.h>

#include "netlink_int.h"
#include "netns_int.h"

/* Newer than the system headers may be (6.3+). */
#ifndef IFLA_GSO_IPV4_MAX_SIZE
#define IFLA_GSO_IPV4_MAX_SIZE 63
#endif
#ifndef IFLA_GRO_IPV4_MAX_SIZE
#define IFLA_GRO_IPV4_MAX_SIZE 64
#endif

/* Replies to single-link requests are small; an address dump comes in parts. */
#define NL_BUF 16384

/* ---- rtnetlink ----------------------------------------------------------- */

static int nl_open(const char *netns, struct mnl_socket **out)
{
	struct mnl_socket *nl;
	int saved, err;

	err = voff__netns_enter(netns, &saved);
	if (err)
		return err;
	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	err = nl ? 0 : -errno;
	voff__netns_leave(saved);
	if (err)
		return err;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		mnl_socket_close(nl);
		return err;
	}
	*out = nl;
	return 0;
}

/**
 * struct link_req - what an RTM_GETLINK answer is read into
 * @attr:	called for each attribute of the link, with @arg
 * @arg:	what @attr fills
 * @ifindex:	the link's index, 0 while no RTM_NEWLINK came
 */
struct link_req {
	mnl_attr_cb_t attr;
	void *arg;
	unsigned int ifindex;
};

static int link_attr(const struct nlattr *a, void *data)
{
	struct voff_limits *lim = data;
	uint32_t *dst = NULL;

	switch (mnl_attr_get_type(a)) {
	case IFLA_MTU:
		dst = &lim->mtu;
		break;
	case IFLA_GSO_MAX_SIZE:
		dst = &lim->gso_max_size;
		break;
	case IFLA_GSO_MAX_SEGS:
		dst = &lim->gso_max_segs;
		break;
	case IFLA_TSO_MAX_SIZE:
		dst = &lim->tso_max_size;
		break;
	case IFLA_TSO_MAX_SEGS:
		dst = &lim->tso_max_segs;
		break;
	case IFLA_GRO_MAX_SIZE:
		dst = &lim->gro_max_size;
		break;
	case IFLA_GSO_IPV4_MAX_SIZE:
		dst = &lim->gso_ipv4_max_size;
		break;
	case IFLA_GRO_IPV4_MAX_SIZE:
		dst = &lim->gro_ipv4_max_size;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return MNL_CB_ERROR;
	*dst = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_req *req = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	req->ifindex = (unsigned int)ifi->ifi_index;
	return mnl_attr_parse(nlh, sizeof(*ifi), req->attr, req->arg);
}

/* Send @nlh and run the replies through @cb until the ack or the dump end. */
static int nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh,
		   mnl_cb_t cb, void *data)
{
	char buf[NL_BUF] __attribute__((aligned(8)));
	unsigned int portid = mnl_socket_get_portid(nl);
	unsigned int seq = nlh->nlmsg_seq;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		ssize_t n = mnl_socket_recvfrom(nl, buf, sizeof(buf));

		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

/*
 * A request of @type at the start of @buf (its struct nlmsghdr) with a
 * zeroed family header of @len bytes after it (struct ifinfomsg, rtmsg,
 * ifaddrmsg).  Return: that family header.
 */
static void *request(char *buf, uint16_t type, uint16_t flags, size_t len)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = (unsigned int)time(NULL);
	return mnl_nlmsg_put_extra_header(nlh, len);
}

static struct nlmsghdr *link_msg(char *buf, uint16_t type, uint16_t flags,
				 const char *ifname)
{
	struct ifinfomsg *ifi = request(buf, type, flags, sizeof(*ifi));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	ifi->ifi_family = AF_UNSPEC;
	if (ifname)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	return nlh;
}

static int name_ok(const char *ifname)
{
	return ifname && *ifname && strlen(ifname) < IFNAMSIZ ? 0 : -EINVAL;
}

/*
 * Open an rtnetlink socket in @netns, run @fn on it for @ifname with @arg,
 * and close it: the one open/close path of the calls below.
 */
static int nl_with(const char *netns, const char *ifname,
		   int (*fn)(struct mnl_socket *nl, const char *ifname,
			     void *arg),
		   void *arg)
{
	struct mnl_socket *nl;
	int err;

	err = name_ok(ifname);
	if (!err)
		err = nl_open(netns, &nl);
	if (err)
		return err;
	err = fn(nl, ifname, arg);
	mnl_socket_close(nl);
	return err;
}

/* RTM_GETLINK for @ifname through @nl, its answer parsed into @arg. */
static int get_link(struct mnl_socket *nl, const char *ifname, void *arg)
{
	char buf[NL_BUF] __attribute__((aligned(8)));

	return nl_talk(nl, link_msg(buf, RTM_GETLINK, NLM_F_ACK, ifname),
		       link_cb, arg);
}

int voff_netlink_get_limits(const char *netns, const char *ifname,
			    unsigned int *ifindex,
			    struct voff_limits *out)
{
	struct voff_limits lim = { 0 };
	struct link_req req = { .attr = link_attr, .arg = &lim };
	int err = nl_with(netns, ifname, get_link, &req);

	if (err)
		return err;
	if (!req.ifindex)
		return -ENODEV;
	if (ifindex)
		*ifindex = req.ifindex;
	*out = lim;
	return 0;
}

struct stats_req {
	struct voff_link_stats *out;
	bool found;
};

static int stats_attr(const struct nlattr *a, void *data)
{
	struct stats_req *req = data;
	struct rtnl_link_stats64 st;

	if (mnl_attr_get_type(a) != IFLA_STATS64)
		return MNL_CB_OK;
	if (mnl_attr_get_payload_len(a) < sizeof(st))
		return MNL_CB_ERROR;
	memcpy(&st, mnl_attr_get_payload(a), sizeof(st));
	req->out->rx_packets = st.rx_packets;
	req->out->tx_packets = st.tx_packets;
	req->out->rx_dropped = st.rx_dropped;
	req->out->tx_dropped = st.tx_dropped;
	req->found = true;
	return MNL_CB_OK;
}

int voff__netlink_open(const char *netns, struct mnl_socket **out)
{
	return nl_open(netns, out);
}

void voff__netlink_close(struct mnl_socket *nl)
{
	if (nl)
		mnl_socket_close(nl);
}

/* The counters of @ifname through @nl into @arg (a voff_link_stats). */
static int get_stats(struct mnl_socket *nl, const char *ifname, void *arg)
{
	struct voff_link_stats st = { 0 }, *out = arg;
	struct stats_req sr = { .out = &st };
	struct link_req req = { .attr = stats_attr, .arg = &sr };
	int err = get_link(nl, ifname, &req);

	if (err)
		return err;
	if (!req.ifindex)
		return -ENODEV;
	if (!sr.found)
		return -ENODATA;
	*out = st;
	return 0;
}

/* Read and throw away replies an earlier call left in @nl half-way. */
static void nl_drain(struct mnl_socket *nl)
{
	char buf[NL_BUF] __attribute__((aligned(8)));

	while (recv(mnl_socket_get_fd(nl), buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
}

int voff__netlink_stats(struct mnl_socket *nl, const char *ifname,
			struct voff_link_stats *out)
{
	int err = name_ok(ifname);

	if (err)
		return err;
	nl_drain(nl);
	return get_stats(nl, ifname, out);
}

int voff_netlink_get_stats(const char *netns, const char *ifname,
			   struct voff_link_stats *out)
{
	return nl_with(netns, ifname, get_stats, out);
}

/* ---- the MTU towards an address ------------------------------------------ */

/**
 * struct mtu_req - what the MTU look-ups read
 * @addr:	the address an RTM_GETADDR dump is searched for (4 or 16 bytes)
 * @alen:	its length
 * @ifindex:	the route's output device, or the device with @addr; 0: none
 * @metric:	the route's RTAX_MTU metric, 0 when it has none
 * @mtu:	the device's IFLA_MTU
 * @mtu6:	its IPv6 MTU (net.ipv6.conf.DEV.mtu), 0 when not reported
 */
struct mtu_req {
	const void *addr;
	size_t alen;
	unsigned int ifindex;
	uint32_t metric, mtu, mtu6;
};

static int metric_attr(const struct nlattr *a, void *data)
{
	uint32_t *metric = data;

	if (mnl_attr_get_type(a) == RTAX_MTU &&
	    mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		*metric = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int route_attr(const struct nlattr *a, void *data)
{
	struct mtu_req *req = data;

	switch (mnl_attr_get_type(a)) {
	case RTA_OIF:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		req->ifindex = mnl_attr_get_u32(a);
		break;
	case RTA_METRICS:
		return mnl_attr_parse_nested(a, metric_attr, &req->metric);
	default:
		break;
	}
	return MNL_CB_OK;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct rtmsg), route_attr, data);
}

/* IFLA_AF_SPEC / AF_INET6 / IFLA_INET6_CONF: the array of the sysctls. */
static int inet6_attr(const struct nlattr *a, void *data)
{
	struct mtu_req *req = data;
	const int32_t *conf = mnl_attr_get_payload(a);

	if (mnl_attr_get_type(a) == IFLA_INET6_CONF &&
	    mnl_attr_get_payload_len(a) > DEVCONF_MTU6 * sizeof(*conf) &&
	    conf[DEVCONF_MTU6] > 0)
		req->mtu6 = (uint32_t)conf[DEVCONF_MTU6];
	return MNL_CB_OK;
}

static int af_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) != AF_INET6)
		return MNL_CB_OK;
	return mnl_attr_parse_nested(a, inet6_attr, data);
}

static int mtu_link_attr(const struct nlattr *a, void *data)
{
	struct mtu_req *req = data;

	switch (mnl_attr_get_type(a)) {
	case IFLA_MTU:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		req->mtu = mnl_attr_get_u32(a);
		break;
	case IFLA_AF_SPEC:
		return mnl_attr_parse_nested(a, af_attr, data);
	default:
		break;
	}
	return MNL_CB_OK;
}

/* IFLA_MTU and the IPv6 MTU of device @req->ifindex, through @nl. */
static int link_mtu(struct mnl_socket *nl, struct mtu_req *req)
{
	char buf[NL_BUF] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = link_msg(buf, RTM_GETLINK, NLM_F_ACK, NULL);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct link_req lr = { .attr = mtu_link_attr, .arg = req };
	int err;

	ifi->ifi_index = (int)req->ifindex;
	err = nl_talk(nl, nlh, link_cb, &lr);
	if (err)
		return err;
	return lr.ifindex && req->mtu ? 0 : -ENODEV;
}

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

int voff__netlink_route_mtu(struct mnl_socket *nl, int family,
			    const void *addr, unsigned int *mtu)
{
	char buf[NL_BUF] __attribute__((aligned(8)));
	struct mtu_req req = { .alen = addr_len(family) };
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint32_t m, lim;
	int err;

	if (!nl || !addr || !mtu || !req.alen)
		return -EINVAL;
	nl_drain(nl);
	rtm = request(buf, RTM_GETROUTE, NLM_F_ACK, sizeof(*rtm));
	nlh = (struct nlmsghdr *)buf;
	rtm->rtm_family = (unsigned char)family;
	rtm->rtm_dst_len = (unsigned char)(req.alen * 8);
	mnl_attr_put(nlh, RTA_DST, req.alen, addr);
	err = nl_talk(nl, nlh, route_cb, &req);
	if (!err && !req.metric)
		err = req.ifindex ? link_mtu(nl, &req) : -ENOENT;
	if (err)
		return err;
	/*
	 * As the kernel's IP_MTU / IPV6_MTU: the metric, else the device's
	 * (IPv6: the device's IPv6 MTU), at most what one packet can carry.
	 */
	m = req.metric ? req.metric :
	    family == AF_INET6 && req.mtu6 ? req.mtu6 : req.mtu;
	lim = family == AF_INET6 ? 0xFFFF + 40 : 0xFFFF;
	*mtu = m < lim ? m : lim;
	return 0;
}

static int addr_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type == IFA_LOCAL || type == IFA_ADDRESS)
		tb[type] = a;
	return MNL_CB_OK;
}

/*
 * One address of the dump: the device of the first that is @req->addr
 * (IFA_LOCAL, else IFA_ADDRESS, as getifaddrs() reads them).
 */
static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mtu_req *req = data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[IFA_MAX + 1] = { NULL };
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWADDR || req->ifindex ||
	    mnl_attr_parse(nlh, sizeof(*ifa), addr_attr, tb) < 0)
		return MNL_CB_OK;
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (a && mnl_attr_get_payload_len(a) == req->alen &&
	    !memcmp(mnl_attr_get_payload(a), req->addr, req->alen))
		req->ifindex = ifa->ifa_index;
	return MNL_CB_OK;
}

int voff__netlink_addr_mtu(struct mnl_socket *nl, int family,
			   const void *addr, unsigned int *mtu)
{
	char buf[NL_BUF] __attribute__((aligned(8)));
	struct mtu_req req = { .addr = addr, .alen = addr_len(family) };
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	int err;

	if (!nl || !addr || !mtu || !req.alen)
		return -EINVAL;
	nl_drain(nl);
	ifa = request(buf, RTM_GETADDR, NLM_F_DUMP, sizeof(*ifa));
	nlh = (struct nlmsghdr *)buf;
	ifa->ifa_family = (unsigned char)family;
	err = nl_talk(nl, nlh, addr_cb, &req);
	if (err)
		return err;
	if (!req.ifindex)
		return -ENOENT;
	err = link_mtu(nl, &req);
	if (!err)
		*mtu = req.mtu;
	return err;
}

/* RTM_NEWLINK for @ifname through @nl with the limits @arg sets. */
static int set_limits(struct mnl_socket *nl, const char *ifname, void *arg)
{
	char buf[NL_BUF] __attribute__((aligned(8)));
	const struct voff_limits *lim = arg;
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_ACK, ifname);

	if (lim->mtu)
		mnl_attr_put_u32(nlh, IFLA_MTU, lim->mtu);
	if (lim->gso_max_size)
		mnl_attr_put_u32(nlh, IFLA_GSO_MAX_SIZE, lim->gso_max_size);
	if (lim->gso_max_segs)
		mnl_attr_put_u32(nlh, IFLA_GSO_MAX_SEGS, lim->gso_max_segs);
	if (lim->gro_max_size)
		mnl_attr_put_u32(nlh, IFLA_GRO_MAX_SIZE, lim->gro_max_size);
	if (lim->gso_ipv4_max_size)
		mnl_attr_put_u32(nlh, IFLA_GSO_IPV4_MAX_SIZE,
				 lim->gso_ipv4_max_size);
	if (lim->gro_ipv4_max_size)
		mnl_attr_put_u32(nlh, IFLA_GRO_IPV4_MAX_SIZE,
				 lim->gro_ipv4_max_size);
	return nl_talk(nl, nlh, NULL, NULL);
}

int voff_netlink_set_limits(const char *netns, const char *ifname,
			    const struct voff_limits *lim)
{
	/* set_limits() only reads it. */
	return nl_with(netns, ifname, set_limits, (void *)lim);
}

/* RTM_NEWLINK for @ifname through @nl: up or down as the bool @arg says. */
static int set_up(struct mnl_socket *nl, const char *ifname, void *arg)
{
	char buf[NL_BUF] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_ACK, ifname);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	ifi->ifi_change = IFF_UP;
	ifi->ifi_flags = *(const bool *)arg ? IFF_UP : 0;
	return nl_talk(nl, nlh, NULL, NULL);
}

int voff_netlink_set_up(const char *netns, const char *ifname, bool up)
{
	return nl_with(netns, ifname, set_up, &up);
}

/* ---- ethtool features ---------------------------------------------------- */

static int eth_ioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* Feature names and states: the three ethtool calls `ethtool -k` makes. */
static int features_read(int fd, const char *ifname,
			 struct ethtool_gstrings **names,
			 struct ethtool_gfeatures **feats)
{
	/* The reply's one length follows the header, in its flexible array. */
	uint64_t raw[sizeof(struct ethtool_sset_info) / 8 + 2] = { 0 };
	struct ethtool_sset_info *info = (struct ethtool_sset_info *)raw;
	uint32_t n, blocks;
	int err;

	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ull << ETH_SS_FEATURES;
	err = eth_ioctl(fd, ifname, info);
	if (err)
		return err;
	n = info->sset_mask ? info->data[0] : 0;
	blocks = (n + 31) / 32;
	*names = calloc(1, sizeof(**names) + (size_t)n * ETH_GSTRING_LEN);
	*feats = calloc(1, sizeof(**feats) +
				   blocks * sizeof((*feats)->features[0]));
	if (!*names || !*feats) {
		err = -ENOMEM;
		goto err_free;
	}
	(*names)->cmd = ETHTOOL_GSTRINGS;
	(*names)->string_set = ETH_SS_FEATURES;
	(*names)->len = n;
	(*feats)->cmd = ETHTOOL_GFEATURES;
	(*feats)->size = blocks;
	err = eth_ioctl(fd, ifname, *names);
	if (!err)
		err = eth_ioctl(fd, ifname, *feats);
	if (!err)
		return 0;
err_free:
	free(*names);
	free(*feats);
	return err;
}

int voff_netlink_features(const char *netns, const char *ifname,
			  int (*cb)(const char *name, bool active,
				    bool changeable, void *arg),
			  void *arg)
{
	struct ethtool_gstrings *names;
	struct ethtool_gfeatures *feats;
	int saved, fd, err;

	err = name_ok(ifname);
	if (!err)
		err = voff__netns_enter(netns, &saved);
	if (err)
		return err;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	err = fd < 0 ? -errno : 0;
	voff__netns_leave(saved);
	if (err)
		return err;
	err = features_read(fd, ifname, &names, &feats);
	close(fd);
	if (err)
		return err == -EOPNOTSUPP ? -ENODEV : err;
	for (uint32_t i = 0; i < names->len && !err; i++) {
		char name[ETH_GSTRING_LEN + 1];
		uint32_t bit = 1u << (i % 32);
		const struct ethtool_get_features_block *blk =
			&feats->features[i / 32];

		memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN,
		       ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (!name[0])
			continue;
		err = cb(name, blk->active & bit,
			 (blk->available & bit) && !(blk->never_changed & bit),
			 arg);
	}
	free(names);
	free(feats);
	return err;
}

struct feat_find {
	const char *name;
	int active;
};

static int find_cb(const char *name, bool active, bool changeable, void *arg)
{
	struct feat_find *f = arg;

	(void)changeable;
	if (strcmp(name, f->name))
		return 0;
	f->active = active;
	return 1;
}

int voff_netlink_feature(const char *netns, const char *ifname,
			 const char *feature)
{
	struct feat_find f = { .name = feature, .active = -ENOENT };
	int err;

	if (!feature)
		return -EINVAL;
	err = voff_netlink_features(netns, ifname, find_cb, &f);
	if (err < 0)
		return err;
	return f.active;
}

static int active_cb(const char *name, bool active, bool changeable,
		     void *arg)
{
	uint64_t *set = arg, bits;

	(void)changeable;
	if (active && !voff_feat_lookup(name, &bits))
		*set |= bits;
	return 0;
}

int voff_netlink_feat_active(const char *netns, const char *ifname,
			     uint64_t *out)
{
	uint64_t set = 0;
	int err = voff_netlink_features(netns, ifname, active_cb, &set);

	if (err)
		return err;
	*out = set;
	return 0;
}
