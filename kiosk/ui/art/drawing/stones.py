import os, sys, math; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import pts, fmt

LIGHT = math.radians(-125)  # light from the top left (screen coords, y down)

def hexc(c): return '#%02X%02X%02X' % tuple(int(round(v)) for v in c)
def rgb(h): h = h.lstrip('#'); return tuple(int(h[i:i+2], 16) for i in (0, 2, 4))
def lerp(a, b, t): return tuple(a[i] + (b[i]-a[i])*t for i in range(3))

class Pal:
    def __init__(s, base, light, dark): s.b, s.l, s.d = rgb(base), rgb(light), rgb(dark)
    def shade(s, v):
        v = max(-1, min(1, v))
        return hexc(lerp(s.b, s.l, v) if v >= 0 else lerp(s.b, s.d, -v))

def facet_shade(poly, cx, cy, tilt=1.0, bias=0.0):
    mx = sum(p[0] for p in poly)/len(poly); my = sum(p[1] for p in poly)/len(poly)
    ang = math.atan2(my-cy, mx-cx)
    return bias + tilt*math.cos(ang - LIGHT)

def polar(cx, cy, r, deg):
    a = math.radians(deg); return (cx + r*math.cos(a), cy + r*math.sin(a))

def round_brilliant(pal):
    cx = cy = 50; out = []
    out.append('<circle fill="#6B4A12" cx="50" cy="50" r="47"/>')
    out.append('<circle fill="#E9C46A" cx="50" cy="50" r="45"/>')
    out.append('<circle fill="#1C1206" cx="50" cy="50" r="41.5"/>')
    R, RS, RT = 40.5, 29, 19
    T = [polar(cx, cy, RT, 22.5+45*k) for k in range(8)]
    S = [polar(cx, cy, RS, 45*k+45) for k in range(8)]  # star tip beyond edge T_k..T_k+1
    G = [polar(cx, cy, R, 22.5+45*k) for k in range(8)]
    M = [polar(cx, cy, R, 45*k+45) for k in range(8)]
    facets = []
    for k in range(8):
        k1 = (k+1) % 8
        facets.append(([T[k], T[k1], S[k]], 0.9, 0.15))               # star
        facets.append(([T[k], S[(k-1) % 8], G[k], S[k]], 1.0, -0.1))  # kite
        facets.append(([S[k], G[k1], M[k]], 0.8, -0.35))              # upper girdle halves
        facets.append(([S[k], M[k], G[k]], 0.8, -0.2))
    for poly, tilt, bias in facets:
        out.append('<polygon fill="%s" points="%s"/>' % (pal.shade(facet_shade(poly, cx, cy, tilt, bias)), pts(poly)))
    out.append('<polygon fill="%s" points="%s"/>' % (pal.shade(0.25), pts(T)))
    # table glow and glints
    out.append('<polygon fill="#FFFFFF" fill-opacity="0.35" points="%s"/>' % pts([T[4], T[5], T[6], (50, 50)]))
    return out

def octagon(a, b, c, cx=50, cy=50):
    return [(cx-a+c, cy-b), (cx+a-c, cy-b), (cx+a, cy-b+c), (cx+a, cy+b-c), (cx+a-c, cy+b), (cx-a+c, cy+b), (cx-a, cy+b-c), (cx-a, cy-b+c)]

def emerald(pal):
    cx = cy = 50; out = []
    a, b, c = 32, 43, 11
    t = math.tan(math.radians(22.5))
    off = lambda d: octagon(a+d, b+d, c+d*t)
    out.append('<polygon fill="#6B4A12" points="%s"/>' % pts(off(5)))
    out.append('<polygon fill="#E9C46A" points="%s"/>' % pts(off(3)))
    out.append('<polygon fill="#1C1206" points="%s"/>' % pts(off(0)))
    rings = [off(-1.5), off(-9), off(-16), off(-22)]
    for i in range(3):
        o, n = rings[i], rings[i+1]
        for k in range(8):
            k1 = (k+1) % 8
            poly = [o[k], o[k1], n[k1], n[k]]
            bias = [-0.25, 0.0, 0.15][i]
            out.append('<polygon fill="%s" points="%s"/>' % (pal.shade(facet_shade(poly, cx, cy, 0.95, bias)), pts(poly)))
    out.append('<polygon fill="%s" points="%s"/>' % (pal.shade(0.2), pts(rings[3])))
    tb = rings[3]
    out.append('<polygon fill="#FFFFFF" fill-opacity="0.3" points="%s"/>' % pts([tb[0], tb[1], (cx+6, cy-8), (cx-10, cy+4), tb[6], tb[7]]))
    return out

def princess(pal):
    cx = cy = 50; out = []
    def dia(r): return [(cx, cy-r), (cx+r, cy), (cx, cy+r), (cx-r, cy)]
    out.append('<polygon fill="#6B4A12" points="%s"/>' % pts(dia(49)))
    out.append('<polygon fill="#E9C46A" points="%s"/>' % pts(dia(46)))
    out.append('<polygon fill="#1C1206" points="%s"/>' % pts(dia(42)))
    O, Tb = dia(40), dia(19)
    mid = lambda p, q: ((p[0]+q[0])/2, (p[1]+q[1])/2)
    for k in range(4):
        k1 = (k+1) % 4
        m = mid(O[k], O[k1])
        mm = (cx + (m[0]-cx)*0.62, cy + (m[1]-cy)*0.62)
        for poly, bias in (([O[k], m, mm], -0.3), ([m, O[k1], mm], -0.15), ([O[k], mm, Tb[k]], 0.05), ([mm, O[k1], Tb[k1]], 0.1), ([Tb[k], mm, Tb[k1]], 0.25)):
            out.append('<polygon fill="%s" points="%s"/>' % (pal.shade(facet_shade(poly, cx, cy, 0.95, bias)), pts(poly)))
    out.append('<polygon fill="%s" points="%s"/>' % (pal.shade(0.2), pts(Tb)))
    out.append('<polygon fill="#FFFFFF" fill-opacity="0.32" points="%s"/>' % pts([Tb[3], Tb[0], (cx, cy)]))
    return out

def sparkle(x, y, r):
    w = r*0.22
    return '<polygon fill="#FFFFFF" points="%s"/>' % pts([(x, y-r), (x+w, y-w), (x+r, y), (x+w, y+w), (x, y+r), (x-w, y+w), (x-r, y), (x-w, y-w)])

def write(name, body, sp):
    with open(name, 'w') as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">\n')
        for l in body: f.write(l + '\n')
        f.write(sparkle(*sp) + '\n')
        f.write('</svg>\n')

write('stone-pink.svg', round_brilliant(Pal('#E0508F', '#FFB8D8', '#8E1652')), (36, 33, 8))
write('stone-green.svg', emerald(Pal('#22A862', '#9BF0BE', '#0A5A30')), (38, 28, 8))
write('stone-blue.svg', princess(Pal('#2F6FE0', '#A9CBFF', '#0E2F80')), (40, 34, 8))
