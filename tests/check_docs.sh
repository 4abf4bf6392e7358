#!/usr/bin/env bash
# tests/check_docs.sh - the Markdown files say only what the repository holds:
#   1. every relative link [text](path) resolves to a file or folder;
#   2. every file path named in backticks (`common/verify.c`, `tc_model.h`, `docs/bench-h200.csv`)
#      exists, relative to the Markdown file's folder or to the repository's root; generated paths
#      (build/, bin/, $OUT) and patterns (*, <...>, {...}) are not paths to check;
#   3. no file refers to a document that is not in the repository (the team's design notes);
#   4. every lesson (a chapter folder's Markdown file other than NOTES.md) is at most 400 lines.
# Prints one line per problem and exits 1 if there is any.
set -u
cd "$(dirname "$0")/.." || exit 1
problems=0
problem() { printf '%s\n' "$*"; problems=$((problems + 1)); }

# every Markdown file of the tree (not git's list: a copy without git metadata checks the same)
skip=(-path ./build -o -path './.*') # and every hidden folder (.git, scratch copies)
mapfile -t docs < <(find . \( "${skip[@]}" \) -prune -o -name '*.md' -print | sed 's|^\./||' | sort)
for md in "${docs[@]}"; do
    dir=$(dirname "$md")
    # 1. links: ](target) where target is not a URL or an anchor
    while IFS= read -r target; do
        target=${target%%#*}
        [ -z "$target" ] && continue
        case $target in http://* | https://* | mailto:*) continue ;; esac
        [ -e "$dir/$target" ] || problem "$md: link to '$target', which does not exist"
    done < <(grep -o '\](\([^)]*\))' "$md" | sed 's/^](//; s/)$//')
    # 2. paths in backticks: a token with a known extension or a folder prefix of this repository
    while IFS= read -r path; do
        case $path in
        build/* | */build/* | bin/* | '$'* | *'*'* | *'<'* | *'{'* | *' '* | *'...'* | /*) continue ;;
        esac
        if [[ $path == */* ]]; then # a path: from the Markdown file's folder or from the root
            [ -e "$dir/$path" ] || [ -e "$path" ] || problem "$md: names '$path', which does not exist"
        else # a bare file name: some folder of the repository must have it
            [ -e "$dir/$path" ] || [ -n "$(find . \( "${skip[@]}" \) -prune -o -name "$path" -print -quit)" ] ||
                problem "$md: names '$path', which no folder has"
        fi
    done < <(grep -o '`[^`]*`' "$md" | tr -d '`' |
        grep -E '^[A-Za-z0-9_./-]+\.(c|h|cu|cuh|md|sh|py|mk|txt|csv|png)$|^(\.\./)?(common|tests|docs|0[0-9]_[a-z0-9_]+)/[A-Za-z0-9_./-]*$' |
        sort -u)
done

# 3. references to documents outside the repository
refs=$(find . \( "${skip[@]}" -o -path ./.ci \) -prune -o -type f ! -name check_docs.sh -print0 |
    xargs -0 grep -n -I -E 'DESIGN\.md|\.\./shared/' 2>/dev/null)
[ -n "$refs" ] && while IFS= read -r line; do problem "$line: refers to a document outside the repository"; done <<<"$refs"

# 4. lessons of at most 400 lines (a longer one is split into more lesson files: CONTRIBUTING.md)
lessons=0
for md in "${docs[@]}"; do
    [[ $md =~ ^[0-9][0-9]_[^/]+/[^/]+\.md$ ]] || continue
    [ "$(basename "$md")" = NOTES.md ] && continue
    lessons=$((lessons + 1))
    n=$(wc -l <"$md")
    [ "$n" -le 400 ] || problem "$md: $n lines, a lesson is at most 400 (split it)"
done

[ "$problems" = 0 ] && echo "Markdown links and paths resolve (${#docs[@]} files); $lessons lessons of at most 400 lines"
[ "$problems" = 0 ]
