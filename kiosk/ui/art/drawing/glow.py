import math
from emit import circle_poly, sub, cw

def ellipse_poly(cx, cy, rx, ry, n=96):
    return [(cx + rx*math.cos(2*math.pi*i/n), cy + ry*math.sin(2*math.pi*i/n)) for i in range(n)]

def glow(W, H, cx, cy, base, steps, colour, op):
    """a flat stepped glow: a base rect and nested translucent ellipses (flat fills only:
    gradients cost a colour evaluation per pixel of the whole image in the rasteriser)"""
    out = ['<rect fill="%s" x="0" y="0" width="%d" height="%d"/>' % (base, W, H)]
    for i in range(steps):
        f = 1 - 0.85*i/steps
        out.append('<path fill="%s" fill-opacity="%s" d="%s"/>' % (colour, op, sub(cw(ellipse_poly(cx*W, cy*H, W*0.78*f, H*0.8*f)))))
    return out
