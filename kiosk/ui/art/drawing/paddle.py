import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
GRAD = '<defs><linearGradient id="gold" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#FBE7A1"/><stop offset="0.45" stop-color="#E4B54A"/><stop offset="1" stop-color="#9C6A18"/></linearGradient></defs>'

def bands(x0, x1):
    w = x1 - x0
    return [
      '<rect fill="#4A300A" x="%s" y="4" width="%s" height="32"/>' % (x0, w),
      '<rect fill="url(#gold)" x="%s" y="6" width="%s" height="28"/>' % (x0, w),
      '<rect fill="#FFFFFF" fill-opacity="0.35" x="%s" y="8" width="%s" height="2"/>' % (x0, w),
      '<rect fill="#5A3D0E" x="%s" y="14" width="%s" height="12"/>' % (x0, w),
      '<rect fill="#1E3A8A" x="%s" y="15.5" width="%s" height="9"/>' % (x0, w),
      '<rect fill="#3C64C8" x="%s" y="16.5" width="%s" height="2.5"/>' % (x0, w),
    ]

def cap(mirror, x0=0):
    # left cap drawn in 0..40; mirror for the right
    def X(x): return x0 + (40 - x if mirror else x)
    def p(points): return ' '.join('%s,%s' % (round(X(x), 2), y) for x, y in points)
    outer = [(40, 2), (20, 2), (12, 3), (5, 8), (2, 14), (2, 26), (5, 32), (12, 37), (20, 38), (40, 38)]
    face = [(40, 4.5), (20, 4.5), (13, 5.5), (7.5, 10), (4.5, 15), (4.5, 25), (7.5, 30), (13, 34.5), (20, 35.5), (40, 35.5)]
    out = ['<polygon fill="#4A300A" points="%s"/>' % p(outer),
           '<polygon fill="url(#gold)" points="%s"/>' % p(face),
           '<polygon fill="#FFFFFF" fill-opacity="0.35" points="%s"/>' % p([(40, 7), (20, 7), (13, 8), (9, 11), (10, 12), (14, 9.5), (20, 9), (40, 9)]),
           '<polygon fill="#5A3D0E" points="%s"/>' % p([(40, 14), (32, 14), (32, 26), (40, 26)]),
           '<polygon fill="#1E3A8A" points="%s"/>' % p([(40, 15.5), (33.5, 15.5), (33.5, 24.5), (40, 24.5)]),
           '<polygon fill="#3C64C8" points="%s"/>' % p([(40, 16.5), (33.5, 16.5), (33.5, 19), (40, 19)]),
           '<circle fill="#4A300A" cx="%s" cy="20" r="9.5"/>' % X(18),
           '<circle fill="#1A8C86" cx="%s" cy="20" r="7.5"/>' % X(18),
           '<circle fill="#2CC5B8" cx="%s" cy="19" r="5.5"/>' % X(18.5),
           '<circle fill="#FFFFFF" fill-opacity="0.7" cx="%s" cy="16.5" r="2"/>' % X(16.5)]
    return out

def write(name, w, body):
    with open(name, 'w') as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d 40">\n' % w)
        f.write(GRAD + '\n')
        for l in body: f.write(l + '\n')
        f.write('</svg>\n')

write('paddle-left.svg', 40, cap(False))
write('paddle-right.svg', 40, cap(True))
write('paddle-body.svg', 40, bands(0, 40))
body = bands(38, 218) + cap(False) + cap(True, 216)
# a row of gold studs on the lapis band of the whole paddle
for x in range(64, 200, 24):
    body.append('<circle fill="#F0C75A" cx="%d" cy="20" r="2.2"/>' % x)
write('paddle.svg', 256, body)

with open('ball.svg', 'w') as f:
    f.write('''<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<defs><radialGradient id="sphere" cx="0.5" cy="0.5" r="0.5" fx="0.36" fy="0.32"><stop offset="0" stop-color="#FFF8D6"/><stop offset="0.3" stop-color="#F4CF5C"/><stop offset="0.75" stop-color="#B8801E"/><stop offset="1" stop-color="#6B4410"/></radialGradient></defs>
<circle fill="#3A2606" cx="50" cy="50" r="49"/>
<circle fill="url(#sphere)" cx="50" cy="50" r="46"/>
<path fill="#7FE0D6" fill-opacity="0.5" d="M93.2 65.7 A46 46 0 0 1 58 95.3 A60 60 0 0 0 93.2 65.7 Z"/>
<ellipse fill="#FFFFFF" fill-opacity="0.85" cx="36" cy="31" rx="10" ry="7"/>
<circle fill="#FFFFFF" cx="33" cy="29" r="3.5"/>
</svg>
''')
