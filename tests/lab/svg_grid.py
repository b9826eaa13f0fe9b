#!/usr/bin/python3
"""svg_grid.py PNG N: checks that a heat map rendered from qpscope-mesh's
SVG (rsvg-convert -o PNG SVG) shows an N x N grid: N grey cells on a
diagonal, equally spaced, and every other cell of that grid coloured (a
complete all-pairs run: neither white nor grey). Prints "grid NxN ok"."""
import sys

from PIL import Image

DIAGONAL = (0xE0, 0xE0, 0xE0)


def near(a, b, tol=6):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    img = Image.open(path).convert("RGB")
    w, h = img.size
    px = img.load()
    # The diagonal's grey runs from the grid's top-left corner: find its
    # first pixel scanning rows, then the cell size along that row.
    # (a run of 5 grey pixels: text is anti-aliased, a cell is not)
    top = left = None
    for y in range(h):
        for x in range(w - 5):
            if all(near(px[x + k, y], DIAGONAL, 2) for k in range(5)):
                top, left = y, x
                break
        if top is not None:
            break
    if top is None:
        print("no diagonal cell (#e0e0e0) in the picture")
        return 1
    size = 0
    while left + size < w and near(px[left + size, top + 1], DIAGONAL, 2):
        size += 1
    if size < 3:
        print(f"diagonal cell too small ({size} px)")
        return 1
    # The step between cells: walk down the diagonal from the first cell's
    # corner to where the grey starts again (the next cell's corner).
    step, k, left_grey = None, 0, False
    while left + k < w and top + k < h:
        grey = near(px[left + k, top + k], DIAGONAL, 2)
        if not grey:
            left_grey = True
        elif left_grey:
            step = k
            break
        k += 1
    if step is None and n > 1:
        print(f"no second diagonal cell after the first at ({left},{top}), size {size}")
        return 1
    step = step or size
    for i in range(n):
        cx, cy = left + i * step + size // 2, top + i * step + size // 2
        if cx >= w or cy >= h or not near(px[cx, cy], DIAGONAL, 2):
            print(f"diagonal cell {i} at ({cx},{cy}) is {px[cx, cy] if cx < w and cy < h else 'outside'}")
            return 1
        for j in range(n):
            if i == j:
                continue
            x, y = left + j * step + size // 2, top + i * step + size // 2
            c = px[x, y]
            if near(c, (255, 255, 255)) or near(c, DIAGONAL, 2) or max(c) - min(c) < 40:
                print(f"cell ({i},{j}) at ({x},{y}) is not coloured: {c}")
                return 1
    # Nothing beyond: the cell after the last diagonal one is not grey.
    x, y = left + n * step + size // 2, top + n * step + size // 2
    if x < w and y < h and near(px[x, y], DIAGONAL, 2):
        print(f"a diagonal cell beyond {n}: the grid is larger")
        return 1
    print(f"grid {n}x{n} ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
