import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from band import *
INK = "#1C1206"
parts = [
  # (centerline, w0, w1, wmid)
  ("M14 25 C34 12 62 11 88 19", 6, 9, 9.5),            # brow
  ("M10 47 C26 30 56 28 78 40 L91 40", 7, 7, 7.5),      # upper lid + kohl
  ("M10 47 C28 60 58 59 79 42", 6, 6, 6.5),            # lower lid
  ("M31 55 C33 66 32 76 27 88", 7.5, 3, None),          # tear
  ("M55 54 C58 70 70 80 82 77 C91 74 90 62 82 62 C77 62 76 68 80 69", 8, 5, None),  # spiral
]
print('<path class="inlay" fill="#F4EEDD" d="M10 47 C26 30 56 28 78 40 L79 42 C58 59 28 60 10 47 Z"/>')
print('<g fill="%s">' % INK)
for d, a, b, m in parts:
    print('<path d="%s"/>' % path(band(d, a, b, steps=20, wmid=m)))
print('<circle cx="44" cy="43" r="11"/>')
print('</g>')
print('<g class="inlay">')
print('<g fill="#2E9B5A">')
for d, a, b, m in parts:
    print('<path d="%s"/>' % path(band(d, max(a-5, 1.2), max(b-5, 1.2), steps=20, cut=2.5, wmid=(m-5 if m else None))))
print('</g>')
print('<circle fill="#1C1206" cx="44" cy="43" r="11"/>')
print('<circle fill="#1E3A8A" cx="44" cy="43" r="8"/>')
print('<circle fill="#6F97E0" cx="40.5" cy="39.5" r="2.3"/>')
print('</g>')
