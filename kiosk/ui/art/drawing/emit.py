"""Batches consecutive shapes of the same paint into one <path>: Fyne's
rasteriser (rasterx ScannerGV) sweeps the whole image once per element, so
big drawings must have few elements."""
import math
from clip import fmt

def area(poly):
    return sum(poly[i][0]*poly[(i+1) % len(poly)][1] - poly[(i+1) % len(poly)][0]*poly[i][1] for i in range(len(poly)))/2

def cw(poly):
    # clockwise on screen (y down) == positive shoelace area
    return poly if area(poly) >= 0 else poly[::-1]

def sub(poly):
    return 'M' + ' L'.join('%s %s' % (fmt(x), fmt(y)) for x, y in poly) + ' Z'

def circle_poly(cx, cy, r, n=28):
    return [(cx + r*math.cos(2*math.pi*i/n), cy + r*math.sin(2*math.pi*i/n)) for i in range(n)]

class Emitter:
    def __init__(self):
        self.out = []; self.key = None; self.subs = []
    def flush(self):
        if self.subs:
            fill, op = self.key
            o = '' if op is None else ' fill-opacity="%s"' % op
            self.out.append('<path fill="%s"%s d="%s"/>' % (fill, o, ' '.join(self.subs)))
        self.subs = []; self.key = None
    def poly(self, fill, poly, op=None):
        k = (fill, op)
        if k != self.key:
            self.flush(); self.key = k
        self.subs.append(sub(cw(poly)))
    def circle(self, fill, cx, cy, r, op=None, n=None):
        if n is None: n = max(12, min(64, int(r*2)))
        self.poly(fill, circle_poly(cx, cy, r, n), op)
    def raw(self, s):
        self.flush(); self.out.append(s)
    def lines(self):
        self.flush(); return self.out

def ccw(poly):
    return cw(poly)[::-1]

def ring(outer, inner):
    """one path: outer clockwise with inner as a counter-clockwise hole"""
    return sub(cw(outer)) + ' ' + sub(ccw(inner))

def ribbon(points, w):
    """a band of width w along an open polyline"""
    left, right = [], []
    n = len(points)
    for i in range(n):
        a = points[max(i-1, 0)]; b = points[min(i+1, n-1)]
        dx, dy = b[0]-a[0], b[1]-a[1]
        l = math.hypot(dx, dy) or 1
        nx, ny = -dy/l*w/2, dx/l*w/2
        left.append((points[i][0]+nx, points[i][1]+ny)); right.append((points[i][0]-nx, points[i][1]-ny))
    return left + right[::-1]

def rrect(x, y, w, h, r, n=6):
    """rounded rectangle polygon, clockwise"""
    if r <= 0: return [(x, y), (x+w, y), (x+w, y+h), (x, y+h)]
    p = []
    for cx, cy, a0 in ((x+w-r, y+r, -90), (x+w-r, y+h-r, 0), (x+r, y+h-r, 90), (x+r, y+r, 180)):
        for i in range(n+1):
            a = math.radians(a0 + 90*i/n)
            p.append((cx + r*math.cos(a), cy + r*math.sin(a)))
    return p

class Paths:
    """collects subpaths per named layer, written in a fixed order"""
    def __init__(self): self.layers = {}; self.order = []
    def add(self, layer, d):
        if layer not in self.layers: self.layers[layer] = []; self.order.append(layer)
        self.layers[layer].append(d)
    def poly(self, layer, poly): self.add(layer, sub(cw(poly)))
    def circle(self, layer, cx, cy, r, n=None):
        if n is None: n = max(12, min(64, int(r*2)))
        self.poly(layer, circle_poly(cx, cy, r, n))
    def d(self, layer): return ' '.join(self.layers.get(layer, []))
