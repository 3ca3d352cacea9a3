import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import fmt

def R(x, y, w, h):  # clockwise rectangle subpath
    return 'M%s %s H%s V%s H%s Z' % (fmt(x), fmt(y), fmt(x+w), fmt(y+h), fmt(x))

def P(x):
    return ('M{0} 10 H{1} C{2} 10 {3} 22 {3} 38 C{3} 54 {2} 66 {1} 66 H{4} V110 H{0} Z '
            'M{4} 26 V50 H{5} C{6} 50 {7} 45 {7} 38 C{7} 31 {6} 26 {5} 26 Z ').format(
        x, x+44, x+62, x+72, x+20, x+42, x+49, x+52) + R(x-7, 102, 34, 8) + ' ' + R(x-7, 10, 27, 8), 72

def H(x):
    return ('M{0} 10 H{1} V52 H{2} V10 H{3} V110 H{2} V68 H{1} V110 H{0} Z '.format(x, x+20, x+60, x+80)
            + R(x-7, 10, 34, 8) + ' ' + R(x-7, 102, 34, 8) + ' ' + R(x+53, 10, 34, 8) + ' ' + R(x+53, 102, 34, 8)), 80

def A(x):
    return ('M{0} 10 H{1} L{2} 110 H{3} L{4} 92 H{5} L{6} 110 H{7} Z M{8} 34 L{9} 76 H{10} Z '.format(
        x+32, x+52, x+84, x+63, x+58, x+26, x+21, x, x+42, x+31, x+53)
            + R(x-6, 102, 34, 8) + ' ' + R(x+56, 102, 34, 8)), 84

def Rr(x):
    return ('M{0} 10 H{1} C{2} 10 {3} 22 {3} 37 C{3} 50 {4} 59 {5} 63 L{6} 110 H{7} L{8} 66 H{9} V110 H{0} Z '
            'M{9} 26 V50 H{10} C{11} 50 {12} 45 {12} 38 C{12} 31 {11} 26 {10} 26 Z '.format(
                x, x+44, x+62, x+72, x+65, x+54, x+76, x+54, x+35, x+20, x+42, x+49, x+52)
            + R(x-7, 102, 34, 8) + ' ' + R(x-7, 10, 27, 8) + ' ' + R(x+50, 102, 34, 8)), 76

def O(x):
    cx = x + 43
    return ('M{0} 10 A43 50 0 0 1 {0} 110 A43 50 0 0 1 {0} 10 Z M{0} 28 A23 32 0 0 0 {0} 92 A23 32 0 0 0 {0} 28 Z'.format(fmt(cx))), 86

def N(x):
    return ('M{0} 10 H{1} L{2} 78 V10 H{3} V110 H{4} L{5} 42 V110 H{0} Z '.format(x, x+22, x+62, x+80, x+58, x+18)
            + R(x-7, 10, 29, 8) + ' ' + R(x-7, 102, 32, 8) + ' ' + R(x+55, 10, 32, 8)), 80

import re, math
from clip import clip_half
from emit import sub, cw, ccw

def polys(d):
    """subpaths of a path made of absolute M L H V C Z commands, as polygons"""
    toks = re.findall(r'[MLHVCZ]|-?\d+(?:\.\d+)?', d)
    out, cur, i, cmd, pos = [], [], 0, None, (0, 0)
    while i < len(toks):
        t = toks[i]
        if t in 'MLHVCZ':
            cmd = t; i += 1
            if t == 'Z':
                out.append(cur); cur = []
            continue
        if cmd == 'M':
            pos = (float(toks[i]), float(toks[i+1])); i += 2; cur = [pos]; cmd = 'L'
        elif cmd == 'L':
            pos = (float(toks[i]), float(toks[i+1])); i += 2; cur.append(pos)
        elif cmd == 'H':
            pos = (float(toks[i]), pos[1]); i += 1; cur.append(pos)
        elif cmd == 'V':
            pos = (pos[0], float(toks[i])); i += 1; cur.append(pos)
        elif cmd == 'C':
            p1 = (float(toks[i]), float(toks[i+1])); p2 = (float(toks[i+2]), float(toks[i+3])); p3 = (float(toks[i+4]), float(toks[i+5])); i += 6
            p0 = pos
            for k in range(1, 13):
                u = k/12; v = 1-u
                cur.append((v**3*p0[0] + 3*v*v*u*p1[0] + 3*v*u*u*p2[0] + u**3*p3[0], v**3*p0[1] + 3*v*v*u*p1[1] + 3*v*u*u*p2[1] + u**3*p3[1]))
            pos = p3
    return out

def O_polys(x):
    cx = x + 43
    outer = [(cx + 43*math.sin(2*math.pi*k/64), 60 - 50*math.cos(2*math.pi*k/64)) for k in range(64)]
    inner = [(cx + 23*math.sin(2*math.pi*k/64), 60 - 32*math.cos(2*math.pi*k/64)) for k in range(64)]
    return [cw(outer), ccw(inner)]

shapes = []  # every subpath, with its orientation kept (counters run backwards)
x = 24
for f in (P, H, A, Rr, A, O, N):
    d, w = f(x)
    shapes += O_polys(x) if f is O else polys(d)
    x += w + 16
W = x - 16 + 24

def D(ps, dx=0, dy=0):
    return ' '.join(sub([(a + dx, b + dy) for a, b in p]) for p in ps if len(p) > 2)

def band(ps, y0, y1):
    out = []
    for p in ps:
        q = clip_half(p, lambda pt: pt[1] >= y0)
        q = clip_half(q, lambda pt: pt[1] <= y1)
        if len(q) > 2: out.append(q)
    return out

out = []
out.append('<path fill="#040818" fill-opacity="0.55" d="%s"/>' % D(shapes, 5, 7))
outline = []
for dx, dy in ((-3, 0), (3, 0), (0, -3), (0, 3), (-2.1, -2.1), (2.1, -2.1), (-2.1, 2.1), (2.1, 2.1)):
    out.append('<path fill="#2A1606" d="%s"/>' % D(shapes, dx, dy))
# metal: flat bands with a sharp horizon (gradients are slow to rasterise)
out.append('<path fill="#D9A03A" d="%s"/>' % D(shapes))
out.append('<path fill="#F3CF6E" d="%s"/>' % D(band(shapes, 0, 58)))
out.append('<path fill="#FFF1C4" d="%s"/>' % D(band(shapes, 0, 22)))
out.append('<path fill="#A8741C" d="%s"/>' % D(band(shapes, 94, 120)))
# the underline: a gold rule with lozenge ends and a turquoise centre
fmtp = lambda ps: ' '.join('%s,%s' % (fmt(a), fmt(b)) for a, b in ps)
out.append('<polygon fill="#2A1606" points="%s"/>' % fmtp([(14, 131), (34, 124), (W-34, 124), (W-14, 131), (W-34, 138), (34, 138)]))
out.append('<polygon fill="#D9A03A" points="%s"/>' % fmtp([(20, 131), (36, 126.5), (W-36, 126.5), (W-20, 131), (W-36, 135.5), (36, 135.5)]))
out.append('<polygon fill="#F3CF6E" points="%s"/>' % fmtp([(20, 131), (36, 126.5), (W-36, 126.5), (W-26, 129.5)]))
cx = W/2
out.append('<polygon fill="#2A1606" points="%s"/>' % fmtp([(cx-16, 131), (cx, 119), (cx+16, 131), (cx, 143)]))
out.append('<polygon fill="#26B3A6" points="%s"/>' % fmtp([(cx-11.5, 131), (cx, 122.5), (cx+11.5, 131), (cx, 139.5)]))
with open(sys.argv[1], 'w') as f:
    f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s 150">\n' % fmt(W))
    for l in out: f.write(l + '\n')
    f.write('</svg>\n')
print(W)
