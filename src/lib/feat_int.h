/* SPDX-License-Identifier: MIT */
/*
 * feat_int.h - private to the feature files (feat.c, feat_text.c,
 * tunflags.c, xmit.c): the table generated from VOFF_FEAT_MAP
 */
#ifndef VOFF_FEAT_INT_H
#define VOFF_FEAT_INT_H

#include <stdint.h>

#include <voff/feat.h>

/**
 * struct voff__feat_def - one row of VOFF_FEAT_MAP
 * @name:	ethtool name
 * @bit:	bit number in a feature set
 * @flags:	VOFF_FEAT_SW, VOFF_FEAT_HIDDEN
 */
struct voff__feat_def {
	const char *name;
	uint8_t bit;
	uint8_t flags;
};

extern const struct voff__feat_def voff__feat_defs[VOFF_FEAT__COUNT];

#endif /* VOFF_FEAT_INT_H */
