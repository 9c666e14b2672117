/* SPDX-License-Identifier: MIT */
/*
 * err.c - voff_strerror() and voff_err_name(), generated from VOFF_ERR_MAP
 * in err.h for voff's own codes and from the C library for errno values.
 */
#include <errno.h>
#include <string.h>

#include <voff/err.h>

static const char *const names[] = {
#define X(e, n, m) [VOFF__EI_##e - VOFF_E_BASE] = n,
	VOFF_ERR_MAP(X)
#undef X
};

static const char *const messages[] = {
#define X(e, n, m) [VOFF__EI_##e - VOFF_E_BASE] = m,
	VOFF_ERR_MAP(X)
#undef X
};

/* errno names for the codes the library returns; others print "errno". */
static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "eperm" },	  { ENOENT, "enoent" },
	{ EIO, "eio" },		  { E2BIG, "e2big" },
	{ EBADF, "ebadf" },	  { EAGAIN, "eagain" },
	{ ENOMEM, "enomem" },	  { EACCES, "eacces" },
	{ EFAULT, "efault" },	  { EBUSY, "ebusy" },
	{ EEXIST, "eexist" },	  { ENODEV, "enodev" },
	{ EINVAL, "einval" },	  { ENOSPC, "enospc" },
	{ ERANGE, "erange" },	  { ENOSYS, "enosys" },
	{ EMSGSIZE, "emsgsize" }, { EPROTO, "eproto" },
	{ EOPNOTSUPP, "eopnotsupp" }, { ENOBUFS, "enobufs" },
	{ ENOTCONN, "enotconn" }, { ETIMEDOUT, "etimedout" },
	{ EOVERFLOW, "eoverflow" }, { ENXIO, "enxio" },
	{ EINTR, "eintr" },	  { EPIPE, "epipe" },
	{ ENETDOWN, "enetdown" }, { EBADMSG, "ebadmsg" },
};

/* Compared, never negated: -INT_MIN would overflow. */
bool voff_err_is_voff(int err)
{
	return err < -VOFF_E_BASE && err > -(int)VOFF__E_LAST;
}

const char *voff_strerror(int err)
{
	if (err == 0)
		return "success";
	if (voff_err_is_voff(err))
		return messages[-err - VOFF_E_BASE];
	if (err < 0 && err > -VOFF_E_BASE)
		return strerror(-err);
	return "unknown error";
}

const char *voff_err_name(int err)
{
	if (err == 0)
		return "ok";
	if (voff_err_is_voff(err))
		return names[-err - VOFF_E_BASE];
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]);
	     i++)
		if (-errno_names[i].err == err)
			return errno_names[i].name;
	return err < 0 && err > -VOFF_E_BASE ? "errno" : "?";
}
