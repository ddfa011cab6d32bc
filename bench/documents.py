"""PDF text extraction side by side: pypdfium2 (PDFium, what gmail-mcp uses), pypdf and pdfminer.six.

On real files nobody here wrote (py-pdf/sample-files, in servers/gmail/tests/fixtures/documents), each library
extracts every page; the figures are milliseconds per file (median of `--runs`; the 117-page book once), pages
per second, and text fidelity: the ground-truth sentences found in the text. The truth is the LaTeX sources:
`pdflatex-4-pages.tex` is `\\blindtext[23]` (blindtext's English paragraph, 23 times: 8 sentences, 184
occurrences), `multicolumn.tex` is `\\lipsum[1-10]` (lipsum-1-10.txt, from the lipsum package) and a table of five
rows; `habibi.pdf` is WeasyPrint's print of `habibi.html` (one Arabic word). The baseline is pypdf, the pure-Python
reader, measured in the same run: ratios are its time over each candidate's. `gmail-mcp` is the server's own path
(`gmail_mcp.documents.extract`: PDFium plus page markers and clean-up), the figure the targets apply to: the
4-page LaTeX file in ≤ 50 ms, the book at ≥ 100 pages/s.

Only pypdfium2 is a dependency of gmail-mcp; the other candidates are brought in for the run (a missing one is
skipped, said so):

    uv run --locked --with pypdf --with pdfminer.six python bench/documents.py [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import logging
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FIXTURES = Path(__file__).resolve().parents[1] / "servers" / "gmail" / "tests" / "fixtures" / "documents"
BOOK = "GeoTopo-komprimiert.pdf"
LATEX = "pdflatex-4-pages.pdf"
FILES = [
    LATEX,
    "multicolumn.pdf",
    "google-doc-document.pdf",
    "libre-office-writer.pdf",
    "habibi.pdf",
    "imagemagick-images.pdf",
    "owner-password-only.pdf",
    "libreoffice-writer-password.pdf",
    BOOK,
]
# blindtext's English paragraph, one sentence a line: pdflatex-4-pages.tex is `\blindtext[23]`
BLINDTEXT = (FIXTURES / "blindtext.txt").read_text(encoding="utf-8").splitlines()
TABLE = [
    "Austria 8.9 83,879 Vienna German",
    "Belgium 11.5 30,689 Brussels Dutch, French, German",
    "Czech Republic 10.7 78,866 Prague Czech",
    "Denmark 5.8 42,951 Copenhagen Danish",
    "Finland 5.5 338,424 Helsinki Finnish, Swedish",
]
ARABIC = "حَبيبي"

Pages = list[str]


class Encrypted(Exception):
    pass


def with_pypdfium2(data: bytes) -> Pages:
    import pypdfium2  # type: ignore[import-untyped]

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        if exc.err_code == 4:
            raise Encrypted from exc
        raise
    pages = []
    for index in range(len(document)):
        page = document[index]
        textpage = page.get_textpage()
        pages.append(textpage.get_text_bounded())
        textpage.close()
        page.close()
    document.close()
    return pages


def with_pypdf(data: bytes) -> Pages:
    import pypdf  # type: ignore[import-not-found,unused-ignore]

    reader = pypdf.PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        raise Encrypted
    return [page.extract_text() or "" for page in reader.pages]


def with_pdfminer(data: bytes) -> Pages:
    from pdfminer.high_level import extract_text  # type: ignore[import-not-found,unused-ignore]
    from pdfminer.pdfdocument import PDFPasswordIncorrect  # type: ignore[import-not-found,unused-ignore]

    try:
        text = extract_text(io.BytesIO(data))
    except PDFPasswordIncorrect as exc:
        raise Encrypted from exc
    pages = text.split("\x0c")  # pdfminer ends every page with a form feed
    return pages[:-1] if len(pages) > 1 and not pages[-1].strip() else pages


def with_gmail_mcp(data: bytes) -> Pages:
    from gmail_mcp.documents import EncryptedDocument, extract

    try:
        text = extract(data, "application/pdf", "x.pdf").text
    except EncryptedDocument as exc:
        raise Encrypted from exc
    return re.split(r"^--- page \d+ of \d+ ---$", text, flags=re.M)[1:]


CANDIDATES: dict[str, tuple[str, Callable[[bytes], Pages]]] = {
    "gmail-mcp": ("gmail_mcp", with_gmail_mcp),
    "pypdfium2": ("pypdfium2", with_pypdfium2),
    "pypdf": ("pypdf", with_pypdf),
    "pdfminer.six": ("pdfminer", with_pdfminer),
}


def flowing(pages: Pages) -> str:
    """As a reader reads: pages one after the other, words broken at a line end joined, whitespace single."""
    text = "\n".join(pages).replace("\x02", "").replace("\ufffe", "")  # PDFium marks a word it joined
    return " ".join(re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text).split())


def lipsum_sentences() -> list[str]:
    text = " ".join((FIXTURES / "lipsum-1-10.txt").read_text(encoding="utf-8").split())
    return [s for s in re.split(r"(?<=[.?!])\s+", text) if len(s) > 20]


def fidelity(name: str, pages: Pages) -> str:
    flow = flowing(pages)
    if name == LATEX:
        found = sum(min(flow.count(s), 23) for s in BLINDTEXT)
        return f"{found}/{23 * len(BLINDTEXT)} sentences"
    if name == "multicolumn.pdf":
        truth = lipsum_sentences()
        found = sum(s in flow for s in truth)
        rows = sum(row in flow for row in TABLE)
        return f"{found}/{len(truth)} sentences, {rows}/5 rows"
    if name == "habibi.pdf":
        return "Arabic read" if ARABIC in flow else "Arabic lost"
    if name == "imagemagick-images.pdf":
        return f"{len(flow)} chars (image only)"
    return f"{len(flow)} chars"


def measure(extract: Callable[[bytes], Pages], data: bytes, runs: int) -> tuple[float, Pages | str]:
    times = []
    pages: Pages | str = ""
    for _ in range(runs):
        started = time.perf_counter()
        try:
            pages = extract(data)
        except Encrypted:
            pages = "encrypted"
        except Exception as exc:  # a candidate failing on a file is a figure, not a crash of the bench
            pages = f"failed: {type(exc).__name__}"
        times.append(time.perf_counter() - started)
    return statistics.median(times), pages


def main() -> None:
    for noisy in ("pypdf", "pdfminer"):  # their font warnings are not figures
        logging.getLogger(noisy).setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per small file (the book: once)")
    args = parser.parse_args()
    available = {}
    for label, (module, extract) in CANDIDATES.items():
        if importlib.util.find_spec(module) is None:
            print(f"{label}: not installed, skipped (uv run --with pypdf --with pdfminer.six ...)")
            continue
        started = time.perf_counter()
        measure(extract, (FIXTURES / LATEX).read_bytes(), 1)
        available[label] = (extract, time.perf_counter() - started)
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores, shared)\n")
    results: dict[str, dict[str, tuple[float, Pages | str]]] = {}
    for name in FILES:
        data = (FIXTURES / name).read_bytes()
        results[name] = {label: measure(extract, data, 1 if name == BOOK else args.runs) for label, (extract, _) in
                         available.items()}  # fmt: skip
    print("| file | " + " | ".join(available) + " |")
    print("|---|" + "---|" * len(available))
    for name in FILES:
        cells = []
        for label in available:
            seconds, pages = results[name][label]
            if isinstance(pages, str):
                cells.append(f"{pages}, {seconds * 1000:.1f} ms")
                continue
            base = results[name].get("pypdf", (None, None))[0]
            ratio = f", {base / seconds:.1f}× pypdf" if base and label != "pypdf" else ""
            cells.append(f"{seconds * 1000:.1f} ms, {len(pages) / seconds:.0f} p/s{ratio}; {fidelity(name, pages)}")
        print(f"| {name} ({_pages(results[name])} p) | " + " | ".join(cells) + " |")
    print()
    print("first call, import included: " + ", ".join(f"{k} {v[1] * 1000:.0f} ms" for k, v in available.items()))
    if "gmail-mcp" in available:
        latex = results[LATEX]["gmail-mcp"][0] * 1000
        book_seconds, book_pages = results[BOOK]["gmail-mcp"]
        rate = len(book_pages) / book_seconds if not isinstance(book_pages, str) else 0.0
        print(f"target: {LATEX} in ≤ 50 ms: {latex:.1f} ms {'met' if latex <= 50 else 'MISSED'}")
        print(f"target: {BOOK} at ≥ 100 pages/s: {rate:.0f} pages/s {'met' if rate >= 100 else 'MISSED'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def _pages(row: dict[str, tuple[float, Pages | str]]) -> str:
    counts = {len(pages) for _, pages in row.values() if not isinstance(pages, str)}
    return "/".join(str(c) for c in sorted(counts)) or "?"


if __name__ == "__main__":
    main()
