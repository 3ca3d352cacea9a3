#!/bin/sh
# Regenerates the drawings of ../svg that are built from scripted geometry
# (offset bands, clipped stripes, batched paths). The bird, scarab, ankh and
# head symbols are written by hand in ../svg and not touched here.
# Needs python3 (standard library only). Run from anywhere, then
# `go test ./kiosk/ui/art` (and -update once the contact sheet looks right).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../svg"
python3 "$here/stones.py"
python3 "$here/bricks.py"
python3 "$here/paddle.py"
python3 "$here/mask.py" ghost-mask.svg
python3 "$here/cartouche.py" cartouche.svg
python3 "$here/frame.py" frame-congratulation.svg
python3 "$here/backdrops.py"
python3 "$here/wordmark.py" wordmark.svg >/dev/null
for s in eye snake; do
	{
		echo '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
		python3 "$here/$s.py"
		echo '</svg>'
	} >"symbol-$s.svg"
done
