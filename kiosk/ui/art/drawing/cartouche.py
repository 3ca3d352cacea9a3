import os, sys, math; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import pts, fmt

def stadium(x0, x1, y0, y1, n=48):
    """closed polygon of a vertical stadium (semicircle ends), clockwise on screen"""
    r = (x1 - x0)/2; cx = (x0 + x1)/2
    top, bot = y0 + r, y1 - r
    p = []
    for i in range(n+1):  # top arc from left (180deg) to right (360deg)
        a = math.pi + math.pi*i/n
        p.append((cx + r*math.cos(a), top + r*math.sin(a)))
    for i in range(n+1):  # bottom arc from right (0) to left (180)
        a = math.pi*i/n
        p.append((cx + r*math.cos(a), bot + r*math.sin(a)))
    return p

def stadium_path(x0, x1, y0, y1):
    r = (x1 - x0)/2; cx = (x0 + x1)/2
    return 'M%s %s A%s %s 0 0 1 %s %s L%s %s A%s %s 0 0 1 %s %s Z' % (
        fmt(x0), fmt(y0 + r), fmt(r), fmt(r), fmt(x1), fmt(y0 + r), fmt(x1), fmt(y1 - r), fmt(r), fmt(r), fmt(x0), fmt(y1 - r))

def along(poly, period, fn):
    L = [0]
    for i in range(1, len(poly)): L.append(L[-1] + math.dist(poly[i-1], poly[i]))
    tot = L[-1]; out = []; s = period/2
    while s < tot:
        for i in range(1, len(poly)):
            if L[i] >= s:
                u = (s - L[i-1])/(L[i]-L[i-1]); p0, p1 = poly[i-1], poly[i]
                x = p0[0] + u*(p1[0]-p0[0]); y = p0[1] + u*(p1[1]-p0[1])
                dx, dy = (p1[0]-p0[0])/(L[i]-L[i-1]), (p1[1]-p0[1])/(L[i]-L[i-1])
                out.append(fn(x, y, dx, dy)); break
        s += period
    return out

from emit import sub, cw, ccw
def spath(poly): return sub(cw(poly))
def sring(o, i): return sub(cw(o)) + ' ' + sub(ccw(i))
out = []
# tie bar at the bottom (drawn first: the loop sits on it)
out.append('<rect fill="#2A1A05" x="22" y="726" width="256" height="40" rx="14" ry="14"/>')
out.append('<rect fill="#D9A93A" x="25" y="729" width="250" height="34" rx="11" ry="11"/>')
out.append('<path fill="#8A6318" fill-opacity="0.7" d="M36 752 L264 752 C268 752 271 755 271 758 L271 760 L29 760 L29 758 C29 755 32 752 36 752 Z"/>')
out.append('<rect fill="#FFF1C4" fill-opacity="0.6" x="36" y="733" width="228" height="4" rx="2" ry="2"/>')
S = lambda x0, x1, y0, y1: stadium(x0, x1, y0, y1, n=40)
out.append('<path fill="#D9A93A" d="%s"/>' % sring(S(11, 289, 7, 741), S(26, 274, 22, 726)))
# bevel: light on the upper left of the rim, shade on the lower right
shifted = lambda dx, dy: [(x + dx, y + dy) for x, y in S(11, 289, 7, 741)]
out.append('<path fill="#FBE7A1" fill-opacity="0.85" d="%s"/>' % sring(S(11, 289, 7, 741), shifted(4, 5)))
out.append('<path fill="#7A5514" fill-opacity="0.8" d="%s"/>' % sring(S(11, 289, 7, 741), shifted(-4, -5)))
mid = stadium(19.5, 280.5, 15.5, 732.5, n=60)
def twist(x, y, dx, dy):
    nx, ny = -dy, dx
    a, b = 6.5, 2.2  # half width across the rim, half length along
    sk = 3.0
    return [(x + nx*a + dx*(-b+sk), y + ny*a + dy*(-b+sk)), (x + nx*a + dx*(b+sk), y + ny*a + dy*(b+sk)),
            (x - nx*a + dx*(b-sk), y - ny*a + dy*(b-sk)), (x - nx*a + dx*(-b-sk), y - ny*a + dy*(-b-sk))]
out.append('<path fill="#8A6318" fill-opacity="0.55" d="%s"/>' % ' '.join(spath(q) for q in along(mid, 13, twist)))
# tablet with a soft inner shadow at the top
out.append('<path fill="#C9B184" d="%s"/>' % spath(S(26, 274, 22, 726)))
out.append('<path fill="#F1E3C2" d="%s"/>' % spath(S(30, 270, 29, 722)))
# faint incised dividers between the six rows
dark, light = [], []
for k in range(1, 6):
    y = 76 + 99*k
    dark.append(spath([(52, y - 1), (248, y - 1), (248, y + 1), (52, y + 1)]))
    light.append(spath([(52, y + 1), (248, y + 1), (248, y + 2.2), (52, y + 2.2)]))
out.append('<path fill="#B89A62" fill-opacity="0.55" d="%s"/>' % ' '.join(dark))
out.append('<path fill="#FFFFFF" fill-opacity="0.45" d="%s"/>' % ' '.join(light))
# ink: the outer and inner edges of the gold rim
out.append('<path fill="#2A1A05" d="%s %s"/>' % (sring(S(8, 292, 4, 744), S(11, 289, 7, 741)), sring(S(26, 274, 22, 726), S(28, 272, 24, 724))))
with open(sys.argv[1], 'w') as f:
    f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 770">\n')
    for l in out: f.write(l + '\n')
    f.write('</svg>\n')

# count pips
with open('pip-empty.svg', 'w') as f:
    f.write('''<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40">
<circle fill="#8A6318" cx="20" cy="20" r="14"/>
<circle fill="#C9B184" cx="20" cy="20" r="11.5"/>
<circle fill="#B89A62" cx="20" cy="19" r="10"/>
<circle fill="#D8C49A" cx="20" cy="21.5" r="8.5"/>
</svg>
''')
with open('pip-full.svg', 'w') as f:
    f.write('''<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40">
<defs><radialGradient id="bead" cx="0.5" cy="0.5" r="0.5" fx="0.38" fy="0.34"><stop offset="0" stop-color="#FFF3C0"/><stop offset="0.45" stop-color="#E9B949"/><stop offset="1" stop-color="#8A5A12"/></radialGradient></defs>
<circle fill="#2A1A05" cx="20" cy="20" r="17"/>
<circle fill="url(#bead)" cx="20" cy="20" r="15"/>
<circle fill="#C2452B" cx="20" cy="20" r="7"/>
<circle fill="#F07A62" cx="18" cy="18" r="3"/>
<ellipse fill="#FFFFFF" fill-opacity="0.8" cx="14" cy="12.5" rx="4" ry="2.5"/>
</svg>
''')
# plaque: limestone roundel with a gold rim, behind a symbol revealed on the playfield
with open('plaque.svg', 'w') as f:
    f.write('''<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<defs><linearGradient id="rim" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#FBE7A1"/><stop offset="0.5" stop-color="#D9A93A"/><stop offset="1" stop-color="#8A6318"/></linearGradient>
<linearGradient id="stone" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#F5EAD0"/><stop offset="1" stop-color="#E0CA98"/></linearGradient></defs>
<circle fill="#2A1A05" cx="50" cy="50" r="49"/>
<circle fill="url(#rim)" cx="50" cy="50" r="47"/>
<circle fill="#2A1A05" cx="50" cy="50" r="42"/>
<circle fill="#C9B184" cx="50" cy="50" r="41"/>
<circle fill="url(#stone)" cx="50" cy="51.5" r="39.5"/>
</svg>
''')
