# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# voff.bash - bash completion for voff(1): subcommands, their options and
# option values, feature names, limit names, port specs and the ports of a
# running switch.  Installed as share/bash-completion/completions/voff;
# `source` it to try it without installing.
#
# Nothing here lists what voff can print: each completion asks the voff
# being completed (the word the user typed, else the one on PATH).
#   subcommands           `voff help`, the lines under "commands:"
#   options               `voff CMD --help`, lines that start with an option
#                         ("-l, --limit NAME=N   ...") and usage brackets
#                         ("[--csum full|partial]")
#   option values         by the placeholder the help gives: a|b (those
#                         words), FILE or PATH (files), SRC (the profiles
#                         the help names, or a file), FLAGS (the TUN flags
#                         it names, comma-separated), NAME=N (limit names),
#                         SPEC (port specs, from `voff switch --help`)
#   feature names         `voff features -b none` (ethtool -k names), and
#                         the short names `voff features --help` gives
#   limit names           `voff features -L` (the "limits:" line); for
#                         `voff ctl limits`, the list in `voff ctl --help`
#   ctl commands, ports   `voff ctl --help`; `voff ctl -j ports`; files
#                         after `voff ctl save`; --prometheus after
#                         `voff ctl stats`
#
# The command line is split at blanks, not at bash's word breaks (: and =
# are part of a port spec or of NAME=N); quoted blanks are not handled.

# _voff_reply CUR WORD... - COMPREPLY: each WORD that extends CUR, less the
# part of CUR up to bash's last word break (":", "=", ...), which the shell
# does not replace.  A WORD ending in = : or , is continued without a space.
# Duplicates are dropped.
_voff_reply()
{
	local cur=$1 pre="" c i

	shift
	for ((i = ${#cur} - 1; i >= 0; i--)); do
		c=${cur:i:1}
		if [[ ${COMP_WORDBREAKS-} == *"$c"* ]]; then
			pre=${cur:0:i+1}
			break
		fi
	done
	COMPREPLY=()
	for c in "$@"; do
		[[ $c == "$cur"* && " ${COMPREPLY[*]} " != *" ${c#"$pre"} "* ]] ||
			continue
		COMPREPLY+=("${c#"$pre"}")
		if [[ $c == *[=:,] ]]; then
			compopt -o nospace 2>/dev/null || :
		fi
	done
}

# _voff_files CUR - add to COMPREPLY the file names that extend CUR after
# its last word break.
_voff_files()
{
	local cur=$1 c i

	for ((i = ${#cur} - 1; i >= 0; i--)); do
		c=${cur:i:1}
		if [[ ${COMP_WORDBREAKS-} == *"$c"* ]]; then
			cur=${cur:i+1}
			break
		fi
	done
	compopt -o filenames 2>/dev/null || :
	mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
}

# _voff_flat VOFF ARGS... - the output of `VOFF ARGS...` on one line.
_voff_flat()
{
	"$@" 2>/dev/null | tr '\n\t' '  ' | tr -s ' '
}

# _voff_between TEXT START END - the words of TEXT between START and END
# (the first END after START), commas and parentheses dropped.
_voff_between()
{
	local s=${1#*"$2"}
	local -a w

	[[ $s != "$1" ]] || return 0
	s=${s%%"$3"*}
	read -ra w <<<"${s//[,()]/ }"
	printf '%s\n' "${w[@]}"
}

# _voff_opts VOFF CMD - "OPTION ARG" lines (ARG "-" for none) of CMD.
_voff_opts()
{
	"$1" "$2" --help 2>/dev/null | awk '
	/^[ \t]*-/ {
		spec = $0
		sub(/^[ \t]+/, "", spec)
		sub(/  .*/, "", spec)
		n = split(spec, w, /[ ,]+/)
		arg = "-"
		for (i = 1; i <= n; i++)
			if (w[i] !~ /^-/) { arg = w[i]; break }
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^-/) print w[i], arg
	}
	{
		s = $0
		while (match(s, /\[-[^]]*\]/)) {
			n = split(substr(s, RSTART + 1, RLENGTH - 2), w, " ")
			print w[1], (n > 1 ? w[2] : "-")
			s = substr(s, RSTART + RLENGTH)
		}
	}'
}

# _voff_optarg OPTION - the placeholder of OPTION in _voff_optab ("-" for
# none, empty when unknown); a|b choices win over a word such as MODE.
_voff_optarg()
{
	local l arg=""

	for l in "${_voff_optab[@]}"; do
		[[ ${l%% *} == "$1" ]] || continue
		[[ -z $arg || ${l#* } == *"|"* ]] && arg=${l#* }
	done
	printf '%s' "$arg"
}

_voff_features()
{
	"$1" features -b none 2>/dev/null |
		sed -n 's/^[[:space:]]*\([a-z0-9_-]*\): .*/\1/p'
	_voff_between "$(_voff_flat "$1" features --help)" "short names " "..." |
		grep -x '[a-z]*'
}

_voff_limits()
{
	"$1" features -L -b none 2>/dev/null |
		awk '$1 == "limits:" { for (i = 2; i <= NF; i += 2) print $i }'
}

# _voff_spec VOFF CUR - a port spec, KIND:NAME[@NETNS][,OPTION=VALUE...],
# with the kinds and options `voff switch --help` gives after "SPEC:".
_voff_spec()
{
	local bin=$1 cur=$2 help w v opt
	local -a found=() words=() vals

	help=$("$bin" switch --help 2>/dev/null | sed -n '/^SPEC:/,/^-/p')
	if [[ $cur != *:* ]]; then
		mapfile -t found < <(grep -o '^  [a-z][a-z]*:[A-Z]' <<<"$help")
		for w in "${found[@]}"; do w=${w#  }; words+=("${w%?}"); done
	elif [[ $cur == *,* ]]; then
		opt=${cur##*,}
		mapfile -t found < <(grep -v '^SPEC:' <<<"$help" |
			grep -o '[a-z_][a-z_]*=[A-Za-z|]*')
		for w in "${found[@]}"; do
			if [[ $opt != *=* ]]; then
				words+=("${cur%,*},${w%%=*}=")
			elif [[ ${w%%=*} == "${opt%%=*}" && $w == *"|"* ]]; then
				IFS='|' read -ra vals <<<"${w#*=}"
				for v in "${vals[@]}"; do words+=("${cur%=*}=$v"); done
			fi
		done
	elif [[ $cur == pcap:* ]]; then
		_voff_files "$cur"
		return
	elif [[ $cur == *@* ]]; then
		for w in /run/netns/*; do
			[[ -e $w ]] && words+=("${cur%@*}@${w##*/}")
		done
	elif [[ $cur == packet:* ]]; then
		for w in /sys/class/net/*; do
			[[ -e $w ]] && words+=("packet:${w##*/}")
		done
	fi
	_voff_reply "$cur" "${words[@]}"
}

# _voff_value VOFF CMD PLACEHOLDER CUR - complete an option's value.
_voff_value()
{
	local bin=$1 cmd=$2 arg=$3 cur=$4 w
	local -a words=() found=()

	case $arg in
	*"|"*)
		IFS='|' read -ra words <<<"$arg"
		_voff_reply "$cur" "${words[@]}"
		;;
	FILE | PATH)
		_voff_files "$cur"
		;;
	SRC)
		mapfile -t words < <(_voff_between \
			"$(_voff_flat "$bin" "$cmd" --help)" "SRC is a profile (" ")")
		_voff_reply "$cur" "${words[@]}"
		_voff_files "$cur"
		;;
	FLAGS)
		mapfile -t found < <(_voff_between \
			"$(_voff_flat "$bin" "$cmd" --help)" "a list: " ")")
		for w in "${found[@]}"; do
			[[ $cur == *,* ]] && w=${cur%,*},$w
			words+=("$w")
		done
		_voff_reply "$cur" "${words[@]}"
		;;
	NAME=*)
		mapfile -t found < <(_voff_limits "$bin")
		for w in "${found[@]}"; do words+=("$w="); done
		_voff_reply "$cur" "${words[@]}"
		;;
	SPEC)
		_voff_spec "$bin" "$cur"
		;;
	esac
}

# _voff_ports VOFF [--ctl PATH] - port names of the running switch.
_voff_ports()
{
	local bin=$1

	shift
	timeout 2 "$bin" ctl "$@" -j ports 2>/dev/null |
		grep -o '"name":"[^"]*"' | sed 's/^"name":"//; s/"$//'
}

# _voff_ctl VOFF CUR CTLOPTS POSITIONALS... - `voff ctl` after its options:
# COMMAND [ARGS], as `voff ctl --help` lists them.
_voff_ctl()
{
	local bin=$1 cur=$2 ctlopt=$3 help
	local -a ctl=() words=()

	shift 3
	[[ -n $ctlopt ]] && ctl=(--ctl "$ctlopt")
	# One command a line after "COMMAND:", its help after two spaces.
	help=$("$bin" ctl --help 2>/dev/null | awk '
		/^COMMAND:/ { on = 1; next }
		on && /^$/ { exit }
		on {
			sub(/  .*/, "")
			split($0, w, " ")
			print w[1], (w[2] ~ /^[a-z]+$/ ? w[2] : "")
		}')
	if [[ $# -eq 0 ]]; then
		mapfile -t words < <(awk '{ print $1 }' <<<"$help" | sort -u)
	else
		case "$1 $#" in
		"ports 1")
			mapfile -t words < <(awk -v c="$1" '$1 == c && $2 { print $2 }' \
				<<<"$help")
			;;
		"ports 2")
			if [[ $2 == add ]]; then
				_voff_spec "$bin" "$cur"
				return
			fi
			mapfile -t words < <(_voff_ports "$bin" "${ctl[@]}")
			;;
		"features 1" | "limits 1" | "stats 1")
			mapfile -t words < <(_voff_ports "$bin" "${ctl[@]}")
			;;
		"save 1")
			# The client writes the configuration to a file.
			_voff_files "$cur"
			return
			;;
		features*)
			if (($# % 2 == 0)); then
				mapfile -t words < <(_voff_features "$bin")
			else
				words=(on off)
			fi
			;;
		limits*)
			# The settings `voff ctl --help` lists, those taken
			# at open left out.
			(($# % 2 == 0)) && mapfile -t words < <("$bin" ctl \
				--help 2>/dev/null |
				grep -v 'when the port is opened' |
				sed -n 's/^  \([a-z_]*\)=.*/\1/p')
			;;
		esac
	fi
	_voff_reply "$cur" "${words[@]}"
}

_voff()
{
	local line=${COMP_LINE:0:COMP_POINT} bin cur prev cmd="" arg w i
	local ctlopt="" skip=0
	local -a words pos=() cands=() _voff_optab=()

	read -ra words <<<"$line"
	[[ ${#words[@]} -eq 0 || $line == *[[:space:]] ]] && words+=("")
	cur=${words[-1]}
	bin=${words[0]}
	[[ $bin == \~/* ]] && bin=$HOME/${bin#\~/}
	command -v -- "$bin" >/dev/null 2>&1 || bin=voff
	COMPREPLY=()

	if [[ ${#words[@]} -le 2 ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t cands < <("$bin" help 2>/dev/null |
				grep -o -- '--[a-z][a-z-]*' | sort -u)
		else
			mapfile -t cands < <("$bin" help 2>/dev/null | awk '
				/^commands:/ { on = 1; next }
				on && !NF { exit }
				on { print $1 }')
		fi
		_voff_reply "$cur" "${cands[@]}"
		return 0
	fi
	cmd=${words[1]}
	mapfile -t _voff_optab < <(_voff_opts "$bin" "$cmd")

	# Options and their values, then the positional words before CUR.
	for ((i = 2; i < ${#words[@]} - 1; i++)); do
		w=${words[i]}
		if ((skip)); then
			skip=0
			[[ $prev == --ctl ]] && ctlopt=$w
			continue
		fi
		if [[ $w == -?* && $w != *=* ]]; then
			prev=$w
			arg=$(_voff_optarg "$w")
			[[ -n $arg && $arg != - ]] && skip=1
			continue
		fi
		[[ $w == --ctl=* ]] && ctlopt=${w#*=}
		[[ $w == -?* ]] || pos+=("$w")
	done

	if ((skip)); then
		_voff_value "$bin" "$cmd" "$(_voff_optarg "$prev")" "$cur"
		return 0
	fi
	if [[ $cur == --*=* ]]; then
		arg=$(_voff_optarg "${cur%%=*}")
		[[ -n $arg && $arg != - ]] &&
			_voff_value "$bin" "$cmd" "$arg" "${cur#*=}"
		return 0
	fi
	if [[ $cur == -* ]]; then
		cands=("${_voff_optab[@]%% *}")
		# `voff ctl stats` takes --prometheus after the command.
		[[ $cmd == ctl && ${pos[0]-} == stats ]] && cands=(--prometheus)
		_voff_reply "$cur" "${cands[@]}"
		return 0
	fi

	case $cmd in
	inspect | gso | gro)
		_voff_files "$cur"
		;;
	features)
		if ((${#pos[@]} % 2 == 0)); then
			mapfile -t cands < <(_voff_features "$bin")
		else
			cands=(on off)
		fi
		_voff_reply "$cur" "${cands[@]}"
		;;
	ctl)
		_voff_ctl "$bin" "$cur" "$ctlopt" "${pos[@]}"
		;;
	esac
	return 0
}

complete -F _voff voff
