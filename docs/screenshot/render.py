"""Renders a terminal capture (tmux capture-pane -e: text with SGR colour escapes) to PNG.

    python3 render.py SCREEN.ansi OUT.png
"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
ITALIC = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Oblique.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
SIZE = 15
FG, BG = (216, 222, 233), (31, 36, 48)
BASIC = [(0, 0, 0), (191, 97, 106), (163, 190, 140), (235, 203, 139), (129, 161, 193),
         (180, 142, 173), (136, 192, 208), (229, 233, 240)]


def xterm(n):
    if n < 8:
        return BASIC[n]
    if n < 16:
        return tuple(min(255, c + 40) for c in BASIC[n - 8])
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def cells(text):
    """Per line, a list of (char, fg, bg, bold, italic)."""
    fg, bg, bold, italic = FG, BG, False, False
    lines = []
    for raw in text.split("\n"):
        row = []
        for part in re.split(r"(\x1b\[[0-9;]*m)", raw):
            m = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
            if not m:
                row.extend((c, fg, bg, bold, italic) for c in part)
                continue
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg, bg, bold, italic = FG, BG, False, False
                elif c == 1:
                    bold = True
                elif c == 3:
                    italic = True
                elif c in (22,):
                    bold = False
                elif c in (23,):
                    italic = False
                elif 30 <= c <= 37:
                    fg = BASIC[c - 30]
                elif 40 <= c <= 47:
                    bg = BASIC[c - 40]
                elif c == 39:
                    fg = FG
                elif c == 49:
                    bg = BG
                elif c in (38, 48) and i + 1 < len(codes):
                    if codes[i + 1] == 2 and i + 4 < len(codes):
                        colour = tuple(codes[i + 2:i + 5])
                        i += 4
                    elif codes[i + 1] == 5 and i + 2 < len(codes):
                        colour = xterm(codes[i + 2])
                        i += 2
                    else:
                        colour = FG if c == 38 else BG
                    if c == 38:
                        fg = colour
                    else:
                        bg = colour
                i += 1
        lines.append(row)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    lines = cells(text)
    fonts = {(b, i): ImageFont.truetype(BOLD if b else ITALIC if i else FONT, SIZE)
             for b in (False, True) for i in (False, True)}
    w = round(fonts[(False, False)].getlength("M"))
    h = SIZE + 5
    cols = max(len(r) for r in lines)
    img = Image.new("RGB", (cols * w + 24, len(lines) * h + 24), BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(lines):
        for x, (ch, fg, bg, bold, italic) in enumerate(row):
            px, py = 12 + x * w, 12 + y * h
            if bg != BG:
                d.rectangle([px, py, px + w, py + h], fill=bg)
            if ch != " ":
                d.text((px, py + 1), ch, font=fonts[(bold, italic)], fill=fg)
    img.save(sys.argv[2], optimize=True)


if __name__ == "__main__":
    main()
