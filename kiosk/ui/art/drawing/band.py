import os, sys, math; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import flatten, pts, fmt

def arclen(p):
    L = [0.0]
    for i in range(1, len(p)):
        L.append(L[-1] + math.dist(p[i-1], p[i]))
    return L

def trim(p, a, b):
    """keep the part of polyline p between arc length a from start and b from end"""
    L = arclen(p); tot = L[-1]
    lo, hi = a, tot - b
    out = []
    for i in range(len(p)):
        if lo <= L[i] <= hi:
            out.append(p[i])
    def at(s):
        for i in range(1, len(p)):
            if L[i] >= s:
                u = (s - L[i-1]) / max(L[i] - L[i-1], 1e-9)
                return (p[i-1][0] + u*(p[i][0]-p[i-1][0]), p[i-1][1] + u*(p[i][1]-p[i-1][1]))
        return p[-1]
    return [at(lo)] + out + [at(hi)]

def band(d, w0, w1=None, steps=24, cut=0.0, wmid=None):
    """polygon of a band along centerline d, width from w0 to w1 (linear, or via wmid quadratic)"""
    if w1 is None: w1 = w0
    p = flatten(d, steps)
    # dedupe
    q = [p[0]]
    for x in p[1:]:
        if math.dist(x, q[-1]) > 1e-6: q.append(x)
    p = q
    if cut: p = trim(p, cut, cut)
    L = arclen(p); tot = L[-1]
    left, right = [], []
    for i in range(len(p)):
        if i == 0: dx, dy = p[1][0]-p[0][0], p[1][1]-p[0][1]
        elif i == len(p)-1: dx, dy = p[-1][0]-p[-2][0], p[-1][1]-p[-2][1]
        else: dx, dy = p[i+1][0]-p[i-1][0], p[i+1][1]-p[i-1][1]
        n = math.hypot(dx, dy); nx, ny = -dy/n, dx/n
        s = L[i]/tot
        if wmid is None: w = w0 + (w1-w0)*s
        else: w = (1-s)**2*w0 + 2*s*(1-s)*wmid + s*s*w1
        w /= 2
        left.append((p[i][0]+nx*w, p[i][1]+ny*w)); right.append((p[i][0]-nx*w, p[i][1]-ny*w))
    return left + right[::-1]

def path(poly):
    return 'M' + ' L'.join('%s %s' % (fmt(x), fmt(y)) for x, y in poly) + ' Z'

def sub_bands(d, w0, w1, start, period, length, steps=24, shrink=5.0, endcut=2.5):
    """quads across a band: every `period` units of arc length from `start`, `length` long."""
    p = flatten(d, steps)
    q = [p[0]]
    for x in p[1:]:
        if math.dist(x, q[-1]) > 1e-6: q.append(x)
    p = q
    L = arclen(p); tot = L[-1]
    def at(s):
        for i in range(1, len(p)):
            if L[i] >= s:
                u = (s - L[i-1]) / max(L[i] - L[i-1], 1e-9)
                x = p[i-1][0] + u*(p[i][0]-p[i-1][0]); y = p[i-1][1] + u*(p[i][1]-p[i-1][1])
                dx, dy = p[i][0]-p[i-1][0], p[i][1]-p[i-1][1]
                n = math.hypot(dx, dy)
                return x, y, -dy/n, dx/n
        return p[-1][0], p[-1][1], 0, 0
    out = []
    s = start
    while s + length < tot - endcut - 2:
        quad = []
        for ss, side in ((s, 1), (s+length, 1), (s+length, -1), (s, -1)):
            x, y, nx, ny = at(ss)
            w = (w0 + (w1-w0)*ss/tot - shrink)/2
            quad.append((x + side*nx*w, y + side*ny*w))
        out.append(quad)
        s += period
    return out
