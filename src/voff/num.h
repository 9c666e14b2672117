/* SPDX-License-Identifier: MIT */
/*
 * num.h - the one number parser of the voff command
 *
 * Every number a subcommand reads from its command line (option values,
 * NAME=VALUE limits, TUNSETOFFLOAD flags) goes through num_parse(), so
 * they all follow one rule:
 *
 *  - decimal digits, or 0x / 0X and hexadecimal digits;
 *  - leading zeros are decimal ("010" is ten, not eight as strtoul reads
 *    it);
 *  - no sign, no blanks, no unit suffix: anything else is not a number;
 *  - a negative number ("-1") is a number out of range, not a syntax
 *    error, and so is one beyond 64 bits;
 *  - the range [lo, hi] is inclusive.
 *
 * num_parse() only answers; num_opt() also prints the one-line message
 * a usage error gets, naming the option and its range.
 */
#ifndef VOFF_CMD_NUM_H
#define VOFF_CMD_NUM_H

#include <stdint.h>

/**
 * num_parse() - read an unsigned number in [@lo, @hi]
 * @s:		the text (NUL-terminated)
 * @lo:		smallest value accepted
 * @hi:		largest value accepted
 * @out:	receives the value on success; untouched on failure
 *
 * Return: 0; -EINVAL when @s is not a number by the rule above (empty,
 * a sign, a blank, a suffix, "0x" alone); -ERANGE when it is a number
 * outside [@lo, @hi], negative, or beyond 64 bits.
 */
int num_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/**
 * num_opt() - num_parse() for a command-line value, with its message
 * @cmd:	the subcommand as messages name it ("voff gso")
 * @opt:	the option as the user wrote it ("--mss", "-l mtu")
 * @s:		the value
 * @lo:		smallest value accepted
 * @hi:		largest value accepted
 * @out:	receives the value on success
 *
 * On failure prints one line on standard error,
 * "voff gso: --mss: 65535 out of range (1..65534)" or
 * "voff gso: --mss: 'x' is not a number".
 *
 * Return: 0, or the error of num_parse() (the caller exits with
 * VOFF_EXIT_USAGE).
 */
int num_opt(const char *cmd, const char *opt, const char *s, uint64_t lo,
	    uint64_t hi, uint64_t *out);

/** num_opt_u32() - num_opt() into a 32-bit value (@hi at most UINT32_MAX) */
int num_opt_u32(const char *cmd, const char *opt, const char *s, uint32_t lo,
		uint32_t hi, uint32_t *out);

#endif /* VOFF_CMD_NUM_H */
