"""Hostile import files, written byte by byte (no spreadsheet library decides their shape).

Each builder returns ``(file name, bytes)``. The workbooks are minimal but valid OOXML
packages, so a reader that trusts them does what the attacker wants: rows as wide as column
XFD, a million rows, a member that inflates to gigabytes.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.worksheet+xml"/>'
    "</Types>"
)
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="concepts" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)
SHEET_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    b'<dimension ref="A1:XFD1048576"/><sheetData>'
)
SHEET_TAIL = b"</sheetData></worksheet>"
HEADER_ROW = (
    b'<row r="1"><c r="A1" t="inlineStr"><is><t>key</t></is></c>'
    b'<c r="B1" t="inlineStr"><is><t>text</t></is></c></row>'
)


def workbook(sheet_xml: bytes, *, level: int = 9) -> bytes:
    """A one-sheet XLSX whose sheet part is ``sheet_xml``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", ROOT_RELS)
        archive.writestr("xl/workbook.xml", WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", WORKBOOK_RELS)
        archive.writestr("xl/worksheets/sheet1.xml", sheet_xml)
    return out.getvalue()


def xlsx_cell_at_xfd() -> tuple[str, bytes]:
    """A real header and row, plus one value in column XFD on the first and the last row."""
    rows = (
        b'<row r="1"><c r="A1" t="inlineStr"><is><t>key</t></is></c>'
        b'<c r="B1" t="inlineStr"><is><t>text</t></is></c>'
        b'<c r="XFD1" t="inlineStr"><is><t>x</t></is></c></row>'
        b'<row r="2"><c r="A2" t="inlineStr"><is><t>oma</t></is></c>'
        b'<c r="B2" t="inlineStr"><is><t>Oma</t></is></c></row>'
        b'<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>'
    )
    return "concepts.xlsx", workbook(SHEET_HEAD + rows + SHEET_TAIL)


def xlsx_wide_rows(rows: int = 2_000) -> tuple[str, bytes]:
    """Every row has a value at column XFD (openpyxl pads each row to 16,384 cells)."""
    body = b"".join(
        b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="XFD%d"><v>1</v></c></row>' % (n, n, n, n)
        for n in range(2, rows + 2)
    )
    return "concepts.xlsx", workbook(SHEET_HEAD + HEADER_ROW + body + SHEET_TAIL)


def xlsx_million_rows(empty: bool = False) -> tuple[str, bytes]:
    """A header and 1,048,575 rows (each with a number, or each an empty row element)."""
    if empty:
        body = b"".join(b'<row r="%d"/>' % n for n in range(2, 1_048_577))
    else:
        body = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c></row>' % (n, n, n)
                        for n in range(2, 1_048_577))
    return "concepts.xlsx", workbook(SHEET_HEAD + HEADER_ROW + body + SHEET_TAIL, level=6)


def _spaces_bomb(size: int) -> tuple[bytes, int, int]:
    """(raw deflate stream, crc32, length) of the sheet head, ``size`` spaces, the tail.

    A full flush after each megabyte resets the compressor, so every megabyte of spaces
    deflates to the same bytes: compress one and repeat it."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = SHEET_HEAD + HEADER_ROW
    chunk = b" " * (1024 * 1024)
    first = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert block == again
    count = size // len(chunk)
    last = compressor.compress(SHEET_TAIL) + compressor.flush()
    crc = zlib.crc32(head)
    for _ in range(count):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(SHEET_TAIL, crc)
    return first + block * (count - 1) + again + last, crc, len(head) + count * len(chunk) + len(SHEET_TAIL)


def xlsx_zip_bomb(size: int = 1024**3) -> tuple[str, bytes]:
    """A sheet part that inflates to ``size`` bytes (whitespace inside the sheet data),
    declared honestly in the zip's directory."""
    deflated, crc, length = _spaces_bomb(size)
    return "concepts.xlsx", _raw_zip(deflated, crc, declared=length,
                                     sheet_name=b"xl/worksheets/sheet1.xml")


def xlsx_lying_zip_bomb(size: int = 1024**3) -> tuple[str, bytes]:
    """The same bomb, but the zip's directory says the member is 1 KB."""
    _name, honest = xlsx_zip_bomb(size)
    return "concepts.xlsx", _patch_sizes(honest, b"xl/worksheets/sheet1.xml", 1024)


def _raw_zip(deflated: bytes, crc: int, *, declared: int, sheet_name: bytes) -> bytes:
    """A workbook zip with one pre-deflated member (zipfile cannot write a stream that
    large without inflating it first)."""
    out = io.BytesIO()
    small = [
        (b"[Content_Types].xml", CONTENT_TYPES.encode()),
        (b"_rels/.rels", ROOT_RELS.encode()),
        (b"xl/workbook.xml", WORKBOOK.encode()),
        (b"xl/_rels/workbook.xml.rels", WORKBOOK_RELS.encode()),
    ]
    entries = []
    for name, data in small:
        packed = zlib.compress(data, 9)[2:-4]
        entries.append((name, packed, zlib.crc32(data), len(data)))
    entries.append((sheet_name, deflated, crc, declared))
    central = io.BytesIO()
    for name, packed, member_crc, raw_size in entries:
        offset = out.tell()
        out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0x21,
                              member_crc, len(packed), raw_size, len(name), 0))
        out.write(name)
        out.write(packed)
        central.write(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21,
                                  member_crc, len(packed), raw_size, len(name), 0, 0, 0, 0,
                                  0, offset))
        central.write(name)
    start = out.tell()
    directory = central.getvalue()
    out.write(directory)
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries),
                          len(directory), start, 0))
    return out.getvalue()


def _patch_sizes(data: bytes, name: bytes, declared: int) -> bytes:
    """Rewrite the uncompressed size of ``name`` in its local header and the directory."""
    buffer = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        position = 0
        while (position := buffer.find(signature, position)) != -1:
            name_offset = position + (30 if signature == b"PK\x03\x04" else 46)
            length_at = position + (26 if signature == b"PK\x03\x04" else 28)
            (length,) = struct.unpack_from("<H", buffer, length_at)
            if bytes(buffer[name_offset:name_offset + length]) == name:
                struct.pack_into("<L", buffer, position + offset, declared)
            position += 4
    return bytes(buffer)


def xlsx_shared_strings_bomb(count: int = 3_000_000) -> tuple[str, bytes]:
    """Millions of short shared strings (openpyxl reads them all before the first row)."""
    strings = b"".join(b"<si><t>s%d</t></si>" % n for n in range(count))
    sst = (b'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/'
           b'spreadsheetml/2006/main">' + strings + b"</sst>")
    rels = WORKBOOK_RELS.replace(
        "</Relationships>",
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", ROOT_RELS)
        archive.writestr("xl/workbook.xml", WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", rels)
        archive.writestr("xl/sharedStrings.xml", sst)
        archive.writestr("xl/worksheets/sheet1.xml", SHEET_HEAD + HEADER_ROW + SHEET_TAIL)
    return "concepts.xlsx", out.getvalue()


def csv_million_columns() -> tuple[str, bytes]:
    """A header, then one line of 10^6 cells."""
    return "concepts.csv", b"key,text\n" + b"a," * 1_000_000 + b"a\n"


def csv_wide_short_line() -> tuple[str, bytes]:
    """A line well under the row-length limit with 200,000 cells."""
    return "concepts.csv", b"key,text\n" + b"a," * 200_000 + b"a\n"


def csv_one_huge_line(size: int = 19 * 1024 * 1024) -> tuple[str, bytes]:
    """A file that is one line without a newline."""
    return "concepts.csv", b"x" * size


def csv_endless_quote(size: int = 19 * 1024 * 1024) -> tuple[str, bytes]:
    """A quoted text that never ends, over many short lines."""
    return "concepts.csv", b'key,text\noma,"' + b"abc,def\n" * (size // 8)


def csv_too_many_rows(rows: int = 1_000_000) -> tuple[str, bytes]:
    return "concepts.csv", b"key,text\n" + b"".join(b"k%d,x\n" % n for n in range(rows))


def json_deep(depth: int = 100_000) -> tuple[str, bytes]:
    return "concepts.json", b"[" * depth + b"]" * depth


def json_many_objects(count: int = 200_000) -> tuple[str, bytes]:
    return "concepts.json", b"[" + b",".join(b'{"key":"k%d","text":"x"}' % n for n in range(count)) + b"]"


def json_many_values(count: int = 2_000_000) -> tuple[str, bytes]:
    """A flat list of short distinct strings (no objects for a hook to count)."""
    return "concepts.json", b"[" + b",".join(b'"%d"' % n for n in range(count)) + b"]"


#: Every hostile file, by name: (builder, words the refusal must contain).
HOSTILE = {
    "xlsx-cell-at-XFD": (xlsx_cell_at_xfd, "more than 50 columns"),
    "xlsx-XFD-on-every-row": (xlsx_wide_rows, "more than 50 columns"),
    "xlsx-million-rows": (xlsx_million_rows, "more than 20,000 rows"),
    "xlsx-million-empty-rows": (lambda: xlsx_million_rows(empty=True), "more than 20,000 rows"),
    "xlsx-zip-bomb": (xlsx_zip_bomb, "unpacks to"),
    "xlsx-lying-zip-bomb": (xlsx_lying_zip_bomb, "damaged"),
    "xlsx-shared-strings-bomb": (xlsx_shared_strings_bomb, "more than 500,000 texts"),
    "csv-million-columns": (csv_million_columns, "longer than 1,000,000 characters"),
    "csv-200000-cells-in-a-row": (csv_wide_short_line, "more than 50 columns"),
    "csv-one-huge-line": (csv_one_huge_line, "longer than 1,000,000 characters"),
    "csv-endless-quote": (csv_endless_quote, "a cell holds more than 131,072 characters"),
    "csv-million-rows": (csv_too_many_rows, "more than 20,000 rows"),
    "json-nested-100000-deep": (json_deep, "nested too deeply"),
    "json-200000-objects": (json_many_objects, "more than 20,000 rows"),
    "json-2-million-values": (json_many_values, "more than 500,000 cells"),
}
