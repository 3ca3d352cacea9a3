import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import *
from emit import Paths, sub, cw
L = Paths()
paints = {}
def P(fill, op, d):
    # shapes of one paint share one <path>, in the order the paint first appears
    key = (fill, op)
    if key not in paints: paints[key] = 'l%d' % len(paints)
    L.add(paints[key], d)
def G(fill, op, poly): P(fill, op, sub(cw(poly)))
out = []
# halo
out.append('<ellipse fill="#BFEFF0" fill-opacity="0.08" cx="50" cy="60" rx="50" ry="60"/>')
wings = "M50 5 C68 5 80 14 82 30 L86 58 L97 94 L97 100 L3 100 L3 94 L14 58 L18 30 C20 14 32 5 50 5 Z"
P("#DCE8F0", 0.6, wings)
wp = flatten(wings)
for y in range(14, 96, 7):
    p = band(wp, y, y + 3)
    if len(p) > 2: G("#7F96B4", 0.32, p)
# lappets in front of the wings
for lap in ("M20 40 L33 40 L35 102 L16 102 Z", "M80 40 L67 40 L65 102 L84 102 Z"):
    P("#E8F0F6", 0.72, lap)
    lp = flatten(lap)
    for y in range(45, 100, 6):
        G("#7F96B4", 0.35, band(lp, y, y + 2.6))
# collar
collar = "M16 94 C30 106 70 106 84 94 L91 110 C72 121 28 121 9 110 Z"
P("#D6F2EE", 0.62, collar)
for i, (a, b) in enumerate([(99, 101.5), (104, 106.5), (109, 111.5)]):
    G("#7FB8B4" if i % 2 == 0 else "#8FA6C0", 0.45, band(flatten(collar), a, b))
# face
face = "M50 22 C62 22 70 30 70 45 C70 61 66 75 58 82 C55 84.5 45 84.5 42 82 C34 75 30 61 30 45 C30 30 38 22 50 22 Z"
P("#F4F9FB", 0.82, face)
P("#9FB4C8", 0.25, "M30 45 C31 60 35 72 42 80 C38 70 36 58 36 46 Z")
P("#9FB4C8", 0.25, "M70 45 C69 60 65 72 58 80 C62 70 64 58 64 46 Z")
# brow band of the headdress over the forehead
P("#C8D8E6", 0.75, "M30 32 C36 24 64 24 70 32 L70 36 C64 29 36 29 30 36 Z")
# uraeus and vulture at the brow
P("#E8F0F6", 0.8, "M47 28 L47 18 C47 14 53 14 53 18 L53 28 Z")
P("#7F96B4", 0.4, "M48.5 24 L48.5 19 C48.5 17 51.5 17 51.5 19 L51.5 24 Z")
# brows
P("#6E86A6", 0.55, "M34 40 C38 36 44 36 47 38.5 L46.5 40 C43 38.5 38 38.5 34.5 41.5 Z")
P("#6E86A6", 0.55, "M66 40 C62 36 56 36 53 38.5 L53.5 40 C57 38.5 62 38.5 65.5 41.5 Z")
# hollow eyes with kohl lines
P("#0E1630", 0.62, "M35 46 C38 42 44 42 47 45.5 C44 48.5 38 49 35 46 Z")
P("#0E1630", 0.62, "M65 46 C62 42 56 42 53 45.5 C56 48.5 62 49 65 46 Z")
P("#0E1630", 0.45, "M35 46 L30 47.5 L30.5 48.5 L36 47 Z")
P("#0E1630", 0.45, "M65 46 L70 47.5 L69.5 48.5 L64 47 Z")
# nose and mouth
P("#9FB4C8", 0.4, "M48 46 L47 60 C47.5 62.5 49 63 50 63 C51 63 52.5 62.5 53 60 L52 46 C51 50 49 50 48 46 Z")
P("#5E7494", 0.5, "M45.5 64.5 C47 63.5 53 63.5 54.5 64.5 C53 65.5 47 65.5 45.5 64.5 Z")
P("#5E7494", 0.5, "M43 69 C46 68 54 68 57 69 C54 71 46 71 43 69 Z")
# false beard
beard = "M46 84 L54 84 L55 107 C55 111 45 111 45 107 Z"
P("#CCDCE8", 0.75, beard)
for y in (88, 93, 98, 103):
    G("#7F96B4", 0.42, band(flatten(beard), y, y + 2))
for (fill, op), name in paints.items():
    out.append('<path fill="%s" fill-opacity="%s" d="%s"/>' % (fill, op, L.d(name)))
with open(sys.argv[1], 'w') as f:
    f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 120">\n')
    for l in out: f.write(l + '\n')
    f.write('</svg>\n')
