/* SPDX-License-Identifier: MIT */
/*
 * tunflags.c - TUNSETOFFLOAD flags: their names, the TAP transmit features
 * they give, and the virtio_net_hdr sizes TUN and AF_PACKET accept
 * (docs/kernel-model.md §5.4, §5.5)
 *
 * TUNSETOFFLOAD tells the kernel what the *reader* of a TAP can take: the
 * flags become the TAP's transmit features, so the kernel hands the reader
 * super-packets and partial checksums only when it said yes.  The pairing
 * rules below were checked exhaustively (flag values 0..0x3ff) against a
 * 6.18 TAP; tests/unit/test_feat.c pins the accepted set.
 */
#include <errno.h>
#include <stdio.h>

#include <voff/feat.h>

static const struct {
	unsigned int bit;
	const char *name;
} flag_names[] = {
#define X(e, bit, name) { bit, name },
	VOFF_TUN_F_MAP(X)
#undef X
};

#define N_FLAG_NAMES (sizeof(flag_names) / sizeof(flag_names[0]))

const char *voff_tun_flag_name(unsigned int bit)
{
	for (size_t i = 0; i < N_FLAG_NAMES; i++)
		if (flag_names[i].bit == bit)
			return flag_names[i].name;
	return "?";
}

int voff_tun_flags_format(unsigned int set, char *buf, size_t len)
{
	size_t used = 0;
	int n;

	if (len)
		buf[0] = '\0';
	if (!(set & VOFF_TUN_F_ALL))
		return snprintf(buf, len, "-");
	for (size_t i = 0; i < N_FLAG_NAMES; i++) {
		if (!(set & flag_names[i].bit))
			continue;
		n = snprintf(used < len ? buf + used : NULL,
			     used < len ? len - used : 0, "%s%s",
			     used ? "," : "", flag_names[i].name);
		if (n < 0)
			return n;
		used += (size_t)n;
	}
	return (int)used;
}

int voff_feat_from_tun(unsigned int flags, uint64_t *out)
{
	unsigned int left = flags;
	uint64_t f = 0;

	if (left & VOFF_TUN_F_CSUM) {
		f |= VOFF_F_HW_CSUM;
		left &= ~VOFF_TUN_F_CSUM;
		if (left & (VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6)) {
			if (left & VOFF_TUN_F_TSO_ECN)
				f |= VOFF_F_TSO_ECN;
			if (left & VOFF_TUN_F_TSO4)
				f |= VOFF_F_TSO;
			if (left & VOFF_TUN_F_TSO6)
				f |= VOFF_F_TSO6;
			left &= ~(VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6 |
				  VOFF_TUN_F_TSO_ECN);
		}
		/* UFO is accepted for old readers and means nothing. */
		left &= ~VOFF_TUN_F_UFO;
		if ((left & VOFF_TUN_F_USO4) && (left & VOFF_TUN_F_USO6)) {
			f |= VOFF_F_GSO_UDP_L4;
			left &= ~(VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6);
		}
		/* A tunnel needs an inner segmentation type to wrap. */
		if ((left & VOFF_TUN_F_UDP_TUNNEL_GSO) &&
		    (f & (VOFF_F_TSO | VOFF_F_TSO6 | VOFF_F_GSO_UDP_L4))) {
			f |= VOFF_F_GSO_UDP_TUNNEL;
			if (left & VOFF_TUN_F_UDP_TUNNEL_GSO_CSUM)
				f |= VOFF_F_GSO_UDP_TUNNEL_CSUM;
			left &= ~(VOFF_TUN_F_UDP_TUNNEL_GSO |
				  VOFF_TUN_F_UDP_TUNNEL_GSO_CSUM);
		}
	}
	/* Whatever is left is unknown or unpaired: refuse it all. */
	if (left)
		return -EINVAL;
	*out = f;
	return 0;
}

unsigned int voff_feat_to_tun(uint64_t f)
{
	unsigned int t = 0;

	if (!(f & VOFF_F_HW_CSUM))
		return 0;
	t |= VOFF_TUN_F_CSUM;
	if (f & VOFF_F_TSO)
		t |= VOFF_TUN_F_TSO4;
	if (f & VOFF_F_TSO6)
		t |= VOFF_TUN_F_TSO6;
	if ((f & VOFF_F_TSO_ECN) && (t & (VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6)))
		t |= VOFF_TUN_F_TSO_ECN;
	if (f & VOFF_F_GSO_UDP_L4)
		t |= VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6;
	if ((f & VOFF_F_GSO_UDP_TUNNEL) &&
	    (t & (VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6 | VOFF_TUN_F_USO4))) {
		t |= VOFF_TUN_F_UDP_TUNNEL_GSO;
		if (f & VOFF_F_GSO_UDP_TUNNEL_CSUM)
			t |= VOFF_TUN_F_UDP_TUNNEL_GSO_CSUM;
	}
	return t;
}

int voff_feat_tap_apply(struct voff_feat_dev *tap, unsigned int flags)
{
	uint64_t set;
	int err = voff_feat_from_tun(flags, &set);

	if (err)
		return err;
	tap->wanted = (tap->wanted & ~VOFF_F_TUN_USER) | set;
	/* tun_net_fix_features(): user bits only as the reader set them. */
	tap->active &= ~VOFF_F_TUN_USER;
	voff_feat_dev_update(tap);
	tap->active &= set | ~VOFF_F_TUN_USER;
	tap->active = voff_feat_fix(tap->active, tap->gso_partial);
	tap->vlan = tap->active & ~(VOFF_F_HW_VLAN_CTAG_TX |
				    VOFF_F_HW_VLAN_STAG_TX);
	/*
	 * Encapsulated super-packets reach the reader whole only if the
	 * encapsulation subset has the tunnel bits: assumed to follow the
	 * reader's flags as on 6.17+ with UDP tunnel GSO (not verified here;
	 * shell has no ioctl to set TUNSETOFFLOAD in the oracle test).
	 */
	tap->enc = tap->active;
	return 0;
}

bool voff_tun_hdr_len_is_valid(int len)
{
	return len >= 10;
}

bool voff_packet_hdr_len_is_valid(int len)
{
	return len == 0 || len == 10 || len == 12;
}
