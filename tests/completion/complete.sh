#!/bin/bash
# SPDX-License-Identifier: MIT
# complete.sh - extras/completion/sqpack.bash against this build's tools:
# every installed program gets the completion, codec names are exactly
# the codecs built, each tool offers its own options (imginfo its
# commands and each command's options), values complete by kind, and
# bash-completion's loader finds it by any tool's name.
. "$top_srcdir/tests/lib/common.sh"

# bin/ after the unwrapped programs: sqpack-fuse is linked whole there.
PATH=$SQP_BIN:$top_builddir/bin:$PATH
COMPLETION=$top_srcdir/extras/completion/sqpack.bash
# shellcheck source=/dev/null
. "$COMPLETION" || { fail "the script loads"; finish; }

# offers LINE: what completing LINE offers, space separated, sorted.
offers() {
	read -ra COMP_WORDS <<< "$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$1 COMP_POINT=${#1}
	COMPREPLY=()
	_sqpack_complete
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'
}
# has LINE WORD...: completing LINE offers every WORD.
has() {
	local got w
	got=" $(offers "$1") "
	for w in "${@:2}"; do [[ $got == *" $w "* ]] || { echo "'$1' offers [$got], not $w"; return 1; }; done
}
# is LINE WORDS: completing LINE offers exactly WORDS.
is() {
	local got
	got=$(offers "$1")
	[[ $got == "$2" ]] || { echo "'$1' offers [$got], not [$2]"; return 1; }
}

tools="tar2img dir2img img2img img2tar img2dir imginfo sqpack-mksquashfs sqpack-unsquashfs sqfscat sqpack-mkfs.erofs sqpack-fuse"
registered() { [[ $(complete -p "$1" 2>/dev/null) == *"-F _sqpack_complete $1" ]]; }
for t in $tools; do check "$t: registered" registered "$t"; done
# Every program this build installs is among them.
for p in "$top_builddir"/bin/*; do
	[ -f "$p" ] && [ -x "$p" ] || continue
	n=${p##*/}
	case " $tools " in *" $n "*) ;; *) fail "$n is built but has no completion" ;; esac
done

built=$(for c in $ALL_CODECS; do codec_built "$c" && echo "$c"; done | sort | tr '\n' ' ' | sed 's/ $//')
check "tar2img -c: the codecs of this build ($built)" is "tar2img -c " "$built"
check "tar2img --compressor: the same" is "tar2img --compressor " "$built"
check "dir2img -c: the same" is "dir2img -c " "$built"
check "sqpack-mksquashfs -comp: the same" is "sqpack-mksquashfs -comp " "$built"
check "tar2img -c z: zstd only" is "tar2img -c z" "$(codec_built zstd && echo zstd)"

check "tar2img options" has "tar2img --" --compressor --block-size --jobs --no-dedup --mem --spec --help
check "dir2img options" has "dir2img --" --compressor --one-file-system --help
check "dir2img: the chunks' options" has "dir2img --" --chunk-size --blobdev
check "dir2img: the hints' options" has "dir2img --" --compress-hints --hint-compressor
check "dir2img --hint-compressor: the codecs" is "dir2img --hint-compressor " "$built"
check "sqpack-mkfs.erofs: --compress-hints" has "sqpack-mkfs.erofs --" --compress-hints
check "img2dir and img2tar: --device" has "img2dir --" --device && has "img2tar --" --device
check "sqpack-mkfs.erofs: the chunks' options" has "sqpack-mkfs.erofs --" --chunksize --blobdev --ungzip
check "img2tar options" has "img2tar --" --offset --sparse --help
check "img2dir options" has "img2dir --" --force --no-owner --offset --help
check "sqpack-mksquashfs options" has "sqpack-mksquashfs -no" -noappend -no-xattrs -no-progress
if [ -x "$top_builddir/bin/sqpack-fuse" ]; then
	check "sqpack-fuse options" has "sqpack-fuse -" -o -f -s -d --help
	check "sqpack-fuse -o: its -o options" has "sqpack-fuse -o " offset= uid= gid= \
		umask= fmask= dmask= subdir= timeout= notify_pipe= cachesize= allow_other ro \
		fsname= auto_unmount max_threads= clone_fd
	check "sqpack-fuse -o su: subdir= subtype=" is "sqpack-fuse -o su" "subdir= subtype="
else
	skipc "sqpack-fuse: not built"
fi
check "sqpack-unsquashfs options" has "sqpack-unsquashfs -no" -no-xattrs -no-progress -no-wildcards
check "sqfscat: registered with its help" registered sqfscat
check "imginfo commands" is "imginfo " "cat check diff ls stat summary verity"
check "imginfo after --offset N: commands" has "imginfo --offset 0 " check ls
check "imginfo check options" has "imginfo check -" --jobs --quiet
check "imginfo diff options" is "imginfo diff --ig" "--ignore-mtime --ignore-owner --ignore-xattrs"
check "--progress=: its modes" is "tar2img --progress=" "auto json none tty"
check "--whiteouts=: its modes" is "tar2img --whiteouts=" "none oci overlay"
check "dir2img layer options" has "dir2img --" --layers --prefix --whiteouts
check "dir2img EROFS options" has "dir2img --" --ztailpacking --erofs-fragments --erofs-dedupe \
	--max-extent-bytes --erofs-compress-dirs --erofs-metabox --erofs-metazone
check "sqpack-mkfs.erofs: --zD" has "sqpack-mkfs.erofs --z" --zD
check "tar2img's index and overlay options" has "tar2img --" --index --headers-only --ovlfs-strip
# --index is tar2img's alone.
strip_offered() {
	! has "dir2img --" --index > /dev/null && has "dir2img --" --ovlfs-strip &&
		has "img2img --o" --ovlfs-strip
}
check "dir2img and img2img: --ovlfs-strip, not --index" strip_offered
check "--uncompressed=: its parts" is "dir2img --uncompressed=" "all data fragments inodes xattrs"
check "-j N: no guess" is "tar2img -j " ""
check "Android's options" has "dir2img --" --file-contexts --fs-config-file --mount-point \
	--product-out
check "sqpack-mkfs.erofs Android's options" has "sqpack-mkfs.erofs --" --file-contexts \
	--fs-config-file --mount-point --product-out

mkdir -p "$SCRATCH/d/sub" && : > "$SCRATCH/d/spec.txt"
check "--spec FILE: files" is "tar2img --spec $SCRATCH/d/sp" "$SCRATCH/d/spec.txt"
check "--fs-config-file FILE: files" is "tar2img --fs-config-file $SCRATCH/d/sp" "$SCRATCH/d/spec.txt"
check "sqpack-mkfs.erofs --file-contexts=FILE: files" is \
	"sqpack-mkfs.erofs --file-contexts=$SCRATCH/d/sp" "$SCRATCH/d/spec.txt"
check "--product-out DIR: directories" is "dir2img --product-out $SCRATCH/d/" "$SCRATCH/d/sub"
check "sqpack-unsquashfs -d DIR: directories" is "sqpack-unsquashfs -d $SCRATCH/d/" "$SCRATCH/d/sub"
check "an image argument: files" has "img2tar $SCRATCH/d/" "$SCRATCH/d/spec.txt" "$SCRATCH/d/sub"

# bash-completion's loader finds the script under any tool's name, and
# that registers every tool.
bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then
	mkdir -p "$SCRATCH/user/completions"
	cp "$COMPLETION" "$SCRATCH/user/completions/tar2img"
	ln -s tar2img "$SCRATCH/user/completions/img2dir"
	check "bash-completion loads it by name" env -u BASH_COMPLETION_USER_DIR bash -c '
		export BASH_COMPLETION_USER_DIR=$1
		. "$2"; __load_completion img2dir && complete -p imginfo | grep -q _sqpack_complete' \
		sh "$SCRATCH/user" "$bc"
else
	note "bash-completion is not installed: its loader not checked"
fi
finish
