"""Geometry helpers: flatten simple paths (absolute M/L/C, Z), clip polygons
to half-planes and horizontal bands, format numbers for SVG."""
import re

def flatten(d, steps=16):
    toks = re.findall(r'[MLCZ]|-?\d+(?:\.\d+)?', d)
    pts = []; i = 0; cur = None; cmd = None
    while i < len(toks):
        t = toks[i]
        if t in 'MLCZ':
            cmd = t; i += 1
            if t == 'Z': continue
        if cmd in 'ML':
            cur = (float(toks[i]), float(toks[i+1])); i += 2; pts.append(cur)
        elif cmd == 'C':
            p1 = (float(toks[i]), float(toks[i+1])); p2 = (float(toks[i+2]), float(toks[i+3])); p3 = (float(toks[i+4]), float(toks[i+5])); i += 6
            p0 = cur
            for s in range(1, steps+1):
                u = s/steps; v = 1-u
                x = v**3*p0[0] + 3*v*v*u*p1[0] + 3*v*u*u*p2[0] + u**3*p3[0]
                y = v**3*p0[1] + 3*v*v*u*p1[1] + 3*v*u*u*p2[1] + u**3*p3[1]
                pts.append((x, y))
            cur = p3
    return pts

def clip_half(poly, keep):
    out = []
    n = len(poly)
    for k in range(n):
        a = poly[k]; b = poly[(k+1) % n]
        ina, inb = keep(a), keep(b)
        if ina: out.append(a)
        if ina != inb:
            out.append(inter(a, b, keep))
    return out

def band(poly, y0, y1):
    """the part of polygon poly between y0 and y1"""
    p = clip_half(poly, lambda q: q[1] >= y0)
    p = clip_half(p, lambda q: q[1] <= y1)
    return p

def inter(a, b, keep):
    # bisection is simplest for arbitrary predicates
    lo, hi = a, b
    for _ in range(40):
        m = ((lo[0]+hi[0])/2, (lo[1]+hi[1])/2)
        if keep(m) == keep(lo): lo = m
        else: hi = m
    return lo

def pts(p):
    return ' '.join('%s,%s' % (fmt(x), fmt(y)) for x, y in p)

def fmt(v):
    s = '%.1f' % v
    return s[:-2] if s.endswith('.0') else s
