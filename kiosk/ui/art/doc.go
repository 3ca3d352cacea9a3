// Package art is the kiosk's own artwork and look: the SVG drawings of the
// game (the six symbols of the cartouche in colour and as black silhouettes,
// the three spell stones, the ghost mask, bricks, paddle, ball, backdrops, the
// cartouche, the congratulation frame, the PHARAON wordmark), the palette of
// the tomb-wall night (DESIGN.md §8) and the Fyne theme built on it.
//
// Screens ask for drawings by meaning, never by file name:
//
//	SymbolResource(game.Scarab, revealed)  Art. 4.2, 4.6; SymbolGlowResource for a blinking combination
//	StoneResource(game.Pink)               Art. 4.5
//	BrickResource(i), BonusBrickResource(cracked), SlotResource()
//	PaddleResource(), NewPaddleArt() (three slices for a resized paddle), BallResource()
//	GhostMaskResource()                    Art. 4.4
//	CartoucheResource() with CartoucheSymbolBox(i), CartoucheCountBox(i), CountPipResource(filled)
//	CongratulationFrameResource() with FrameContent
//	PlayfieldBackdropResource(), HomeBackdropResource() with HomeContent
//	SymbolPlaqueResource(), WordmarkResource()
//	Theme(), the palette variables (Lapis, Gold, Sand, Terracotta, Turquoise, ...)
//	Rasterize(res, w, h, fill): a quick one-off raster of the big drawings
//
// Every drawing is hand-written SVG kept within what Fyne's renderer
// (github.com/fyne-io/oksvg over rasterx) draws correctly: filled paths,
// polygons, rects, circles and ellipses; fills, fill-opacity and opacity
// inherited from <g>; linear and radial gradients in objectBoundingBox units;
// translate/rotate transforms. It avoids what that renderer gets wrong:
// strokes (their width does not scale with the image), userSpaceOnUse
// gradients (wrong once scaled), fill-rule (always nonzero: holes are drawn as
// reversed subpaths), text, filters, masks and clip paths (not supported),
// and one-argument scale() (read as scale(x, 0)). The package's tests render
// every drawing through Fyne's test driver and keep a contact sheet as a
// golden image (testdata/contact-sheet.png; `go test ./kiosk/ui/art -update`
// rewrites it).
//
// README.md lists the drawings, the palette, the renderer's limits and
// advice for the screens.
//
// The package draws nothing by itself and holds no state beyond the embedded
// files: it must never depend on the kiosk's state or money, and must never
// show a symbol other than the one it is asked for. A revealed symbol and its
// silhouette are one drawing (see Silhouette), so their outlines cannot drift
// apart.
package art
