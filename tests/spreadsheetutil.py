"""A CSV file opened as a person's spreadsheet opens it: LibreOffice Calc, headless, in the file's
language, with "detect special numbers" on (so that dates are found, as Excel finds them), saved
as OpenDocument and read back cell by cell: each cell's type (float, string, date...) and value."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest

LANGUAGE_IDS = {"it": 1040, "en": 1033, "de": 1031, "fi": 1035, "es": 3082}
"""LibreOffice's language of each page language: it decides the decimal mark and the dates it reads."""

OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


@dataclass(frozen=True)
class Cell:
    kind: str
    """The spreadsheet's type: "float", "string", "date", "percentage", or "" for an empty cell."""
    value: str
    """A number's value as the spreadsheet holds it ("19.33"), else the text shown."""


PROFILE = Path(tempfile.gettempdir()) / f"scarto-office-profile-{os.getpid()}"
"""LibreOffice's user profile, made at its first start and kept for the test process (one per test
worker: two offices may not share one): making it took most of each conversion's 3 to 10 s."""
atexit.register(shutil.rmtree, PROFILE, True)


def open_csv(data: bytes, language: str, folder: Path) -> list[list[Cell]]:
    """The CSV as LibreOffice reads it in ``language``: its rows of cells."""
    soffice = shutil.which("soffice")
    if soffice is None:
        pytest.fail("LibreOffice Calc is missing: apt-get install libreoffice-calc-nogui (make debs)")
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / f"sheet-{language}.csv"
    source.write_bytes(data)
    separator = 59 if language != "en" else 44  # ";" where the decimal mark is the comma
    # CSV filter options: separator, quote ("), UTF-8 (76), from line 1, default column types,
    # the language, quoted fields not forced to text, special numbers (dates) detected
    options = f"CSV:{separator},34,76,1,,{LANGUAGE_IDS[language]},false,true"
    subprocess.run([soffice, f"-env:UserInstallation=file://{PROFILE}", "--headless",
                    f"--infilter={options}", "--convert-to", "ods", "--outdir", str(folder), str(source)],
                   check=True, capture_output=True, timeout=120)
    with zipfile.ZipFile(source.with_suffix(".ods")) as ods:
        root = ElementTree.fromstring(ods.read("content.xml"))
    rows = []
    for row in root.iter(f"{{{TABLE}}}table-row"):
        cells = []
        for cell in row.iter(f"{{{TABLE}}}table-cell"):
            kind = cell.get(f"{{{OFFICE}}}value-type", "")
            value = cell.get(f"{{{OFFICE}}}value") or "".join(p.text or "" for p in cell.iter(f"{{{TEXT}}}p"))
            cells += [Cell(kind, value)] * int(cell.get(f"{{{TABLE}}}number-columns-repeated", "1"))
        while cells and not cells[-1].kind:
            cells.pop()
        rows.append(cells)
    return rows
