# SPDX-License-Identifier: MIT
# bash completion for sqpack's tools.
#
# Every option list is read from the tool's own --help (once per shell and
# program path), so a completion can never offer an option the installed
# tool lacks or miss one it gained; codec names come from the
# "Compressors in this build" section, so only the codecs this build has
# are offered. Works with or without the bash-completion package.
# Installed once per tool name (the package's dynamic loader looks a
# completion up by the command's name); every name registers them all.

# _sqpack_help PROGRAM [ARGS...]: PROGRAM's help text, cached.
declare -gA _sqpack_help_cache
_sqpack_help()
{
	local key="$*"
	local text
	if [[ -z ${_sqpack_help_cache[$key]+set} ]]; then
		# unsquashfs's spelling (-help) where --help is refused.
		text=$(LC_ALL=C "$@" --help 2>&1) || text=$(LC_ALL=C "$@" -help 2>&1)
		[[ $text == *"invalid option --help"* ]] && text=$(LC_ALL=C "$@" -help 2>&1)
		_sqpack_help_cache[$key]=$text
	fi
	printf '%s\n' "${_sqpack_help_cache[$key]}"
}

# _sqpack_options HELPTEXT: every option the text names (-x, --long,
# -mksquashfs-style), once each.
_sqpack_options()
{
	grep -oE '(^|[][[:space:],(])--?[A-Za-z][A-Za-z0-9_-]*' <<<"$1" |
		sed -E 's/^[^-]*//' | sort -u
}

# _sqpack_codecs PROGRAM: the codecs of this build, from the first tool
# beside PROGRAM whose help lists them (tar2img's does).
_sqpack_codecs()
{
	local dir t list
	dir=$(dirname -- "$(type -P -- "$1" 2>/dev/null || echo "$1")")
	for t in "$1" "$dir/tar2img" tar2img; do
		type -P -- "$t" >/dev/null 2>&1 || continue
		list=$(_sqpack_help "$t" | awk '/^Compressors in this build:/ { on = 1; next }
			on && /^  [a-z0-9]+ *$/ { print $1 } on && /^[^ ]/ { on = 0 }')
		[[ -n $list ]] && { printf '%s\n' "$list"; return; }
	done
}

# _sqpack_value_kind HELPTEXT OPTION: what follows OPTION: "codec",
# "file", "dir", "none" (a number, a size, a name), "list:A B C" (one of
# these), or "" (OPTION takes no value).
_sqpack_value_kind()
{
	local help=$1 opt=$2 meta
	case $opt in
	-c | --compressor | -comp | --hint-compressor) echo codec; return ;;
	-ef | -sort | -pf | -exclude-list | -extract-file | -exclude-file | -e) echo file; return ;;
	-d | -dest) echo dir; return ;;
	-b | -processors | -p | -o | -offset | -mem | -root-mode | -root-uid | -root-gid | \
	-root-time | -force-uid | -force-gid | -mkfs-time | -fstime | -all-time | -X* | \
	-da | -fr | -data-queue | -frag-queue | -max-depth)
		[[ $opt == --* ]] || { echo none; return; } ;;
	esac
	# The help's "-x, --long META", "--long META" or "--long=META": the
	# word after the option (or after its long name) says.
	meta=$(grep -oE -m1 -- "(^|[ ,])$opt(, --[A-Za-z0-9-]+)?[ =][A-Z][A-Z_]*([ ,.]|\$)" <<<"$help" |
		head -n1 | sed -E 's/.*[ =]([A-Z][A-Z_]*)[ ,.]?$/\1/')
	case $meta in
	"") ;;
	FILE | IMAGE | OUTPUT | INPUT) echo file; return ;;
	DIR) echo dir; return ;;
	MODE)
		case $opt in
		--progress) echo "list:auto none tty json" ;;
		--whiteouts) echo "list:oci overlay none" ;;
		*) echo none ;;
		esac
		return ;;
	PARTS) echo "list:inodes data fragments xattrs all"; return ;;
	FMT) echo "list:squashfs erofs"; return ;;
	*) echo none; return ;;
	esac
}

# _sqpack_fuse_opts HELPTEXT: the -o options of sqpack-fuse's help
# ("  -o uid=N", "  -o umask=M, fmask=M": "uid=", "umask=", "fmask=").
_sqpack_fuse_opts()
{
	sed -nE 's/^  -o ([^ ].*)$/\1/p' <<<"$1" | sed -E 's/  .*//; s/, /\n/g' |
		sed -E 's/=.*/=/' | sort -u
}

_sqpack_complete()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= prog=${COMP_WORDS[0]}
	local help kind i cmd=
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# "--opt=" splits into "--opt" "=" "" with '=' in COMP_WORDBREAKS.
	if [[ $cur == = ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]}; cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == --*=* ]]; then
		prev=${cur%%=*}; cur=${cur#*=}
	fi

	help=$(_sqpack_help "$prog")
	# sqpack-fuse's -o list: the names its help shows after "-o ".
	if [[ ${prog##*/} == sqpack-fuse && $prev == -o ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_sqpack_fuse_opts "$help")" -- "$cur")
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	# imginfo's commands: the first word that is not an option or a value.
	if [[ ${prog##*/} == imginfo ]]; then
		local cmds
		cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' <<<"$help")
		for ((i = 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			--offset) ((i++)) ;;
			-*) ;;
			*) if grep -qxF -- "${COMP_WORDS[i]}" <<<"$cmds"; then cmd=${COMP_WORDS[i]}; fi; break ;;
			esac
		done
		if [[ -n $cmd ]]; then
			help=$(_sqpack_help "$prog" "$cmd")
		elif [[ $cur != -* && $prev != --offset ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$cmds" -- "$cur")
			((${#COMPREPLY[@]})) && return
		fi
	fi

	if [[ $prev == -* ]]; then
		kind=$(_sqpack_value_kind "$help" "$prev")
		case $kind in
		codec) mapfile -t COMPREPLY < <(compgen -W "$(_sqpack_codecs "$prog")" -- "$cur"); return ;;
		file) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); compopt -o filenames 2>/dev/null; return ;;
		dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); compopt -o filenames 2>/dev/null; return ;;
		list:*) mapfile -t COMPREPLY < <(compgen -W "${kind#list:}" -- "$cur"); return ;;
		none) COMPREPLY=(); return ;;
		esac
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_sqpack_options "$help")" -- "$cur")
		return
	fi
	# Positional arguments are images, archives, directories and paths.
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	compopt -o filenames 2>/dev/null
}

complete -F _sqpack_complete tar2img dir2img img2img img2tar img2dir imginfo sqpack-mksquashfs sqpack-mkfs.erofs \
	sqpack-unsquashfs sqfscat sqpack-sqfscat sqpack-fuse
