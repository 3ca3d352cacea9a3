import os, sys, math
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import pts, fmt
from emit import Paths, sub, cw, ring, rrect, circle_poly
import frame

def night(W, H, cy):
    # one radial gradient: the only one in the big drawings (a stepped glow of
    # flat ellipses shows rings at full size; a gradient costs one element)
    return ['<defs><radialGradient id="night" cx="0.5" cy="%s" r="0.72"><stop offset="0" stop-color="#1C3373"/><stop offset="0.55" stop-color="#122257"/><stop offset="1" stop-color="#080F2E"/></radialGradient></defs>' % cy,
            '<rect fill="url(#night)" x="0" y="0" width="%d" height="%d"/>' % (W, H)]

def star(cx, cy, r):
    p = []
    for i in range(10):
        a = -math.pi/2 + i*math.pi/5
        rr = r if i % 2 == 0 else r*0.42
        p.append((cx + rr*math.cos(a), cy + rr*math.sin(a)))
    return p

def star_field(x0, y0, x1, y1, step, r, P, layer):
    row = 0
    y = y0 + step/2
    while y < y1:
        x = x0 + step/2 + (step/2 if row % 2 else 0)
        while x < x1:
            P.poly(layer, star(x, y, r))
            x += step
        y += step*0.866; row += 1

def kheker(x0, x1, y, h, P, layer):
    w = h*0.42
    x = x0
    while x + w <= x1:
        c = x + w/2
        P.poly(layer, [(c - w*0.32, y + h), (c - w*0.38, y + h*0.45), (c - w*0.2, y + h*0.3), (c - w*0.14, y + h*0.18),
                       (c + w*0.14, y + h*0.18), (c + w*0.2, y + h*0.3), (c + w*0.38, y + h*0.45), (c + w*0.32, y + h)])
        P.circle(layer, c, y + h*0.1, w*0.16, n=12)
        x += w*1.12

def zigzag(x0, x1, y, amp, period, t):
    top, bot = [], []
    n = int((x1 - x0)/period*2)
    for i in range(n+1):
        x = x0 + i*period/2; yy = y + (amp if i % 2 else -amp)
        top.append((x, yy - t/2)); bot.append((x, yy + t/2))
    return top + bot[::-1]

def write(name, w, h, out):
    with open(name, 'w') as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d">\n' % (w, h))
        for l in out: f.write(l + '\n')
        f.write('</svg>\n')

# playfield: 5 elements
W, H = 1200, 900
P = Paths()
star_field(0, 60, W, H - 60, 80, 7, P, 'stars')
P.poly('dark', [(0, 0), (W, 0), (W, 54), (0, 54)])
P.poly('dark', [(0, H - 36), (W, H - 36), (W, H), (0, H)])
kheker(6, W, 6, 42, P, 'gold')
P.poly('gold', [(0, 52), (W, 52), (W, 55), (0, 55)])
P.poly('turq', zigzag(0, W, H - 18, 6, 40, 4))
out = night(W, H, 0.42)
frame.paint(P, [('stars', '#E9C46A', '0.16'), ('dark', '#060B22', '0.55'), ('gold', '#E0B248', '0.42'), ('turq', '#26B3A6', '0.22')], out)
write('backdrop-playfield.svg', W, H, out)

# home: ground, stars, columns, frieze and floor
W, H = 1920, 1080
P = Paths()
star_field(0, 60, W, 760, 96, 9, P, 'stars')
sw = 150
# the bell of the capital: concave sides flaring from the neck to the abacus
bell = []
for k in range(13):
    u = k/12
    bell.append((0 - 70*u**1.6, 250 - 154*u))
bell = [(sw - x, y) for x, y in bell][::-1] + bell
bell = [(x, y) for x, y in bell]
for x in (-40, W + 40 - sw):
    def Q(points): return [(x + a, b) for a, b in points]
    P.poly('stone', Q([(0, 250), (sw, 250), (sw - 6, 1000), (6, 1000)]))
    P.poly('stone', Q(bell))
    P.poly('shade', Q([(0, 250), (sw*0.42, 250), (sw*0.42, 1000), (6, 1000)]))
    P.poly('shade', Q([p for p in bell if p[0] <= sw*0.42] + [(sw*0.42, 96), (sw*0.42, 250)]))
    P.poly('light', Q([(sw*0.7, 330), (sw*0.8, 330), (sw*0.8 - 1, 990), (sw*0.7, 990)]))
    for i in range(1, 6):
        fx = i*sw/6
        P.poly('ink', Q([(fx - 1.5, 330), (fx + 1.5, 330), (fx + 1.5, 990), (fx - 1.5, 990)]))
    P.poly('ink', Q([(-26, 1000), (sw + 26, 1000), (sw + 26, 1030), (-26, 1030)]))
    P.add('ink', ring(Q([(-80, 64), (sw + 80, 64), (sw + 80, 96), (-80, 96)]), Q([(-76, 68), (sw + 76, 68), (sw + 76, 92), (-76, 92)])))
    P.poly('abacus', Q([(-76, 68), (sw + 76, 68), (sw + 76, 92), (-76, 92)]))
    for y in (262, 286, 310):
        P.poly('bands', Q([(-4, y), (sw + 4, y), (sw + 4, y + 10), (-4, y + 10)]))
    # the papyrus umbel: ribs fanning from the neck to the rim
    for i in range(9):
        t = i/8
        top = -66 + t*(sw + 132)
        bot = sw*0.12 + t*sw*0.76
        P.poly('leaves', Q([(top - 5, 100), (top + 5, 100), (bot + 2.5, 246), (bot - 2.5, 246)]))
        P.poly('ribs', Q([(top - 1.2, 100), (top + 1.2, 100), (bot + 0.8, 246), (bot - 0.8, 246)]))
P.poly('lintel', [(0, 0), (W, 0), (W, 64), (0, 64)])
P.poly('lintel', [(0, 1010), (W, 1010), (W, H), (0, H)])
kheker(0, W, 8, 50, P, 'gold')
P.poly('gold', [(0, 1010), (W, 1010), (W, 1018), (0, 1018)])
frame.block_cells(0, 1026, W, 1066, 20, P, cell=36, gap=6)
out = night(W, H, 0.45)
frame.paint(P, [('stars', '#E9C46A', '0.2'), ('stone', '#7A5C33', None), ('shade', '#1E140A', '0.45'), ('light', '#C9A468', '0.6'),
                ('bands', '#D9A93A', '0.7'), ('leaves', '#26B3A6', '0.35'), ('ribs', '#E0B248', '0.5'), ('abacus', '#8C6B3C', None), ('ink', '#2A1C0C', None),
                ('lintel', '#0A0F26', '0.75'), ('gold', '#E0B248', '0.42')] + frame.CELL_PAINT, out)
write('backdrop-home.svg', W, H, out)
