import os, sys, math; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import pts, fmt, clip_half
from emit import Paths, sub, cw, ccw, ring, ribbon, rrect, circle_poly

def mirror(poly, cx): return [(2*cx - x, y) for x, y in poly]

def bez(p, t):
    u = 1 - t
    return (u**3*p[0][0] + 3*u*u*t*p[1][0] + 3*u*t*t*p[2][0] + t**3*p[3][0],
            u**3*p[0][1] + 3*u*u*t*p[1][1] + 3*u*t*t*p[2][1] + t**3*p[3][1])

def winged_disc(cx, cy, s, P):
    """winged sun disc centred at (cx, cy), scale s (1 = 600 units wide), into layers
    turq, lapis, cov, ink, white, disc_gold, disc_red, disc_light (written in that order)"""
    TOP = [(22, -20), (100, -50), (220, -50), (300, -18)]
    BOT = [(22, 38), (110, 58), (235, 36), (300, -18)]
    N = 72
    tops = [bez(TOP, i/N) for i in range(N+1)]
    bots = [bez(BOT, i/N) for i in range(N+1)]
    def edge(f, i): return (tops[i][0] + f*(bots[i][0]-tops[i][0]), tops[i][1] + f*(bots[i][1]-tops[i][1]))
    def lower(f, feathers, amp, grow=0.0):
        out = []
        for i in range(N+1):
            x, y = edge(f, i)
            ph = (i/N)*feathers
            d = abs(ph - round(ph))
            out.append((x, y + grow + amp*(1 - 2*d) * (1 - i/N*0.6)))
        return out
    def layer(f, feathers, amp, grow=0.0):
        return [(x, y - grow) for x, y in tops] + lower(f, feathers, amp, grow)[::-1]
    def T(poly, side):
        p = [(cx + x*s, cy + y*s) for x, y in poly]
        return p if side == 1 else mirror(p, cx)
    for side in (1, -1):
        P.poly('turq', T(layer(1.0, 17, 5), side))
        P.poly('lapis', T(layer(0.6, 13, 4), side))
        P.poly('cov', T(layer(0.3, 10, 3), side))
        P.poly('white', T([edge(0.04, i) for i in range(3, N-6)] + [edge(0.1, i) for i in range(N-6, 2, -1)], side))
        # ink: the outline as a ring around the whole wing, ribbons along the
        # edges of the inner rows, and the quills between the feathers
        P.add('ink', ring(T(layer(1.0, 17, 5, grow=3.2), side), T(layer(1.0, 17, 5), side)))
        P.poly('ink', T(ribbon(lower(0.6, 13, 4), 2.6), side))
        P.poly('ink', T(ribbon(lower(0.3, 10, 3), 2.6), side))
        for f0, f1, n, w in ((0.6, 1.0, 17, 2.2), (0.3, 0.6, 13, 1.9)):
            for k in range(1, n):
                i = int(round(k/n*N))
                a, b = edge(f0, i), edge(f1, i)
                b = (b[0], b[1] - 2)
                P.poly('ink', T([(a[0]-w/2, a[1]), (a[0]+w/2, a[1]), (b[0]+w/2, b[1]), (b[0]-w/2, b[1])], side))
    P.add('ink', ring(circle_poly(cx, cy, 36*s, 64), circle_poly(cx, cy, 33*s, 64)))
    P.circle('disc_gold', cx, cy, 33.5*s)
    P.circle('disc_red', cx, cy, 27*s)
    P.circle('disc_light', cx - 5*s, cy - 5*s, 15*s)
    P.poly('white', [(cx - 10*s + 7*s*math.cos(a*math.pi/16), cy - 12*s + 4*s*math.sin(a*math.pi/16)) for a in range(32)])

WING_PAINT = [('turq', '#26B3A6', None), ('lapis', '#1E3A8A', None), ('cov', '#E0B248', None),
              ('ink', '#2A1A05', None), ('disc_gold', '#E0B248', None), ('disc_red', '#B3241C', None),
              ('disc_light', '#E04A36', None), ('white', '#FFFFFF', '0.45')]

def paint(P, order, out):
    for name, fill, op in order:
        d = P.d(name)
        if not d: continue
        o = '' if op is None else ' fill-opacity="%s"' % op
        out.append('<path fill="%s"%s d="%s"/>' % (fill, o, d))

def block_cells(x0, y0, x1, y1, t, P, cell=22, gap=4, names=('c0', 'c1', 'c2')):
    """the painted border of tombs: cells of three colours in turn around a rectangle"""
    k = 0
    def run(ax, ay, bx, by, horizontal):
        nonlocal k
        length = (bx - ax) if horizontal else (by - ay)
        n = max(1, int(round(length / (cell + gap))))
        step = length / n
        for i in range(n):
            a = i*step + gap/2; b = (i+1)*step - gap/2
            if horizontal: poly = [(ax + a, ay), (ax + b, ay), (ax + b, ay + t), (ax + a, ay + t)]
            else: poly = [(ax, ay + a), (ax + t, ay + a), (ax + t, ay + b), (ax, ay + b)]
            P.poly(names[k % 3], poly); k += 1
    run(x0 + t, y0, x1 - t, y0, True)
    run(x0 + t, y1 - t, x1 - t, y1 - t, True)
    run(x0, y0 + t, x0, y1 - t, False)
    run(x1 - t, y0 + t, x1 - t, y1 - t, False)

CELL_PAINT = [('c0', '#1E3A8A', None), ('c1', '#C2452B', None), ('c2', '#26B3A6', None)]

if __name__ == '__main__':
    P = Paths()
    X0, Y0, X1, Y1 = 14, 70, 786, 532
    W, H = X1 - X0, Y1 - Y0
    outer = rrect(X0, Y0, W, H, 20)
    rim = rrect(X0+3, Y0+3, W-6, H-6, 17)
    field_o = rrect(X0+18, Y0+18, W-36, H-36, 0)
    panel_o = rrect(X0+36, Y0+36, W-72, H-72, 0)
    panel = rrect(X0+38, Y0+38, W-76, H-76, 0)
    P.poly('shadow', rrect(X0+6, Y0+8, W, H, 20))
    P.add('gold', ring(rim, rrect(X0+16, Y0+16, W-32, H-32, 0)))
    P.poly('gold_hi', [(X0+20, Y0+4.5), (X1-20, Y0+4.5), (X1-22, Y0+8), (X0+22, Y0+8)])
    P.poly('gold_lo', [(X0+22, Y1-8), (X1-22, Y1-8), (X1-20, Y1-4.5), (X0+20, Y1-4.5)])
    P.add('field', ring(field_o, panel_o))
    block_cells(X0+20, Y0+20, X1-20, Y1-20, 14, P)
    P.poly('panel', panel)
    for i in range(-5, 6):
        a = math.radians(90 + i*13); b = math.radians(90 + i*13 + 5)
        r = 520
        poly = [(400, 70), (400 + r*math.cos(a), 70 + r*math.sin(a)), (400 + r*math.cos(b), 70 + r*math.sin(b))]
        p = clip_half(poly, lambda q: q[1] >= Y0+38)
        p = clip_half(p, lambda q: q[1] <= Y1-38)
        p = clip_half(p, lambda q: q[0] >= X0+38)
        p = clip_half(p, lambda q: q[0] <= X1-38)
        if len(p) > 2: P.poly('rays', p)
    P.add('ink', ring(outer, rim))
    P.add('ink', ring(rrect(X0+16, Y0+16, W-32, H-32, 0), field_o))
    P.add('ink', ring(panel_o, panel))
    for x, y in ((X0+18, Y0+18), (X1-18, Y0+18), (X0+18, Y1-18), (X1-18, Y1-18)):
        P.add('ink', ring(rrect(x-18, y-18, 36, 36, 4), rrect(x-16, y-16, 32, 32, 3)))
        P.poly('jewel_gold', rrect(x-16, y-16, 32, 32, 3))
        P.add('ink', ring(circle_poly(x, y, 10, 24), circle_poly(x, y, 8, 24)))
        P.circle('turq', x, y, 8.5)
        P.circle('white', x-3, y-3, 2.5)
    winged_disc(400, 60, 1.1, P)
    # the panel: flat lapis, darker towards the bottom in three soft steps
    for k, f in enumerate((0.3, 0.42, 0.54, 0.66, 0.78, 0.9)):
        y = Y0+38 + (H-76)*f
        P.poly('panel_shade%d' % k, [(X0+38, y), (X1-38, y), (X1-38, Y1-38), (X0+38, Y1-38)])
    out = []
    paint(P, [('shadow', '#000000', '0.35'), ('gold', '#D9A93A', None), ('gold_hi', '#FBE7A1', '0.8'), ('gold_lo', '#8A6318', '0.8'),
              ('field', '#F0D68A', None)] + CELL_PAINT, out)
    paint(P, [('panel', '#1B3886', None), ] + [('panel_shade%d' % k, '#0A1233', '0.1') for k in range(6)] + [ ('rays', '#F4D67C', '0.06'), ('jewel_gold', '#E0B248', None)] + WING_PAINT, out)
    with open(sys.argv[1], 'w') as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 540">\n')
        for l in out: f.write(l + '\n')
        f.write('</svg>\n')
