import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band import *
from clip import band as hband
INK = "#1C1206"
body = "M61 20 C64 40 50 50 50 64 C50 78 62 84 74 86 C86 88 87 95 75 95 L30 94 C21 94 15 91 13 85"
hood = "M58 13 C45 15 36 27 37 40 C38 52 44 60 50 66 L57 62 C63 52 67 36 65 19 Z"
hood_in = "M57 16.5 C47 18.5 40 28.5 40.5 40 C41.5 50 46 56.5 51 61.5 L55 58.5 C60 50 63.5 36 61.5 21.5 Z"
head = "M52 10 C60 4 72 6 80 11 C83 13 82 18 78 19.5 L66 23 C61 24 56 23.5 52 20.5 Z"
head_in = "M55 11.5 C61 7.5 71 8.5 78 13 C79.5 14 79 16.5 77 17 L65.5 20.3 C61.5 21.2 57.5 20.8 55 18.8 Z"
print('<path fill="%s" d="%s"/>' % (INK, hood))
print('<path class="inlay" fill="#C2452B" d="%s"/>' % hood_in)
hp = flatten(hood_in)
print('<g class="inlay">')
for c, a in [("#1E3A8A", 26), ("#26B3A6", 34), ("#1E3A8A", 42), ("#26B3A6", 50)]:
    p = hband(hp, a, a + 3.5)
    print('<polygon fill="%s" points="%s"/>' % (c, pts(p)))
print('</g>')
print('<path fill="%s" d="%s"/>' % (INK, path(band(body, 12, 4, steps=24))))
print('<path class="inlay" fill="#D9A93A" d="%s"/>' % path(band(body, 7, 1.4, steps=24, cut=2.5)))
print('<g class="inlay" fill="#A8401F">')
for q in sub_bands(body, 12, 4, 12, 8, 3.2)[:9]:
    print('<polygon points="%s"/>' % pts(q))
print('</g>')
print('<path fill="%s" d="%s"/>' % (INK, head))
print('<path class="inlay" fill="#D9A93A" d="%s"/>' % head_in)
print('<path class="inlay" fill="#F0CD6A" d="M58 12.5 C63 9.8 70 10 75 12.5 C70 11.5 63 11.6 58.5 14 Z"/>')
print('<circle class="inlay" fill="#1C1206" cx="67" cy="13.8" r="2.1"/>')
