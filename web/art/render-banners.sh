#!/usr/bin/env bash
# Renders the banner artwork (art/banners/*.svg, drawn for this project) to the WebP files the site
# imports from src/site/assets. Needs Debian's librsvg2-bin (rsvg-convert) and webp (cwebp):
#   apt-get install -y librsvg2-bin webp
# The output is committed; the build never runs this.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../src/site/assets"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
for svg in "$here"/banners/*.svg; do
  name="$(basename "$svg" .svg)"
  for width in 480 768 1200; do
    rsvg-convert --width "$width" --keep-aspect-ratio "$svg" -o "$tmp/$name-$width.png"
    cwebp -quiet -q 72 -m 6 -sharp_yuv -metadata none "$tmp/$name-$width.png" -o "$out/$name-$width.webp"
  done
done
ls -l "$out"
