import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import pts, fmt
W, H = 180, 80
B = 6  # bevel

def block(edge, light, dark, top, bottom, gid):
    return [
      '<defs><linearGradient id="%s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="%s"/><stop offset="1" stop-color="%s"/></linearGradient></defs>' % (gid, top, bottom),
      '<rect fill="%s" x="0" y="0" width="180" height="80" rx="5" ry="5"/>' % edge,
      '<polygon fill="%s" points="2,2 178,2 %d,%d %d,%d"/>' % (light, W-2-B, 2+B, 2+B, 2+B),
      '<polygon fill="%s" fill-opacity="0.75" points="2,2 %d,%d %d,%d 2,78"/>' % (light, 2+B, 2+B, 2+B, H-2-B),
      '<polygon fill="%s" points="2,78 %d,%d %d,%d 178,78"/>' % (dark, 2+B, H-2-B, W-2-B, H-2-B),
      '<polygon fill="%s" fill-opacity="0.8" points="178,2 178,78 %d,%d %d,%d"/>' % (dark, W-2-B, H-2-B, W-2-B, 2+B),
      '<rect fill="url(#%s)" x="%d" y="%d" width="%d" height="%d"/>' % (gid, 2+B, 2+B, W-4-2*B, H-4-2*B),
    ]

def groove_rect(x, y, w, h, t=2.2, dark="#5C3F1B", hi="#FFF4DA"):
    # an incised rectangle outline: dark groove with a light lip on its lower/right side
    def ring(x, y, w, h):
        o = 'M%s %s L%s %s L%s %s L%s %s Z' % (x, y, x+w, y, x+w, y+h, x, y+h)
        i = 'M%s %s L%s %s L%s %s L%s %s Z' % (x+t, y+t, x+t, y+h-t, x+w-t, y+h-t, x+w-t, y+t)
        return o + ' ' + i
    return ['<path fill="%s" fill-opacity="0.5" d="%s"/>' % (hi, ring(x+1, y+1, w, h)),
            '<path fill="%s" fill-opacity="0.55" d="%s"/>' % (dark, ring(x, y, w, h))]

def groove_poly(points, dark="#5C3F1B", hi="#FFF4DA", dx=1, dy=1.2):
    sh = [(x+dx, y+dy) for x, y in points]
    return ['<polygon fill="%s" fill-opacity="0.5" points="%s"/>' % (hi, pts(sh)),
            '<polygon fill="%s" fill-opacity="0.55" points="%s"/>' % (dark, pts(points))]

def zigzag(x0, x1, y, amp, n, t):
    # water sign: a zigzag band of thickness t
    top, bot = [], []
    step = (x1-x0)/n
    for i in range(n+1):
        x = x0 + i*step; yy = y + (amp if i % 2 else -amp)
        top.append((x, yy - t/2)); bot.append((x, yy + t/2))
    return top + bot[::-1]

def strata(col, op, ys):
    out = []
    for y, a in ys:
        out.append('<path fill="%s" fill-opacity="%s" d="M8 %s C50 %s 90 %s 172 %s L172 %s C120 %s 60 %s 8 %s Z"/>' % (col, op, y, y-a, y+a, y-1, y+2.5, y+a+2, y-a+3, y+3))
    return out

def specks(col, op, seq):
    return ['<circle fill="%s" fill-opacity="%s" cx="%s" cy="%s" r="%s"/>' % (col, op, x, y, r) for x, y, r in seq]

def write(name, body):
    with open(name, 'w') as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 180 80">\n')
        for l in body: f.write(l + '\n')
        f.write('</svg>\n')

SP = [(24, 22, 1.2), (61, 58, 1), (97, 18, 1.3), (133, 47, 1), (152, 24, 1.2), (40, 61, 0.9), (115, 63, 1.1), (78, 37, 0.8)]

# 1: warm sand, incised inner frame
b = block('#4A3116', '#F6E2B4', '#9C7240', '#E6C990', '#CCA465', 'g')
b += strata('#8A6230', 0.10, [(30, 3), (52, 4)])
b += specks('#6B4A22', 0.25, SP)
b += groove_rect(16, 16, 148, 48)
write('brick-1.svg', b)

# 2: ochre, water zigzag
b = block('#4A2C12', '#F0D09A', '#8E6232', '#DDB274', '#C38F50', 'g')
b += strata('#7A4F22', 0.10, [(24, 2), (58, 3)])
b += specks('#5C3A18', 0.25, [(x+7, y, r) for x, y, r in SP])
b += groove_poly(zigzag(24, 156, 40, 7, 12, 4.2), dark="#54351A")
write('brick-2.svg', b)

# 3: pale limestone, two incised register lines and a sun disc
b = block('#4F3A1E', '#FBF0D2', '#A88A58', '#ECDCB6', '#D6BE8E', 'g')
b += strata('#8C7040', 0.09, [(28, 3), (55, 3)])
b += specks('#6B5530', 0.22, [(x, y+3, r) for x, y, r in SP])
b += groove_poly([(30, 14), (33.5, 14), (33.5, 66), (30, 66)], dark="#5E4724")
b += groove_poly([(146.5, 14), (150, 14), (150, 66), (146.5, 66)], dark="#5E4724")
b += ['<circle fill="#FFF4DA" fill-opacity="0.5" cx="91" cy="41.2" r="12"/>', '<circle fill="#5E4724" fill-opacity="0.55" cx="90" cy="40" r="12"/>',
      '<circle fill="#D6C39A" cx="90.6" cy="40.8" r="8.6"/>']
write('brick-3.svg', b)

# red bonus brick
def red(cracked):
    b = block('#3A0806', '#F07A62', '#6E120C', '#CF3A2C', '#961A14', 'r')
    b += ['<path fill="#FFFFFF" fill-opacity="0.22" d="M10 10 L170 10 L170 16 C120 20 60 20 10 16 Z"/>']
    # gold inlay: sun disc between two feathers of Maat-like bars
    b += ['<circle fill="#6B4A12" cx="90" cy="40" r="17"/>', '<circle fill="#F0C75A" cx="90" cy="40" r="15"/>',
          '<circle fill="#B3241C" cx="90" cy="40" r="9.5"/>', '<circle fill="#F0C75A" cx="90" cy="40" r="3.5"/>']
    for x in (30, 150):
        b += ['<polygon fill="#6B4A12" points="%s"/>' % pts([(x-8, 30), (x+8, 30), (x+8, 50), (x-8, 50)]),
              '<polygon fill="#F0C75A" points="%s"/>' % pts([(x-6, 32), (x+6, 32), (x+6, 48), (x-6, 48)]),
              '<polygon fill="#B3241C" points="%s"/>' % pts([(x-2.5, 35.5), (x+2.5, 35.5), (x+2.5, 44.5), (x-2.5, 44.5)])]
    for x in (14, 166):
        for y in (14, 66):
            b += ['<circle fill="#F0C75A" cx="%d" cy="%d" r="2.6"/>' % (x, y)]
    if cracked:
        crack = [(62, 8), (70, 22), (64, 31), (76, 44), (70, 56), (80, 72), (77, 72), (67, 57), (72, 44), (60, 31), (66, 22), (58, 8)]
        crack2 = [(71, 43.5), (96, 48), (112, 60), (128, 62), (150, 74), (147, 75), (126, 65), (110, 63), (94, 51), (71, 46)]
        crack3 = [(65, 30), (46, 26), (30, 14), (33, 13), (48, 23), (66, 27.5)]
        for c in (crack, crack2, crack3):
            b += ['<polygon fill="#FFC2A8" fill-opacity="0.55" points="%s"/>' % pts([(x+1.2, y+1) for x, y in c]),
                  '<polygon fill="#1A0302" points="%s"/>' % pts(c)]
        b += ['<polygon fill="#1A0302" fill-opacity="0.85" points="150,78 178,78 178,56 170,60 164,70"/>',
              '<polygon fill="#E8695A" fill-opacity="0.7" points="164,70 170,60 178,56 178,59 171,63 166,71"/>']
    return b
write('brick-red.svg', red(False))
write('brick-red-cracked.svg', red(True))

# slot: the faint recess of an emptied cell
write('slot.svg', [
  '<rect fill="#040818" fill-opacity="0.30" x="2" y="2" width="176" height="76" rx="5" ry="5"/>',
  '<polygon fill="#000000" fill-opacity="0.28" points="2,2 178,2 172,8 8,8"/>',
  '<polygon fill="#000000" fill-opacity="0.18" points="2,2 8,8 8,72 2,78"/>',
  '<polygon fill="#E9C46A" fill-opacity="0.10" points="2,78 8,72 172,72 178,78"/>',
  '<polygon fill="#E9C46A" fill-opacity="0.07" points="178,2 178,78 172,72 172,8"/>',
])
