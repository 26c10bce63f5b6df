"""Tables that read well at any width, 80 columns included: never a word broken in the middle.

A table has *key* columns (short identifiers: a number, a name, a status) and *text* columns (a
reason, a list of hooks, an event). It is laid out the first way that fits the width:

1. a plain table, every cell on one line;
2. a table whose text columns wrap at spaces in the width the key columns leave them;
3. records: the key columns on one line (aligned, under one header line), then each text column
   on its own indented ``label: value`` lines, wrapped at spaces.

Cells are plain strings, printed literally (rich markup in them is *not* interpreted, so
``[plugins.guard]`` stays); a cell may also be a ``rich.text.Text`` for colour.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console

GAP = 2
#: joins words that must stay on one line ("pluggy 1.7.0"); printed as a plain space
NBSP = "\u00a0"
#: a text column narrower than this reads badly: switch to records instead
MIN_TEXT = 24
#: record layout: text columns are indented under the key line
INDENT = 4


@dataclass(frozen=True)
class Column:
    header: str
    text: bool = False
    """wraps (a text column) rather than staying on one line (a key column)"""
    right: bool = False
    """right-aligned (numbers)"""


Cell = str | Text


def _text(cell: Cell) -> Text:
    return cell.copy() if isinstance(cell, Text) else Text(str(cell))


def _wrap(cell: Cell, width: int) -> list[Text]:
    """``cell`` wrapped at spaces into lines of at most ``width`` (only a word longer than that is cut).

    Styles are kept; a non-breaking space joins words and prints as a space.
    """
    text = _text(cell)
    width = max(width, 1)
    words = [(m.start(), m.end()) for m in _WORD.finditer(text.plain)]
    lines: list[tuple[int, int]] = []
    for start, end in words:
        while end - start > width:  # a word longer than the line: cut it, the only way it fits
            lines.append((start, start + width))
            start += width
        if lines and end - lines[-1][0] <= width:
            lines[-1] = (lines[-1][0], end)
        else:
            lines.append((start, end))
    if not lines:
        return [Text("", style=text.style)]
    out = []
    for start, end in lines:
        piece = text[start:end]
        piece.plain = piece.plain.replace(NBSP, " ")
        out.append(piece)
    return out


_WORD = re.compile(r"[^ \t\n]+")


def _pad(text: Text, width: int, right: bool) -> Text:
    gap = " " * max(0, width - text.cell_len)
    return Text.assemble(gap, text) if right else Text.assemble(text, gap)


def _natural(columns: Sequence[Column], rows: Sequence[Sequence[Cell]]) -> list[int]:
    widths = [len(c.header) for c in columns]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _text(cell).cell_len)
    return widths


def _line(parts: Sequence[Text]) -> Text:
    line = Text(" " * GAP).join(parts)
    line.rstrip()  # in place
    return line


def _header(columns: Sequence[Column], widths: Sequence[int]) -> Text:
    cells = [_pad(Text(c.header, style="bold"), w, c.right) for c, w in zip(columns, widths, strict=True)]
    return _line(cells)


def layout(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int) -> list[Text]:
    """The table as lines of at most ``width`` cells; only a word longer than its column is cut."""
    if not rows:
        return []
    widths = _natural(columns, rows)
    gaps = GAP * (len(columns) - 1)
    if sum(widths) + gaps <= width:
        return _grid(columns, rows, widths)
    text_cols = [i for i, c in enumerate(columns) if c.text]
    key_width = sum(w for i, w in enumerate(widths) if i not in text_cols) + gaps
    room = width - key_width
    if text_cols and room >= sum(min(widths[i], MIN_TEXT) for i in text_cols):
        fitted = list(widths)
        for i in text_cols:
            fitted[i] = min(widths[i], MIN_TEXT)
        spare = room - sum(fitted[i] for i in text_cols)
        need = {i: widths[i] - fitted[i] for i in text_cols}
        total = sum(need.values()) or 1
        for i in text_cols:  # share what is left in proportion to what each text column still needs
            fitted[i] += min(need[i], spare * need[i] // total)
        spare = room - sum(fitted[i] for i in text_cols)
        for i in text_cols:  # the rounding remainder
            grow = min(spare, widths[i] - fitted[i])
            fitted[i] += grow
            spare -= grow
        return _grid(columns, rows, fitted)
    return _records(columns, rows, width)


def _grid(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], widths: Sequence[int]) -> list[Text]:
    out = [_header(columns, widths)]
    for row in rows:
        cells = [_wrap(cell, w) if c.text else [_text(cell)] for c, cell, w in zip(columns, row, widths, strict=True)]
        for n in range(max(len(c) for c in cells)):
            parts = [_pad(cell[n] if n < len(cell) else Text(), w, c.right)
                     for c, cell, w in zip(columns, cells, widths, strict=True)]
            out.append(_line(parts))
    return out


def _records(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int) -> list[Text]:
    """Key columns on one aligned line (as many as fit), every other column as ``label: value`` lines."""
    widths = _natural(columns, rows)
    keys: list[int] = []
    used = -GAP
    for i, column in enumerate(columns):
        if column.text or used + GAP + widths[i] > width:
            break
        keys.append(i)
        used += GAP + widths[i]
    rest = [i for i in range(len(columns)) if i not in keys]
    key_cols = [columns[i] for i in keys]
    key_widths = [widths[i] for i in keys]
    out = [_header(key_cols, key_widths)] if keys else []
    label_width = max((len(columns[i].header) for i in rest), default=0)
    for row in rows:
        if keys:
            out.append(_line([_pad(_text(row[i]), w, c.right) for i, c, w in zip(keys, key_cols, key_widths,
                                                                                  strict=True)]))
        for i in rest:
            if not _text(row[i]).plain.strip():
                continue
            label = f"{' ' * INDENT}{columns[i].header + ':':<{label_width + 1}} "
            body = _wrap(row[i], max(width - len(label), MIN_TEXT))
            out.append(Text.assemble(Text(label, style="dim"), body[0]))
            out.extend(Text.assemble(" " * len(label), line) for line in body[1:])
    return out


def print_table(console: Console, columns: Sequence[Column], rows: Sequence[Sequence[Cell]],
                width: int | None = None) -> None:
    """Print the table on a rich console, laid out for ``width`` (default: the console's)."""
    for line in layout(columns, rows, width or console.width):
        console.print(line, soft_wrap=True, overflow="ignore", crop=False)


def hanging(prefix: Cell, body: Cell, width: int) -> list[Text]:
    """``prefix`` then ``body`` wrapped at spaces, continuation lines indented under the body."""
    head = _text(prefix)
    lines = _wrap(body, max(width - head.cell_len, MIN_TEXT))
    return [Text.assemble(head, lines[0])] + [Text.assemble(" " * head.cell_len, line) for line in lines[1:]]



def indented(line: Cell, width: int, indent: int = INDENT) -> list[Text]:
    """One long line wrapped at spaces, continuation lines indented (never at column 0, where they
    would read as a new record): under the value when the line starts with a short ``label:``,
    else by ``indent``."""
    text = _text(line)
    if text.cell_len <= width:
        return [text]
    label = re.match(r" *[^ :]+(?: [^ :]+)?: +(?=\S)", text.plain)
    if label and label.end() <= width // 3:
        return hanging(text[:label.end()], text[label.end():], width)
    cut, nxt = 0, len(text.plain)
    for m in _WORD.finditer(text.plain):  # the first line: as many whole words as fit
        if m.end() > width and cut:
            nxt = m.start()
            break
        cut = m.end()
    first, rest = text[:cut], text[nxt:]
    if not rest.plain.strip():
        return _wrap(first, width)
    return [*_wrap(first, width), *(Text.assemble(" " * indent, piece)
                                    for piece in _wrap(rest, max(width - indent, MIN_TEXT)))]
