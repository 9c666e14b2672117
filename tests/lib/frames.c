/* SPDX-License-Identifier: MIT */
/* frames.c - test frame builder (being written; see frames.h). */
#include "frames.h"
